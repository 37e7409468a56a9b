//! `futures_channel::oneshot`.

use hotpath_core::InternalArc;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_channel::oneshot as raw;
use futures_channel::oneshot::Canceled;

use crate::chan::{Inst, Stamped};
use crate::instrument::Shape;
use crate::wait::poll_waiting;

endpoints! {
    /// `futures_channel::oneshot::Sender`, instrumented.
    Sender(raw::Sender<Stamped<T>>);
}

/// `futures_channel::oneshot::Receiver`, instrumented: a future of the value.
pub struct Receiver<T> {
    inner: raw::Receiver<Stamped<T>>,
    inst: InternalArc<Inst>,
    waiting: Option<u64>,
}

instrument! {
    impl<T> for (raw::Sender<Stamped<T>>, raw::Receiver<Stamped<T>>) =>
        (Sender, Receiver { waiting: None }),
    |_, site, _, declared| Shape::oneshot("futures", site, declared)
}

impl<T> Sender<T> {
    /// `Sender::send`: gives the value back when the receiver is gone.
    pub fn send(self, t: T) -> Result<(), T> {
        let inner = self.inner;
        self.inst.send_oneshot(t, |m| inner.send(m))
    }

    forward! { Sender(inner):
        fn poll_canceled(&mut self, cx: &mut Context<'_>) -> Poll<()>;
        /// completes when the receiver is gone
        fn cancellation(&mut self) -> impl Future<Output = ()> + '_;
        fn is_canceled(&self) -> bool;
    }

    /// `Sender::is_connected_to`.
    pub fn is_connected_to(&self, receiver: &Receiver<T>) -> bool {
        self.inner.is_connected_to(&receiver.inner)
    }
}

impl<T> Receiver<T> {
    forward! { Receiver(inner):
        fn close(&mut self);
    }

    /// `Receiver::try_recv`.
    pub fn try_recv(&mut self) -> Result<Option<T>, Canceled> {
        let inst = &*self.inst;
        self.inner.try_recv().map(|o| o.map(|m| inst.received(m)))
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, Canceled>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let inst = &*this.inst;
        poll_waiting(&mut this.waiting, Pin::new(&mut this.inner).poll(cx))
            .map(|r| r.map(|m| inst.received(m)))
    }
}

impl<T> futures_core::FusedFuture for Receiver<T> {
    fn is_terminated(&self) -> bool {
        self.inner.is_terminated()
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.inst.receiver_dropped(|| 0);
    }
}

debug_endpoints!(Sender, Receiver);
