//! `futures_channel::oneshot`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_channel::oneshot as raw;
use futures_channel::oneshot::Canceled;

use crate::chan::{Inst, Stamped};
use crate::depth::Depth;
use crate::instrument::{check_capacity, IntoInstrumented, Shape};
use crate::wait::{recv_waited, wait_start};
use crate::FlowSite;

/// `futures_channel::oneshot::Sender`, instrumented.
pub struct Sender<T> {
    inner: raw::Sender<Stamped<T>>,
    inst: Arc<Inst>,
}

/// `futures_channel::oneshot::Receiver`, instrumented: a future of the value.
pub struct Receiver<T> {
    inner: raw::Receiver<Stamped<T>>,
    inst: Arc<Inst>,
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
        let mut shape = Shape::sized("futures", Some(1), Depth::Counters);
        shape.kind = "oneshot";
        let inst = Inst::new::<T>(site, shape);
        (
            Sender {
                inner: self.0,
                inst: inst.clone(),
            },
            Receiver {
                inner: self.1,
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

    /// `Sender::poll_canceled`.
    pub fn poll_canceled(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        self.inner.poll_canceled(cx)
    }

    /// `Sender::cancellation`: completes when the receiver is gone.
    pub fn cancellation(&mut self) -> impl Future<Output = ()> + '_ {
        self.inner.cancellation()
    }

    /// `Sender::is_canceled`.
    pub fn is_canceled(&self) -> bool {
        self.inner.is_canceled()
    }

    /// `Sender::is_connected_to`.
    pub fn is_connected_to(&self, receiver: &Receiver<T>) -> bool {
        self.inner.is_connected_to(&receiver.inner)
    }
}

impl<T> Receiver<T> {
    /// `Receiver::close`.
    pub fn close(&mut self) {
        self.inner.close()
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
        match Pin::new(&mut this.inner).poll(cx) {
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
