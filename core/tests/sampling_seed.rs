//! A fixed sampling seed (`set_sampling_seed`) makes the events a thread samples the same
//! in every run, whichever thread runs them; without one, threads sample independently.
//!
//! One test: the seed is the process's.

use hotpath_core::op::{Here, Sampler};
use hotpath_core::{begin_epoch, set_sampling_seed, CallSite, SiteKind, WARM_UP};

static SITE: CallSite = CallSite::named("seeded", None, file!(), line!(), SiteKind::Channel);

const N: usize = 4_000;

/// The weights `Here::sample` gives the next `n` channel events of the site on the
/// calling thread: 0 not timed, 1 timed in the site's warm-up, 16 (the default period)
/// picked by the countdown.
fn sampled(n: usize) -> Vec<u64> {
    let here = Here::get().expect("a shard");
    (0..n)
        .map(|_| here.sample(Sampler::Channels, &SITE))
        .collect()
}

/// The weights of `N` events after the site's warm-up, in a new session, on the calling
/// thread.
fn session() -> Vec<u64> {
    begin_epoch();
    let w = sampled(WARM_UP as usize + N);
    assert!(w[..WARM_UP as usize].iter().all(|w| *w == 1));
    w[WARM_UP as usize..].to_vec()
}

/// The same on a new thread.
fn on_a_new_thread() -> Vec<u64> {
    std::thread::spawn(session).join().unwrap()
}

#[test]
fn a_seed_fixes_which_events_are_timed_on_every_thread() {
    // Default: every thread its own sequence.
    assert_ne!(on_a_new_thread(), on_a_new_thread());

    set_sampling_seed(7);
    let seven = on_a_new_thread();
    // Every event timed with probability 1/16 and standing for 16: about 250 of 4,000
    // (standard deviation 15); with seed 7, 257 in every run.
    assert!(seven.iter().all(|w| *w == 0 || *w == 16), "{seven:?}");
    let timed = seven.iter().filter(|w| **w == 16).count();
    assert!(timed.abs_diff(N / 16) < 75, "{timed} timed");
    assert_eq!(timed, 257);
    // Another thread, and this one in each new session, time the same events.
    assert_eq!(on_a_new_thread(), seven);
    assert_eq!(session(), seven);
    assert_eq!(session(), seven);
    // Setting the seed starts this thread's sequence again at once (the warm-up is over).
    set_sampling_seed(7);
    assert_eq!(sampled(N), seven);

    set_sampling_seed(8);
    let eight = on_a_new_thread();
    assert_ne!(eight, seven);
    assert_eq!(session(), eight);

    // Back to the default.
    set_sampling_seed(0);
    assert_ne!(on_a_new_thread(), on_a_new_thread());
}
