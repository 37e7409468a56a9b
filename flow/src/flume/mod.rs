//! flume: `bounded(n)` and `unbounded()`, with its async futures, stream, sink and
//! drain. Queue depth from `len()` (which takes flume's lock).
//!
//! One method of flume is not offered: `SendSink::sender`, which lends the `Sender` a
//! sink was made from. A sink made by `into_sink` owns flume's sender inside flume's
//! sink, so there is no instrumented `Sender` to lend without a second sender, which
//! would change `sender_count` and when the channel disconnects.

use hotpath_core::InternalArc;

use flume::{RecvError, RecvTimeoutError, SendError, SendTimeoutError, TryRecvError, TrySendError};

use crate::chan::{Inst, Stamped};
use crate::depth::Depth;
use crate::instrument::Shape;

/// The queries every flume handle answers about its channel (the endpoints also count
/// them), forwarded to flume's handle `$inner`.
macro_rules! channel_queries {
    ($ty:ident($($inner:tt)+) $(, $count:ident)*) => {
        forward! { $ty($($inner)+):
            fn is_disconnected(&self) -> bool;
            fn is_empty(&self) -> bool;
            fn is_full(&self) -> bool;
            fn len(&self) -> usize;
            fn capacity(&self) -> Option<usize>;
            $(fn $count(&self) -> usize;)*
        }
    };
}

mod r#async;

pub use r#async::{RecvFut, RecvStream, SendFut, SendSink};

endpoints! {
    /// `flume::Sender`, instrumented.
    Sender(flume::Sender<Stamped<T>>);
    /// `flume::WeakSender`, instrumented.
    WeakSender(flume::WeakSender<Stamped<T>>);
}

/// `flume::Receiver`, instrumented.
pub struct Receiver<T> {
    // `None` only once an `into_*` method took it.
    inner: Option<flume::Receiver<Stamped<T>>>,
    inst: InternalArc<Inst>,
}

instrument! {
    impl<T> for (flume::Sender<Stamped<T>>, flume::Receiver<Stamped<T>>) => (Sender, Receiver),
    |(tx, _), site, _, declared| {
        Shape::checked("flume", site, tx.capacity(), declared, Depth::Len)
    }
}

outcomes! {
    SendError(M) => Closed;
    TrySendError<M> { Full => Full, Disconnected => Closed }
    // A timeout is a blocked send that did not send.
    SendTimeoutError<M> { Timeout => Full, Disconnected => Closed }
    recv TryRecvError { Empty => Empty, Disconnected => Closed }
}

impl<T> Sender<T> {
    blocking_sends!(len: Self::len; send, try_send, send_timeout, send_deadline);

    /// `Sender::send_async`: a future of the send.
    pub fn send_async(&self, item: T) -> SendFut<'_, T> {
        SendFut::new(self.inst.clone(), |m| self.inner.send_async(m), item)
    }

    /// `Sender::into_send_async`.
    pub fn into_send_async<'a>(self, item: T) -> SendFut<'a, T> {
        SendFut::new(self.inst, |m| self.inner.into_send_async(m), item)
    }

    /// `Sender::sink`.
    pub fn sink(&self) -> SendSink<'_, T> {
        SendSink::new(self.inner.sink(), self.inst.clone())
    }

    /// `Sender::into_sink`.
    pub fn into_sink<'a>(self) -> SendSink<'a, T> {
        SendSink::new(self.inner.into_sink(), self.inst)
    }

    channel_queries!(Sender(inner), sender_count, receiver_count);

    forward! { Sender(inner):
        fn same_channel(&self, other: &Self) -> bool;
    }
}

weak!(WeakSender => Sender);

impl<T> Receiver<T> {
    fn rx(&self) -> &flume::Receiver<Stamped<T>> {
        self.inner
            .as_ref()
            .expect("the receiver is only taken by the methods that consume it")
    }

    /// Gives up the raw receiver to an owning adapter, which then counts what it leaves.
    fn take(mut self) -> (flume::Receiver<Stamped<T>>, InternalArc<Inst>) {
        let rx = self.inner.take().expect("not taken yet");
        (rx, self.inst.clone())
    }

    blocking_recvs!(rx: rx, closed: RecvError::Disconnected; recv, recv_timeout, recv_deadline);

    /// `Receiver::recv_async`: a future of the next message.
    pub fn recv_async(&self) -> RecvFut<'_, T> {
        RecvFut::new(self.rx().recv_async(), self.inst.clone(), false)
    }

    /// `Receiver::into_recv_async`.
    pub fn into_recv_async<'a>(self) -> RecvFut<'a, T> {
        let (rx, inst) = self.take();
        RecvFut::new(rx.into_recv_async(), inst, true)
    }

    /// `Receiver::stream`: the messages as a `Stream`.
    pub fn stream(&self) -> RecvStream<'_, T> {
        RecvStream::new(self.rx().stream(), self.inst.clone(), false)
    }

    /// `Receiver::into_stream`.
    pub fn into_stream<'a>(self) -> RecvStream<'a, T> {
        let (rx, inst) = self.take();
        RecvStream::new(rx.into_stream(), inst, true)
    }

    /// `Receiver::drain`: the messages there now.
    pub fn drain(&self) -> Drain<'_, T> {
        Drain {
            inner: self.rx().drain(),
            inst: &self.inst,
        }
    }

    channel_queries!(Receiver(rx()), sender_count, receiver_count);

    forward! { Receiver(rx()):
        fn same_channel(&self, other: &Self) -> bool;
    }
}

receive_iterators!(Receiver);

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        if let Some(rx) = &self.inner {
            self.inst.receiver_dropped(|| rx.len());
        }
    }
}

/// `flume::Drain`, instrumented.
pub struct Drain<'a, T> {
    inner: flume::Drain<'a, Stamped<T>>,
    inst: &'a Inst,
}

impl<T> Iterator for Drain<'_, T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.inner.next().map(|m| self.inst.received(m))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<T> ExactSizeIterator for Drain<'_, T> {}

clone_endpoints!(Sender, WeakSender);
clone_receivers!(Receiver);
debug_opaque!(Drain<'_>);
debug_endpoints!(Sender, WeakSender, Receiver);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chan::{TryRecv, TrySend};

    #[test]
    fn flume_s_results_say_what_a_send_or_a_receive_did() {
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
