//! The scope stack against ground truth the tests know: call counts, nesting, recursion,
//! guards that leave their frame, futures polled on several threads.
//!
//! Every test uses its own call sites and never starts a new epoch, so tests can run in
//! parallel in one process.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use hotpath_core::{snapshot, CallSite, MeasuredFuture, Scope, SiteKind, SiteStats};

macro_rules! site {
    ($name:ident, $kind:ident) => {
        static $name: CallSite = CallSite::new(
            || stringify!($name),
            None,
            file!(),
            line!(),
            SiteKind::$kind,
        );
    };
}

fn stats(site: &'static CallSite) -> SiteStats {
    stats_of([site]).pop().unwrap()
}

/// Several sites from one snapshot: values compared with each other must share the
/// snapshot's tick-to-ns ratio (it is refined as the run goes on).
fn stats_of<const N: usize>(sites: [&'static CallSite; N]) -> Vec<SiteStats> {
    let snap = snapshot();
    sites
        .iter()
        .map(|site| {
            snap.sites
                .iter()
                .find(|s| std::ptr::eq(s.site, *site))
                .cloned()
                .unwrap_or_else(|| panic!("no stats for {}", site.name()))
        })
        .collect()
}

/// Rounding ticks to ns once per value: sums agree to within a nanosecond per term.
fn close(a: u64, b: u64, terms: u64) -> bool {
    a.abs_diff(b) <= terms
}

fn spin(iters: u64) -> u64 {
    (0..iters).fold(0u64, |a, i| std::hint::black_box(a.wrapping_add(i * i)))
}

site!(NEST_PARENT, Function);
site!(NEST_CHILD, Function);

#[test]
fn self_plus_children_is_inclusive() {
    for _ in 0..50 {
        let _p = Scope::enter(&NEST_PARENT);
        spin(200);
        for _ in 0..3 {
            let _c = Scope::enter(&NEST_CHILD);
            spin(500);
        }
    }
    let [p, c] = <[SiteStats; 2]>::try_from(stats_of([&NEST_PARENT, &NEST_CHILD])).unwrap();
    assert_eq!(p.calls, 50);
    assert_eq!(c.calls, 150);
    assert_eq!(c.self_ns, c.total_ns, "a leaf's self time is its total");
    assert!(
        close(p.self_ns + c.total_ns, p.total_ns, 3),
        "{} + {} vs {}",
        p.self_ns,
        c.total_ns,
        p.total_ns
    );
    assert!(
        c.min_ns <= c.percentile_ns(50.0).unwrap() && c.percentile_ns(50.0).unwrap() <= c.max_ns
    );
}

site!(FIB, Function);

fn fib(n: u32) -> u64 {
    let _s = Scope::enter(&FIB);
    if n < 2 {
        n as u64
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

#[test]
fn recursion_counts_the_outermost_call_in_the_total() {
    assert_eq!(fib(15), 610);
    let s = stats(&FIB);
    // fib(15) makes 2 * fib(16) - 1 calls.
    assert_eq!(s.calls, 1973);
    // One outermost call: the total is that call's duration, the longest of all.
    assert_eq!(s.total_ns, s.max_ns);
    // Self times of all levels add up to the one inclusive duration.
    assert!(
        close(s.self_ns, s.total_ns, 1973),
        "self {} total {}",
        s.self_ns,
        s.total_ns
    );
}

site!(FORGET_PARENT, Function);
site!(FORGET_CHILD, Function);

#[test]
fn a_forgotten_guard_does_not_corrupt_the_stack() {
    {
        let _p = Scope::enter(&FORGET_PARENT);
        std::mem::forget(Scope::enter(&FORGET_CHILD));
    }
    // The child's frame was discarded when the parent left: a new call is outermost
    // again and adds to the total.
    {
        let _c = Scope::enter(&FORGET_CHILD);
        spin(1000);
    }
    let c = stats(&FORGET_CHILD);
    assert_eq!(c.calls, 1, "the forgotten call never ended");
    assert!(c.total_ns > 0);
    assert_eq!(c.total_ns, c.max_ns);
    assert_eq!(stats(&FORGET_PARENT).calls, 1);
}

site!(MOVED, Function);
site!(MOVED_AFTER, Function);

#[test]
fn a_guard_dropped_on_another_thread_is_recorded_there() {
    let t = std::thread::spawn(|| {
        let g = Scope::enter(&MOVED);
        spin(1000);
        // Send the live guard to a second thread, which drops it.
        std::thread::spawn(move || drop(g)).join().unwrap();
        // Back on the first thread the dead frame is popped before the next push, so the
        // same site is outermost again and nesting works as before.
        for _ in 0..10 {
            let _a = Scope::enter(&MOVED);
            let _b = Scope::enter(&MOVED_AFTER);
        }
    });
    t.join().unwrap();
    let [m, inner] = <[SiteStats; 2]>::try_from(stats_of([&MOVED, &MOVED_AFTER])).unwrap();
    assert_eq!(m.calls, 11);
    assert_eq!(inner.calls, 10);
    // Outermost: 11 calls' durations all in the total (none nested under the moved one).
    assert!(m.total_ns >= m.max_ns);
    let sum_of_parts = m.self_ns + inner.total_ns;
    assert!(
        close(sum_of_parts, m.total_ns, 12),
        "{sum_of_parts} vs {}",
        m.total_ns
    );
}

site!(DEEP, Function);

fn deep(n: u32) -> u32 {
    let _s = Scope::enter(&DEEP);
    if n == 0 {
        0
    } else {
        1 + deep(n - 1)
    }
}

#[test]
fn nesting_deeper_than_tracked_still_counts_every_call() {
    let depth = hotpath_core::MAX_DEPTH as u32 + 100;
    let r = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || deep(depth))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(r, depth);
    let s = stats(&DEEP);
    assert_eq!(s.calls, depth as u64 + 1);
    assert_eq!(s.total_ns, s.max_ns, "still one outermost call");
    assert!(
        s.self_ns <= s.total_ns,
        "self {} > total {}",
        s.self_ns,
        s.total_ns
    );
    let snap = snapshot();
    assert!(snap.depth_overflowed);
    // 101 calls had no frame (other tests of this binary may nest as deep).
    assert!(
        snap.calls_beyond_depth >= 101,
        "{}",
        snap.calls_beyond_depth
    );
}

site!(SEG_OUTER, Function);
site!(SEG_PARENT, Function);
site!(SEG_CHILD, Function);
site!(SEG_FORGOTTEN, Function);
site!(SEG_MOVED, Function);

/// Runs `f` inside `n` nested scopes of `SEG_OUTER`.
fn nested(n: u32, f: &mut dyn FnMut()) {
    let _s = Scope::enter(&SEG_OUTER);
    if n <= 1 {
        f()
    } else {
        nested(n - 1, f)
    }
}

/// Frames deeper than those a shard holds inline (16) live in segments; they nest,
/// repair and cross threads as the inline ones do.
#[test]
fn frames_beyond_the_inline_ones_nest_and_repair_like_the_first() {
    std::thread::spawn(|| {
        nested(40, &mut || {
            for _ in 0..20 {
                let _p = Scope::enter(&SEG_PARENT);
                spin(200);
                for _ in 0..3 {
                    let _c = Scope::enter(&SEG_CHILD);
                    spin(500);
                }
            }
            {
                let _p = Scope::enter(&SEG_PARENT);
                std::mem::forget(Scope::enter(&SEG_FORGOTTEN));
            }
            let g = Scope::enter(&SEG_MOVED);
            std::thread::spawn(move || drop(g)).join().unwrap();
            // The dead frame is popped before the next push.
            let _p = Scope::enter(&SEG_PARENT);
            let _c = Scope::enter(&SEG_CHILD);
        });
    })
    .join()
    .unwrap();
    let [o, p, c, m] =
        <[SiteStats; 4]>::try_from(stats_of([&SEG_OUTER, &SEG_PARENT, &SEG_CHILD, &SEG_MOVED]))
            .unwrap();
    assert_eq!((o.calls, p.calls, c.calls, m.calls), (40, 22, 61, 1));
    assert!(
        snapshot()
            .sites
            .iter()
            .all(|s| !std::ptr::eq(s.site, &SEG_FORGOTTEN)),
        "the forgotten call never ended"
    );
    assert_eq!(c.self_ns, c.total_ns, "a leaf's self time is its total");
    // The parents' self times and the children's totals add up to the parents' totals.
    assert!(
        close(p.self_ns + c.total_ns, p.total_ns, 2 * 61),
        "{} + {} vs {}",
        p.self_ns,
        c.total_ns,
        p.total_ns
    );
    // One outermost call of the recursion, whose self time is within its total.
    assert_eq!(o.total_ns, o.max_ns);
    assert!(o.self_ns <= o.total_ns, "{} > {}", o.self_ns, o.total_ns);
}

site!(EXITED, Function);

#[test]
fn threads_that_exited_are_included() {
    let hs: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                for _ in 0..(10 * (i + 1)) {
                    let _s = Scope::enter(&EXITED);
                }
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    assert_eq!(stats(&EXITED).calls, 10 + 20 + 30 + 40);
}

/// A future that returns `Pending` `n` times, waking itself each time, spinning a bit in
/// every poll.
struct Yield {
    left: u32,
}

impl Future for Yield {
    type Output = u32;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
        spin(2000);
        if self.left == 0 {
            Poll::Ready(7)
        } else {
            self.left -= 1;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

struct Noop;
impl Wake for Noop {
    fn wake(self: Arc<Self>) {}
}

site!(ASYNC_MOVES, AsyncFunction);
site!(ASYNC_CHILD, Function);

#[test]
fn a_future_is_one_call_across_threads_and_polls() {
    let waker = Waker::from(Arc::new(Noop));
    let mut fut = Box::pin(MeasuredFuture::new(&ASYNC_MOVES, async {
        let v = Yield { left: 5 }.await;
        let _c = Scope::enter(&ASYNC_CHILD);
        spin(1000);
        v
    }));
    // Polls alternate between two threads, as on a multi-thread runtime.
    let mut polls = 0;
    let out = loop {
        let w = waker.clone();
        let (f, r) = std::thread::spawn(move || {
            let r = fut.as_mut().poll(&mut Context::from_waker(&w));
            (fut, r)
        })
        .join()
        .unwrap();
        fut = f;
        polls += 1;
        if let Poll::Ready(v) = r {
            break v;
        }
    };
    assert_eq!(out, 7);
    assert_eq!(polls, 6);
    let [s, child] = <[SiteStats; 2]>::try_from(stats_of([&ASYNC_MOVES, &ASYNC_CHILD])).unwrap();
    assert_eq!(s.calls, 1);
    assert_eq!(s.polls, 6);
    assert_eq!(s.cancelled, 0);
    // Wall time (first poll to Ready) covers the polls and the gaps between them.
    assert!(
        s.total_ns >= s.busy_ns,
        "wall {} busy {}",
        s.total_ns,
        s.busy_ns
    );
    assert_eq!(child.calls, 1);
    assert!(
        close(s.self_ns + child.total_ns, s.busy_ns, 8),
        "{} + {} vs {}",
        s.self_ns,
        child.total_ns,
        s.busy_ns
    );
}

site!(ASYNC_CANCELLED, AsyncFunction);

#[test]
fn a_future_dropped_before_ready_is_a_cancelled_call() {
    let waker = Waker::from(Arc::new(Noop));
    let mut fut = Box::pin(MeasuredFuture::new(&ASYNC_CANCELLED, Yield { left: 100 }));
    for _ in 0..3 {
        assert!(fut
            .as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending());
    }
    drop(fut);
    // Never polled: not a call.
    drop(MeasuredFuture::new(&ASYNC_CANCELLED, Yield { left: 0 }));
    let s = stats(&ASYNC_CANCELLED);
    assert_eq!(s.calls, 1);
    assert_eq!(s.cancelled, 1);
    assert_eq!(s.polls, 3);
}

site!(ASYNC_PANICS, AsyncFunction);

#[test]
fn a_poll_that_panics_pops_its_frame_and_is_a_cancelled_call() {
    let waker = Waker::from(Arc::new(Noop));
    let panicked = std::panic::catch_unwind(|| {
        let mut fut = Box::pin(MeasuredFuture::new(&ASYNC_PANICS, async {
            if std::hint::black_box(true) {
                panic!("a panic inside a measured poll");
            }
            0u64
        }));
        let _ = fut.as_mut().poll(&mut Context::from_waker(&waker));
    });
    assert!(panicked.is_err());
    let s = stats(&ASYNC_PANICS);
    assert_eq!((s.calls, s.cancelled, s.polls), (1, 1, 0));
    // The frame is gone: the next call is outermost again, so its time is the total.
    let mut fut = Box::pin(MeasuredFuture::new(&ASYNC_PANICS, async { spin(1_000) }));
    assert!(fut
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_ready());
    let s = stats(&ASYNC_PANICS);
    assert_eq!((s.calls, s.cancelled, s.polls), (2, 1, 1));
    assert!(s.total_ns > 0);
    assert_eq!(s.total_ns, s.max_ns);
}

site!(ASYNC_OUTER, AsyncFunction);
site!(ASYNC_INNER, AsyncFunction);

#[test]
fn nested_futures_attribute_busy_time_to_the_inner_one() {
    let waker = Waker::from(Arc::new(Noop));
    let mut fut = Box::pin(MeasuredFuture::new(&ASYNC_OUTER, async {
        let a = MeasuredFuture::new(&ASYNC_INNER, Yield { left: 2 }).await;
        let b = MeasuredFuture::new(&ASYNC_INNER, Yield { left: 0 }).await;
        a + b
    }));
    let mut cx = Context::from_waker(&waker);
    let v = loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            break v;
        }
    };
    assert_eq!(v, 14);
    let [outer, inner] =
        <[SiteStats; 2]>::try_from(stats_of([&ASYNC_OUTER, &ASYNC_INNER])).unwrap();
    assert_eq!((outer.calls, outer.polls), (1, 3));
    assert_eq!((inner.calls, inner.polls), (2, 4));
    assert!(
        close(outer.self_ns + inner.busy_ns, outer.busy_ns, 6),
        "{} + {} vs {}",
        outer.self_ns,
        inner.busy_ns,
        outer.busy_ns
    );
}
