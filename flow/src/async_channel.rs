//! async-channel: `bounded(n)` and `unbounded()`. Queue depth from `len()`.

use hotpath_core::InternalArc;
use std::pin::Pin;
use std::task::{Context, Poll};

use async_channel as raw;
use async_channel::{RecvError, SendError, TryRecvError, TrySendError};

use crate::chan::{Inst, Stamped};
use crate::depth::Depth;
use crate::instrument::Shape;
use crate::wait::recv_waiting;

endpoints! {
    /// `async_channel::Sender`, instrumented.
    Sender(raw::Sender<Stamped<T>>);
    /// `async_channel::WeakSender`, instrumented.
    WeakSender(raw::WeakSender<Stamped<T>>);
    /// `async_channel::WeakReceiver`, instrumented.
    WeakReceiver(raw::WeakReceiver<Stamped<T>>);
}

pin_project_lite::pin_project! {
    /// `async_channel::Receiver`, instrumented; a `Stream` of the messages.
    pub struct Receiver<T> {
        #[pin]
        inner: raw::Receiver<Stamped<T>>,
        inst: InternalArc<Inst>,
    }

    impl<T> PinnedDrop for Receiver<T> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            let len = this.inner.len();
            this.inst.receiver_dropped(|| len);
        }
    }
}

instrument! {
    impl<T> for (raw::Sender<Stamped<T>>, raw::Receiver<Stamped<T>>) => (Sender, Receiver),
    |(tx, _), site, _, declared| {
        Shape::checked("async-channel", site, tx.capacity(), declared, Depth::Len)
    }
}

outcomes! {
    SendError(M) => Closed;
    TrySendError<M> { Full => Full, Closed => Closed }
}

/// The queries both endpoints answer about their channel, and whether another endpoint
/// of the same kind is of the same channel.
macro_rules! channel_queries {
    ($ty:ident) => {
        forward! { $ty(inner):
            fn close(&self) -> bool;
            fn is_closed(&self) -> bool;
            fn is_empty(&self) -> bool;
            fn is_full(&self) -> bool;
            fn len(&self) -> usize;
            fn capacity(&self) -> Option<usize>;
            fn receiver_count(&self) -> usize;
            fn sender_count(&self) -> usize;
            fn same_channel(&self, other: &Self) -> bool;
        }
    };
}

impl<T> Sender<T> {
    /// `Sender::try_send`: `Full` is neither a send nor an error.
    pub fn try_send(&self, msg: T) -> Result<(), TrySendError<T>> {
        self.inst
            .try_send_with(msg, |m| self.inner.try_send(m), || self.inner.len())
            .into_result(TrySendError::Full, TrySendError::Closed)
    }

    /// `Sender::send`: waits for room (measured as a blocked send).
    pub async fn send(&self, msg: T) -> Result<(), SendError<T>> {
        self.inst
            .send_async_with(
                msg,
                |m| self.inner.send(m),
                || self.inner.is_full(),
                || self.inner.len(),
            )
            .await
            .into_result(SendError, SendError)
    }

    blocking_sends!(len: Self::len; send_blocking);

    /// `Sender::force_send`: on a full channel replaces the oldest message (returned).
    pub fn force_send(&self, msg: T) -> Result<Option<T>, SendError<T>> {
        let op = self.inst.begin_send();
        match self.inner.force_send(Inst::stamped(&op, msg)) {
            Ok(old) => {
                self.inst.sent(&op, || self.inner.len());
                Ok(old.map(Stamped::into_inner))
            }
            Err(SendError(m)) => {
                self.inst.send_failed(&op);
                Err(SendError(m.into_inner()))
            }
        }
    }

    forward! { Sender(inner):
        /// waits until the channel closes
        async fn closed(&self);
    }

    channel_queries!(Sender);
}

weak!(WeakSender => Sender);

impl<T> Receiver<T> {
    /// `Receiver::try_recv`.
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        self.inner.try_recv().map(|m| self.inst.received(m))
    }

    /// `Receiver::recv`: waits for a message (charged to the function).
    pub async fn recv(&self) -> Result<T, RecvError> {
        let r = recv_waiting(self.inner.recv()).await;
        r.map(|m| self.inst.received(m))
    }

    /// `Receiver::recv_blocking` (outside an async context).
    pub fn recv_blocking(&self) -> Result<T, RecvError> {
        match self.inner.try_recv() {
            Ok(m) => Ok(self.inst.received(m)),
            // Closed too: async-channel's `recv_blocking` answers a closed channel at
            // once, so the wait it is charged is a clock read apart.
            Err(_) => self.inst.recv_empty(|| self.inner.recv_blocking()),
        }
    }

    channel_queries!(Receiver);

    /// `Receiver::downgrade`.
    pub fn downgrade(&self) -> WeakReceiver<T> {
        WeakReceiver {
            inner: self.inner.downgrade(),
            inst: self.inst.clone(),
        }
    }
}

impl<T> futures_core::Stream for Receiver<T> {
    type Item = T;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let this = self.project();
        let inst = &**this.inst;
        this.inner
            .poll_next(cx)
            .map(|o| o.map(|m| inst.received(m)))
    }
}

impl<T> futures_core::stream::FusedStream for Receiver<T> {
    fn is_terminated(&self) -> bool {
        self.inner.is_terminated()
    }
}

impl<T> WeakReceiver<T> {
    /// `WeakReceiver::upgrade`: the receiver counts as one more.
    pub fn upgrade(&self) -> Option<Receiver<T>> {
        self.inner.upgrade().map(|inner| {
            self.inst.add_receiver();
            Receiver {
                inner,
                inst: self.inst.clone(),
            }
        })
    }
}

clone_receivers!(Receiver);
debug_endpoints!(Sender, Receiver, WeakSender, WeakReceiver);
clone_endpoints!(Sender, WeakSender, WeakReceiver);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chan::TrySend;

    #[test]
    fn async_channel_s_results_say_what_a_send_did() {
        assert_eq!(TrySend::from(Ok::<(), SendError<u8>>(())), TrySend::Sent);
        assert_eq!(
            TrySend::from(Err::<(), _>(SendError(1u8))),
            TrySend::Closed(1)
        );
        let full = Err::<(), _>(TrySendError::Full(2u8));
        assert_eq!(TrySend::from(full), TrySend::Full(2));
        let gone = Err::<(), _>(TrySendError::Closed(3u8));
        assert_eq!(TrySend::from(gone), TrySend::Closed(3));
    }
}
