//! `watch::Receiver::wait_for` returns tokio's own `Ref`: the value the predicate
//! accepted, under the read lock it was tested under, with tokio's `has_changed`. Both
//! builds (the `hotpath` feature off and on) must pass, the same way.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;

use futures_util::FutureExt;

/// `wait_for` calls the race test makes.
const CALLS: u32 = 200_000;

/// A sender replacing the value as fast as it can on its own thread, and a receiver on a
/// multi-thread runtime waiting each time for an even value: every value `wait_for`
/// returns is one its predicate accepted. A wrapper that let go of tokio's borrow and
/// borrowed again returned the odd value sent in between (48 to 781 in 200,000).
#[test]
fn wait_for_returns_the_value_its_predicate_accepted() {
    let (tx, mut rx) = hotpath::channel!(tokio::sync::watch::channel(0u64));
    let stop = Arc::new(AtomicBool::new(false));
    let sender = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut i = 0u64;
            while !stop.load(Relaxed) {
                i += 1;
                tx.send_replace(i);
            }
            i
        })
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let (odd, last) = rt.block_on(async {
        let mut odd = 0u32;
        let mut last = 0u64;
        for _ in 0..CALLS {
            let v = *rx.wait_for(|v| v % 2 == 0).await.unwrap();
            if v % 2 == 1 {
                odd += 1;
            }
            last = v;
        }
        (odd, last)
    });
    stop.store(true, Relaxed);
    let sent = sender.join().unwrap();
    assert_eq!(odd, 0, "odd values out of {CALLS} wait_for calls");
    assert!(last <= sent, "{last} > {sent}");
}

/// `Ref::has_changed` of what `wait_for` returns is tokio's: true for a value sent since
/// the receiver last looked and accepted at once, false for one it had seen (and, as
/// tokio has it, for one it waited for).
#[test]
fn wait_for_s_ref_says_whether_the_value_changed_as_tokio_s() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let (tx, mut rx) = hotpath::channel!(tokio::sync::watch::channel(0u64));
        tx.send_replace(2);
        let r = rx.wait_for(|v| v % 2 == 0).await.unwrap();
        assert_eq!((*r, r.has_changed()), (2, true));
        drop(r);
        // Seen now: the same value again is no change.
        let r = rx.wait_for(|v| v % 2 == 0).await.unwrap();
        assert_eq!((*r, r.has_changed()), (2, false));
        drop(r);
        // A value the predicate skips, then one it takes.
        tx.send_replace(3);
        {
            let skipped = rx.wait_for(|v| v % 2 == 0);
            tokio::pin!(skipped);
            assert!(skipped.as_mut().now_or_never().is_none());
            tx.send_replace(4);
            let r = skipped.await.unwrap();
            // tokio marks the version seen when the wait wakes for it, before the
            // predicate looks: the value that ended a wait is no change.
            assert_eq!((*r, r.has_changed()), (4, false));
        }
        // The sender gone: tokio's error, after one last look at the value.
        drop(tx);
        let r = rx.wait_for(|v| *v == 4).await.unwrap();
        assert_eq!((*r, r.has_changed()), (4, false));
        drop(r);
        assert!(rx.wait_for(|v| *v == 5).await.is_err());
    });
}
