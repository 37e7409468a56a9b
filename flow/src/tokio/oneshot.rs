//! `tokio::sync::oneshot`.

use hotpath_core::InternalArc;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::sync::oneshot as raw;
use tokio::sync::oneshot::error::{RecvError, TryRecvError};

use crate::chan::{Inst, Stamped};
use crate::instrument::Shape;
use crate::wait::poll_waiting;

endpoints! {
    /// `tokio::sync::oneshot::Sender`, instrumented.
    Sender(raw::Sender<Stamped<T>>);
}

/// `tokio::sync::oneshot::Receiver`, instrumented: a future of the value.
pub struct Receiver<T> {
    // `None` only after `blocking_recv` took it.
    inner: Option<raw::Receiver<Stamped<T>>>,
    inst: InternalArc<Inst>,
    // Clock reading when a poll first returned `Pending` (0: not waiting, or untimed).
    waiting: Option<u64>,
}

instrument! {
    impl<T> for (raw::Sender<Stamped<T>>, raw::Receiver<Stamped<T>>) =>
        (Sender, Receiver { waiting: None }),
    |_, site, _, declared| Shape::oneshot("tokio", site, declared)
}

impl<T> Sender<T> {
    /// `Sender::send`: gives the value back when the receiver is gone.
    pub fn send(self, t: T) -> Result<(), T> {
        let inner = self.inner;
        self.inst.send_oneshot(t, |m| inner.send(m))
    }

    forward! { Sender(inner):
        async fn closed(&mut self);
        fn is_closed(&self) -> bool;
        fn poll_closed(&mut self, cx: &mut Context<'_>) -> Poll<()>;
    }
}

impl<T> Receiver<T> {
    fn rx(&mut self) -> &mut raw::Receiver<Stamped<T>> {
        self.inner
            .as_mut()
            .expect("the receiver is only taken by blocking_recv, which consumes it")
    }

    forward! { Receiver(rx()):
        fn close(&mut self);
    }

    /// `Receiver::try_recv`.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let r = self.rx().try_recv();
        r.map(|m| self.inst.received(m))
    }

    /// `Receiver::blocking_recv` (outside an async context).
    pub fn blocking_recv(mut self) -> Result<T, RecvError> {
        let inst = self.inst.clone();
        let mut rx = self.inner.take().expect("not taken yet");
        let r = match rx.try_recv() {
            Ok(m) => Ok(inst.received(m)),
            // Closed: the raw call gives the same error.
            Err(TryRecvError::Closed) => rx.blocking_recv().map(|m| inst.received(m)),
            Err(TryRecvError::Empty) => inst.recv_empty(|| rx.blocking_recv()),
        };
        // The raw receiver is dropped now; the instance counts what it left unread.
        drop(self);
        r
    }

    /// `Receiver::is_terminated`.
    pub fn is_terminated(&self) -> bool {
        self.inner.as_ref().is_none_or(|r| r.is_terminated())
    }

    /// `Receiver::is_empty`.
    pub fn is_empty(&self) -> bool {
        self.inner.as_ref().is_none_or(|r| r.is_empty())
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, RecvError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let p = Pin::new(this.rx()).poll(cx);
        let inst = &*this.inst;
        poll_waiting(&mut this.waiting, p).map(|r| r.map(|m| inst.received(m)))
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.inst.receiver_dropped(|| 0);
    }
}

debug_endpoints!(Sender, Receiver);
