//! Waits: a send on a full channel, a receive on an empty one. Whether they are timed,
//! when one starts, and how a receive's wait is charged to the innermost measured
//! function; the futures that measure the waits of async receives (an async send's,
//! which records into the instance, is `Inst::send_waiting`, in `chan`).

use std::task::Poll;

use hotpath_core::op::{now, Here, Sampler, Wait};

/// A clock reading for a wait's start: never 0 (0 means "not timed").
#[inline(always)]
fn stamp() -> u64 {
    now().max(1)
}

/// Whether waits (a send on a full channel, a receive on an empty one) are timed:
/// always, unless the channels' rate is 0 (count only). A wait is the slow path, and
/// what the channel costs the program.
#[inline(always)]
pub(crate) fn waits_timed() -> bool {
    Sampler::Channels.fixed() != Some(false)
}

/// A send or a receive is about to wait: the clock now if waits are timed, else 0.
#[inline]
pub(crate) fn wait_start() -> u64 {
    if waits_timed() {
        stamp()
    } else {
        0
    }
}

/// A receive waited from `t0` (0: not timed) until now: charged to the innermost
/// measured function on this thread.
#[inline]
pub(crate) fn recv_waited(t0: u64) {
    if t0 != 0 {
        if let Some(h) = Here::get() {
            h.charge(Wait::ChannelRecv, now().saturating_sub(t0));
        }
    }
}

/// Awaits `fut`, a receive: when a poll returns `Pending`, the time until it completes
/// is charged to the innermost measured function on the thread that completes it.
pub(crate) async fn recv_waiting<F: std::future::Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let mut t0: Option<u64> = None;
    let r = std::future::poll_fn(|cx| {
        let p = fut.as_mut().poll(cx);
        if p.is_pending() && t0.is_none() {
            t0 = Some(wait_start());
        }
        p
    })
    .await;
    if let Some(t0) = t0 {
        recv_waited(t0);
    }
    r
}

/// A poll of a receive future polled by hand (a oneshot receiver, flume's `RecvFut`):
/// `waiting` holds the clock at its first `Pending` until it is ready, when the wait is
/// charged to the innermost measured function.
#[inline]
pub(crate) fn poll_waiting<R>(waiting: &mut Option<u64>, p: Poll<R>) -> Poll<R> {
    match &p {
        Poll::Pending => {
            if waiting.is_none() {
                *waiting = Some(wait_start());
            }
        }
        Poll::Ready(_) => {
            if let Some(t0) = waiting.take() {
                recv_waited(t0);
            }
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hand_polled_wait_starts_at_the_first_pending_and_ends_when_ready() {
        // The channels' rate is the default here (not 0): waits are timed.
        let mut waiting = None;
        assert_eq!(
            poll_waiting(&mut waiting, Poll::<u8>::Pending),
            Poll::Pending
        );
        let t0 = waiting.expect("the first Pending starts the wait");
        assert!(t0 >= 1, "a wait's start is never 0 (0: not timed)");
        assert_eq!(
            poll_waiting(&mut waiting, Poll::<u8>::Pending),
            Poll::Pending
        );
        assert_eq!(waiting, Some(t0), "later Pendings keep the first start");
        assert_eq!(poll_waiting(&mut waiting, Poll::Ready(3u8)), Poll::Ready(3));
        assert_eq!(waiting, None);
    }

    #[test]
    fn a_ready_first_poll_never_waits() {
        let mut waiting = None;
        assert_eq!(poll_waiting(&mut waiting, Poll::Ready(1u8)), Poll::Ready(1));
        assert_eq!(waiting, None);
    }
}
