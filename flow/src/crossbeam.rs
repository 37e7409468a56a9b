//! crossbeam-channel: `bounded(n)` and `unbounded()`. Queue depth from `len()`.

use std::iter::FusedIterator;

use crossbeam_channel as raw;
use crossbeam_channel::{
    RecvError, RecvTimeoutError, SendError, SendTimeoutError, TryRecvError, TrySendError,
};

use crate::chan::Stamped;
use crate::depth::Depth;
use crate::instrument::Shape;

endpoints! {
    /// `crossbeam_channel::Sender`, instrumented.
    Sender(raw::Sender<Stamped<T>>);
    /// `crossbeam_channel::Receiver`, instrumented.
    Receiver(raw::Receiver<Stamped<T>>);
}

instrument! {
    impl<T> for (raw::Sender<Stamped<T>>, raw::Receiver<Stamped<T>>) => (Sender, Receiver),
    |(tx, _), site, _, declared| {
        Shape::checked("crossbeam", site, tx.capacity(), declared, Depth::Len)
    }
}

outcomes! {
    SendError(M) => Closed;
    TrySendError<M> { Full => Full, Disconnected => Closed }
    // A timeout is a blocked send that did not send.
    SendTimeoutError<M> { Timeout => Full, Disconnected => Closed }
    recv TryRecvError { Empty => Empty, Disconnected => Closed }
}

/// The queries both endpoints answer about their channel, and whether another endpoint
/// of the same kind is of the same channel.
macro_rules! channel_queries {
    ($ty:ident) => {
        forward! { $ty(inner):
            fn is_empty(&self) -> bool;
            fn is_full(&self) -> bool;
            fn len(&self) -> usize;
            fn capacity(&self) -> Option<usize>;
            fn same_channel(&self, other: &Self) -> bool;
        }
    };
}

impl<T> Sender<T> {
    blocking_sends!(len: Self::len; send, try_send, send_timeout, send_deadline);

    channel_queries!(Sender);
}

impl<T> Receiver<T> {
    fn rx(&self) -> &raw::Receiver<Stamped<T>> {
        &self.inner
    }

    blocking_recvs!(rx: rx, closed: RecvError; recv, recv_timeout, recv_deadline);

    channel_queries!(Receiver);

    /// The crossbeam receiver inside, for `crossbeam_channel::select!` and `Select`,
    /// which take nothing else: what a receive through it gives is the message with its
    /// send stamp, to be handed to [`Receiver::selected`], which counts it. Anything else
    /// done through it is not counted. Through the facade:
    /// `hotpath::wrap::crossbeam_channel::select_handle`, the receiver itself without
    /// the `hotpath` feature.
    pub fn select_handle(&self) -> &raw::Receiver<Stamped<T>> {
        &self.inner
    }

    /// A receive made through [`Receiver::select_handle`]: counted as `recv` counts
    /// one (received, latency from its send), the message given back. Its wait (in the
    /// select) is not charged to the function as channel waiting.
    pub fn selected(&self, msg: Result<Stamped<T>, RecvError>) -> Result<T, RecvError> {
        msg.map(|m| self.inst.received(m))
    }
}

receive_iterators!(Receiver);

// As crossbeam's: the blocking iterators end for good once the senders are gone.
impl<T> FusedIterator for Iter<'_, T> {}
impl<T> FusedIterator for IntoIter<T> {}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.inst.receiver_dropped(|| self.inner.len());
    }
}

clone_endpoints!(Sender);
clone_receivers!(Receiver);
debug_endpoints!(Sender, Receiver);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chan::{TryRecv, TrySend};

    #[test]
    fn crossbeam_s_results_say_what_a_send_or_a_receive_did() {
        assert_eq!(TrySend::from(Ok::<(), SendError<u8>>(())), TrySend::Sent);
        assert_eq!(
            TrySend::from(Err::<(), _>(SendError(1u8))),
            TrySend::Closed(1)
        );
        let full = Err::<(), _>(TrySendError::Full(2u8));
        assert_eq!(TrySend::from(full), TrySend::Full(2));
        let gone = Err::<(), _>(TrySendError::Disconnected(3u8));
        assert_eq!(TrySend::from(gone), TrySend::Closed(3));
        // A timeout is a blocked send that did not send: `Full`, not an error.
        let timeout = Err::<(), _>(SendTimeoutError::Timeout(4u8));
        assert_eq!(TrySend::from(timeout), TrySend::Full(4));
        let gone = Err::<(), _>(SendTimeoutError::Disconnected(5u8));
        assert_eq!(TrySend::from(gone), TrySend::Closed(5));
        assert_eq!(TryRecv::from(Ok::<u8, TryRecvError>(6)), TryRecv::Got(6));
        assert_eq!(
            TryRecv::<u8>::from(Err(TryRecvError::Empty)),
            TryRecv::Empty
        );
        let closed = TryRecv::<u8>::from(Err(TryRecvError::Disconnected));
        assert_eq!(closed, TryRecv::Closed);
    }
}
