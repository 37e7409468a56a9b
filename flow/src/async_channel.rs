//! async-channel: `bounded(n)` and `unbounded()`. Queue depth from `len()`.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use async_channel as raw;
use async_channel::{RecvError, SendError, TryRecvError, TrySendError};

use crate::chan::{Inst, SendOp, Stamped};
use crate::depth::Depth;
use crate::instrument::{check_capacity, IntoInstrumented, Shape};
use crate::wait::{recv_waited, recv_waiting, send_waiting, wait_start};
use crate::FlowSite;

/// `async_channel::Sender`, instrumented.
pub struct Sender<T> {
    inner: raw::Sender<Stamped<T>>,
    inst: Arc<Inst>,
}

pin_project_lite::pin_project! {
    /// `async_channel::Receiver`, instrumented; a `Stream` of the messages.
    pub struct Receiver<T> {
        #[pin]
        inner: raw::Receiver<Stamped<T>>,
        inst: Arc<Inst>,
    }

    impl<T> PinnedDrop for Receiver<T> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            let len = this.inner.len();
            this.inst.receiver_dropped(|| len);
        }
    }
}

/// `async_channel::WeakSender`, instrumented.
pub struct WeakSender<T> {
    inner: raw::WeakSender<Stamped<T>>,
    inst: Arc<Inst>,
}

/// `async_channel::WeakReceiver`, instrumented.
pub struct WeakReceiver<T> {
    inner: raw::WeakReceiver<Stamped<T>>,
    inst: Arc<Inst>,
}

impl<T> IntoInstrumented for (raw::Sender<Stamped<T>>, raw::Receiver<Stamped<T>>) {
    type Wrapped = (Sender<T>, Receiver<T>);

    fn instrument(
        self,
        site: &'static FlowSite,
        _: Option<usize>,
        declared: Option<usize>,
    ) -> Self::Wrapped {
        let cap = self.0.capacity();
        check_capacity(site, cap, declared);
        let inst = Inst::new::<T>(site, Shape::sized("async-channel", cap, Depth::Len));
        (
            Sender {
                inner: self.0,
                inst: inst.clone(),
            },
            Receiver {
                inner: self.1,
                inst,
            },
        )
    }
}

impl<T> Sender<T> {
    fn done<E>(&self, op: &SendOp, r: Result<(), E>) -> Result<(), E> {
        match &r {
            Ok(()) => self.inst.sent(op, || self.inner.len()),
            Err(_) => self.inst.send_failed(op),
        }
        r
    }

    /// `Sender::try_send`: `Full` is neither a send nor an error.
    pub fn try_send(&self, msg: T) -> Result<(), TrySendError<T>> {
        let op = self.inst.begin_send();
        match self.inner.try_send(Inst::stamped(&op, msg)) {
            Ok(()) => self.done(&op, Ok(())),
            Err(TrySendError::Full(m)) => Err(TrySendError::Full(m.into_inner())),
            Err(TrySendError::Closed(m)) => {
                self.inst.send_failed(&op);
                Err(TrySendError::Closed(m.into_inner()))
            }
        }
    }

    /// `Sender::send`: waits for room (measured as a blocked send).
    pub async fn send(&self, msg: T) -> Result<(), SendError<T>> {
        let mut op = self.inst.begin_send();
        let fut = self.inner.send(Inst::stamped(&op, msg));
        let r = send_waiting(fut, &self.inst, &mut op, || self.inner.is_full()).await;
        self.done(&op, r.map_err(|SendError(m)| SendError(m.into_inner())))
    }

    /// `Sender::send_blocking` (outside an async context).
    pub fn send_blocking(&self, msg: T) -> Result<(), SendError<T>> {
        let op = self.inst.begin_send();
        match self.inner.try_send(Inst::stamped(&op, msg)) {
            Ok(()) => self.done(&op, Ok(())),
            Err(TrySendError::Full(m)) => {
                let t0 = wait_start();
                let r = self.inner.send_blocking(m);
                self.inst.blocked(&op, t0);
                self.done(&op, r.map_err(|SendError(m)| SendError(m.into_inner())))
            }
            Err(TrySendError::Closed(m)) => {
                self.inst.send_failed(&op);
                Err(SendError(m.into_inner()))
            }
        }
    }

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

    /// `Sender::closed`: waits until the channel closes.
    pub async fn closed(&self) {
        self.inner.closed().await
    }

    /// `Sender::close`.
    pub fn close(&self) -> bool {
        self.inner.close()
    }

    /// `Sender::is_closed`.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// `Sender::is_empty`.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// `Sender::is_full`.
    pub fn is_full(&self) -> bool {
        self.inner.is_full()
    }

    /// `Sender::len`.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// `Sender::capacity`.
    pub fn capacity(&self) -> Option<usize> {
        self.inner.capacity()
    }

    /// `Sender::receiver_count`.
    pub fn receiver_count(&self) -> usize {
        self.inner.receiver_count()
    }

    /// `Sender::sender_count`.
    pub fn sender_count(&self) -> usize {
        self.inner.sender_count()
    }

    /// `Sender::downgrade`.
    pub fn downgrade(&self) -> WeakSender<T> {
        WeakSender {
            inner: self.inner.downgrade(),
            inst: self.inst.clone(),
        }
    }

    /// `Sender::same_channel`.
    pub fn same_channel(&self, other: &Sender<T>) -> bool {
        self.inner.same_channel(&other.inner)
    }
}

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
            Err(_) => {
                let t0 = wait_start();
                let r = self.inner.recv_blocking();
                recv_waited(t0);
                r.map(|m| self.inst.received(m))
            }
        }
    }

    /// `Receiver::close`.
    pub fn close(&self) -> bool {
        self.inner.close()
    }

    /// `Receiver::is_closed`.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// `Receiver::is_empty`.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// `Receiver::is_full`.
    pub fn is_full(&self) -> bool {
        self.inner.is_full()
    }

    /// `Receiver::len`.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// `Receiver::capacity`.
    pub fn capacity(&self) -> Option<usize> {
        self.inner.capacity()
    }

    /// `Receiver::receiver_count`.
    pub fn receiver_count(&self) -> usize {
        self.inner.receiver_count()
    }

    /// `Receiver::sender_count`.
    pub fn sender_count(&self) -> usize {
        self.inner.sender_count()
    }

    /// `Receiver::downgrade`.
    pub fn downgrade(&self) -> WeakReceiver<T> {
        WeakReceiver {
            inner: self.inner.downgrade(),
            inst: self.inst.clone(),
        }
    }

    /// `Receiver::same_channel`.
    pub fn same_channel(&self, other: &Receiver<T>) -> bool {
        self.inner.same_channel(&other.inner)
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

impl<T> WeakSender<T> {
    /// `WeakSender::upgrade`.
    pub fn upgrade(&self) -> Option<Sender<T>> {
        self.inner.upgrade().map(|inner| Sender {
            inner,
            inst: self.inst.clone(),
        })
    }
}

impl<T> WeakReceiver<T> {
    /// `WeakReceiver::upgrade`.
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

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Self {
        self.inst.add_receiver();
        Receiver {
            inner: self.inner.clone(),
            inst: self.inst.clone(),
        }
    }
}

debug_endpoints!(Sender, Receiver, WeakSender, WeakReceiver);
clone_endpoints!(Sender, WeakSender, WeakReceiver);
