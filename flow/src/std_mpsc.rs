//! `std::sync::mpsc`: `channel()` and `sync_channel(n)`.
//!
//! The endpoints behave as std's: same errors, same blocking, same capacity. Queue
//! depth comes from the instance's counters (std has no `len()`).

use std::sync::mpsc::{self, RecvError, RecvTimeoutError, SendError, TryRecvError, TrySendError};

use crate::chan::Stamped;
use crate::depth::Depth;
use crate::instrument::{ctor_capacity, Shape};

endpoints! {
    /// `std::sync::mpsc::Sender`, instrumented.
    Sender(mpsc::Sender<Stamped<T>>);
    /// `std::sync::mpsc::SyncSender`, instrumented.
    SyncSender(mpsc::SyncSender<Stamped<T>>);
    /// `std::sync::mpsc::Receiver`, instrumented.
    Receiver(mpsc::Receiver<Stamped<T>>);
}

instrument! {
    impl<T> for (mpsc::Sender<Stamped<T>>, mpsc::Receiver<Stamped<T>>) => (Sender, Receiver),
    |_, site, _, declared| Shape::checked("std", site, None, declared, Depth::Counters)
}

instrument! {
    impl<T> for (mpsc::SyncSender<Stamped<T>>, mpsc::Receiver<Stamped<T>>) => (SyncSender, Receiver),
    |_, site, ctor, declared| {
        // std cannot tell a channel's capacity: it comes from the constructor's argument.
        let cap = ctor_capacity(site, ctor, declared);
        let mut shape = Shape::sized("std", cap, Depth::Counters);
        if cap.is_none() {
            // Bounded all the same: the macro could not read the argument.
            shape.kind = "bounded";
        }
        shape
    }
}

outcomes! {
    SendError(M) => Closed;
    TrySendError<M> { Full => Full, Disconnected => Closed }
    recv TryRecvError { Empty => Empty, Disconnected => Closed }
}

impl<T> Sender<T> {
    /// `Sender::send`: never blocks; fails when the receiver is gone.
    pub fn send(&self, t: T) -> Result<(), SendError<T>> {
        self.inst
            .try_send_with(t, |m| self.inner.send(m), || 0)
            .into_result(SendError, SendError)
    }
}

impl<T> SyncSender<T> {
    blocking_sends!(len: |_| 0; send, try_send);
}

impl<T> Receiver<T> {
    fn rx(&self) -> &mpsc::Receiver<Stamped<T>> {
        &self.inner
    }

    blocking_recvs!(rx: rx, closed: RecvError; recv, recv_timeout);
}

receive_iterators!(Receiver);

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.inst.receiver_dropped(|| 0);
    }
}

clone_endpoints!(Sender, SyncSender);
debug_endpoints!(Sender, SyncSender, Receiver);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chan::{TryRecv, TrySend};

    #[test]
    fn std_s_results_say_what_a_send_or_a_receive_did() {
        assert_eq!(TrySend::from(Ok::<(), SendError<u8>>(())), TrySend::Sent);
        assert_eq!(
            TrySend::from(Err::<(), _>(SendError(1u8))),
            TrySend::Closed(1)
        );
        let full = Err::<(), _>(TrySendError::Full(2u8));
        assert_eq!(TrySend::from(full), TrySend::Full(2));
        let gone = Err::<(), _>(TrySendError::Disconnected(3u8));
        assert_eq!(TrySend::from(gone), TrySend::Closed(3));
        assert_eq!(TryRecv::from(Ok::<u8, TryRecvError>(4)), TryRecv::Got(4));
        assert_eq!(
            TryRecv::<u8>::from(Err(TryRecvError::Empty)),
            TryRecv::Empty
        );
        let closed = TryRecv::<u8>::from(Err(TryRecvError::Disconnected));
        assert_eq!(closed, TryRecv::Closed);
    }
}
