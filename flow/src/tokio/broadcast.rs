//! `tokio::sync::broadcast`: every receiver gets every message; a receiver that falls
//! more than the capacity behind misses messages (`Lagged`), counted as lagged.

use std::sync::Arc;

use tokio::sync::broadcast as raw;
use tokio::sync::broadcast::error::{RecvError, SendError, TryRecvError};

use crate::chan::{Inst, Stamped};
use crate::depth::Depth;
use crate::instrument::{check_capacity, IntoInstrumented, Shape};
use crate::wait::{recv_waited, recv_waiting, wait_start};
use crate::FlowSite;

/// `tokio::sync::broadcast::Sender`, instrumented.
pub struct Sender<T> {
    inner: raw::Sender<Stamped<T>>,
    inst: Arc<Inst>,
}

/// `tokio::sync::broadcast::Receiver`, instrumented.
pub struct Receiver<T> {
    inner: raw::Receiver<Stamped<T>>,
    inst: Arc<Inst>,
}

/// `tokio::sync::broadcast::WeakSender`, instrumented.
pub struct WeakSender<T> {
    inner: raw::WeakSender<Stamped<T>>,
    inst: Arc<Inst>,
}

impl<T: Clone> IntoInstrumented for (raw::Sender<Stamped<T>>, raw::Receiver<Stamped<T>>) {
    type Wrapped = (Sender<T>, Receiver<T>);

    fn instrument(
        self,
        site: &'static FlowSite,
        ctor: Option<usize>,
        declared: Option<usize>,
    ) -> Self::Wrapped {
        if ctor.is_some() {
            check_capacity(site, ctor, declared);
        }
        let mut shape = Shape::sized("tokio", ctor.or(declared), Depth::Len);
        shape.kind = "broadcast";
        let inst = Inst::new::<T>(site, shape);
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
    /// `Sender::send`: the number of receivers it reached, or the value back when
    /// there is none.
    pub fn send(&self, value: T) -> Result<usize, SendError<T>> {
        let inst = &*self.inst;
        let op = inst.begin_send();
        match self.inner.send(Inst::stamped(&op, value)) {
            Ok(n) => {
                inst.sent(&op, || self.inner.len());
                Ok(n)
            }
            Err(SendError(m)) => {
                inst.send_failed(&op);
                Err(SendError(m.into_inner()))
            }
        }
    }

    /// `Sender::subscribe`: a new receiver.
    pub fn subscribe(&self) -> Receiver<T> {
        self.inst.add_receiver();
        Receiver {
            inner: self.inner.subscribe(),
            inst: self.inst.clone(),
        }
    }

    /// `Sender::downgrade`.
    pub fn downgrade(&self) -> WeakSender<T> {
        WeakSender {
            inner: self.inner.downgrade(),
            inst: self.inst.clone(),
        }
    }

    /// `Sender::len`: values still queued for some receiver.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// `Sender::is_empty`.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// `Sender::receiver_count`.
    pub fn receiver_count(&self) -> usize {
        self.inner.receiver_count()
    }

    /// `Sender::same_channel`.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.inner.same_channel(&other.inner)
    }

    /// `Sender::closed`.
    pub async fn closed(&self) {
        self.inner.closed().await
    }

    /// `Sender::strong_count`.
    pub fn strong_count(&self) -> usize {
        self.inner.strong_count()
    }

    /// `Sender::weak_count`.
    pub fn weak_count(&self) -> usize {
        self.inner.weak_count()
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

    /// `WeakSender::strong_count`.
    pub fn strong_count(&self) -> usize {
        self.inner.strong_count()
    }

    /// `WeakSender::weak_count`.
    pub fn weak_count(&self) -> usize {
        self.inner.weak_count()
    }
}

impl<T> Receiver<T> {
    /// `Receiver::len`: messages this receiver has not read yet.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// `Receiver::is_empty`.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// `Receiver::is_closed`.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// `Receiver::same_channel`.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.inner.same_channel(&other.inner)
    }

    /// `Receiver::sender_strong_count`.
    pub fn sender_strong_count(&self) -> usize {
        self.inner.sender_strong_count()
    }

    /// `Receiver::sender_weak_count`.
    pub fn sender_weak_count(&self) -> usize {
        self.inner.sender_weak_count()
    }
}

impl<T: Clone> Receiver<T> {
    /// `Receiver::resubscribe`: a receiver that starts at the newest message.
    pub fn resubscribe(&self) -> Self {
        self.inst.add_receiver();
        Receiver {
            inner: self.inner.resubscribe(),
            inst: self.inst.clone(),
        }
    }

    fn got(&self, r: Result<Stamped<T>, RecvError>) -> Result<T, RecvError> {
        match r {
            Ok(m) => Ok(self.inst.received(m)),
            Err(RecvError::Lagged(n)) => {
                self.inst.missed(n);
                Err(RecvError::Lagged(n))
            }
            Err(e) => Err(e),
        }
    }

    /// `Receiver::recv`: `Lagged(n)` when it missed `n` messages (counted).
    pub async fn recv(&mut self) -> Result<T, RecvError> {
        let r = recv_waiting(self.inner.recv()).await;
        self.got(r)
    }

    /// `Receiver::try_recv`.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        match self.inner.try_recv() {
            Ok(m) => Ok(self.inst.received(m)),
            Err(TryRecvError::Lagged(n)) => {
                self.inst.missed(n);
                Err(TryRecvError::Lagged(n))
            }
            Err(e) => Err(e),
        }
    }

    /// `Receiver::blocking_recv` (outside an async context).
    pub fn blocking_recv(&mut self) -> Result<T, RecvError> {
        match self.inner.try_recv() {
            Ok(m) => Ok(self.inst.received(m)),
            Err(TryRecvError::Lagged(n)) => {
                self.inst.missed(n);
                Err(RecvError::Lagged(n))
            }
            Err(TryRecvError::Closed) => Err(RecvError::Closed),
            Err(TryRecvError::Empty) => {
                let t0 = wait_start();
                let r = self.inner.blocking_recv();
                recv_waited(t0);
                self.got(r)
            }
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        // Every receiver has its own view of the queue: what it did not read.
        self.inst.unread(self.inner.len() as u64);
    }
}

clone_endpoints!(Sender, WeakSender);
debug_endpoints!(Sender, WeakSender, Receiver);
