//! `tokio::sync::oneshot`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::sync::oneshot as raw;
use tokio::sync::oneshot::error::{RecvError, TryRecvError};

use crate::chan::{Inst, Stamped};
use crate::depth::Depth;
use crate::instrument::{check_capacity, IntoInstrumented, Shape};
use crate::wait::{recv_waited, wait_start};
use crate::FlowSite;

/// `tokio::sync::oneshot::Sender`, instrumented.
pub struct Sender<T> {
    inner: raw::Sender<Stamped<T>>,
    inst: Arc<Inst>,
}

/// `tokio::sync::oneshot::Receiver`, instrumented: a future of the value.
pub struct Receiver<T> {
    // `None` only after `blocking_recv` took it.
    inner: Option<raw::Receiver<Stamped<T>>>,
    inst: Arc<Inst>,
    // Clock reading when a poll first returned `Pending` (0: not waiting, or untimed).
    waiting: Option<u64>,
}

impl<T> IntoInstrumented for (raw::Sender<Stamped<T>>, raw::Receiver<Stamped<T>>) {
    type Wrapped = (Sender<T>, Receiver<T>);

    fn instrument(
        self,
        site: &'static FlowSite,
        _: Option<usize>,
        declared: Option<usize>,
    ) -> Self::Wrapped {
        check_capacity(site, Some(1), declared);
        let mut shape = Shape::sized("tokio", Some(1), Depth::Counters);
        shape.kind = "oneshot";
        let inst = Inst::new::<T>(site, shape);
        (
            Sender {
                inner: self.0,
                inst: inst.clone(),
            },
            Receiver {
                inner: Some(self.1),
                inst,
                waiting: None,
            },
        )
    }
}

impl<T> Sender<T> {
    /// `Sender::send`: gives the value back when the receiver is gone.
    pub fn send(self, t: T) -> Result<(), T> {
        let inst = self.inst;
        let op = inst.begin_send();
        match self.inner.send(Inst::stamped(&op, t)) {
            Ok(()) => {
                inst.sent(&op, || 0);
                Ok(())
            }
            Err(m) => {
                inst.send_failed(&op);
                Err(m.into_inner())
            }
        }
    }

    /// `Sender::closed`.
    pub async fn closed(&mut self) {
        self.inner.closed().await
    }

    /// `Sender::is_closed`.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// `Sender::poll_closed`.
    pub fn poll_closed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        self.inner.poll_closed(cx)
    }
}

impl<T> Receiver<T> {
    fn rx(&mut self) -> &mut raw::Receiver<Stamped<T>> {
        self.inner
            .as_mut()
            .expect("the receiver is only taken by blocking_recv, which consumes it")
    }

    /// `Receiver::close`.
    pub fn close(&mut self) {
        self.rx().close()
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
            Err(TryRecvError::Empty) => {
                let t0 = wait_start();
                let r = rx.blocking_recv();
                recv_waited(t0);
                r.map(|m| inst.received(m))
            }
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
        match p {
            Poll::Pending => {
                if this.waiting.is_none() {
                    this.waiting = Some(wait_start());
                }
                Poll::Pending
            }
            Poll::Ready(r) => {
                if let Some(t0) = this.waiting.take() {
                    recv_waited(t0);
                }
                Poll::Ready(r.map(|m| this.inst.received(m)))
            }
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.inst.receiver_dropped(|| 0);
    }
}

debug_endpoints!(Sender, Receiver);
