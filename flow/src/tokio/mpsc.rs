//! `tokio::sync::mpsc`.

use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::sync::mpsc as raw;
use tokio::sync::mpsc::error::{SendError, SendTimeoutError, TryRecvError, TrySendError};

use crate::chan::{Inst, SendOp, Stamped};
use crate::depth::Depth;
use crate::instrument::{check_capacity, IntoInstrumented, Shape};
use crate::wait::{recv_waited, recv_waiting, send_waiting, wait_start};
use crate::FlowSite;

/// `tokio::sync::mpsc::Sender`, instrumented.
pub struct Sender<T> {
    inner: raw::Sender<Stamped<T>>,
    inst: Arc<Inst>,
}

/// `tokio::sync::mpsc::Receiver`, instrumented.
pub struct Receiver<T> {
    inner: raw::Receiver<Stamped<T>>,
    inst: Arc<Inst>,
    /// Reused by `recv_many`; in a `Mutex` only so that the receiver is `Sync`
    /// exactly when tokio's is (it is only reached through `&mut self`, unlocked).
    scratch: Scratch<T>,
}

/// `tokio::sync::mpsc::UnboundedSender`, instrumented.
pub struct UnboundedSender<T> {
    inner: raw::UnboundedSender<Stamped<T>>,
    inst: Arc<Inst>,
}

/// `tokio::sync::mpsc::UnboundedReceiver`, instrumented.
pub struct UnboundedReceiver<T> {
    inner: raw::UnboundedReceiver<Stamped<T>>,
    inst: Arc<Inst>,
    scratch: Scratch<T>,
}

/// `tokio::sync::mpsc::WeakSender`, instrumented.
pub struct WeakSender<T> {
    inner: raw::WeakSender<Stamped<T>>,
    inst: Arc<Inst>,
}

/// `tokio::sync::mpsc::WeakUnboundedSender`, instrumented.
pub struct WeakUnboundedSender<T> {
    inner: raw::WeakUnboundedSender<Stamped<T>>,
    inst: Arc<Inst>,
}

/// `tokio::sync::mpsc::Permit`: a reserved slot; `send` stamps the message.
pub struct Permit<'a, T> {
    inner: raw::Permit<'a, Stamped<T>>,
    inst: &'a Inst,
}

/// `tokio::sync::mpsc::PermitIterator`.
pub struct PermitIterator<'a, T> {
    inner: raw::PermitIterator<'a, Stamped<T>>,
    inst: &'a Inst,
}

/// `tokio::sync::mpsc::OwnedPermit`.
pub struct OwnedPermit<T> {
    inner: raw::OwnedPermit<Stamped<T>>,
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
        let cap = self.0.max_capacity();
        check_capacity(site, Some(cap), declared);
        let inst = Inst::new::<T>(site, Shape::sized("tokio", Some(cap), Depth::Counters));
        (
            Sender {
                inner: self.0,
                inst: inst.clone(),
            },
            Receiver {
                inner: self.1,
                inst,
                scratch: Scratch::default(),
            },
        )
    }
}

impl<T> IntoInstrumented
    for (
        raw::UnboundedSender<Stamped<T>>,
        raw::UnboundedReceiver<Stamped<T>>,
    )
{
    type Wrapped = (UnboundedSender<T>, UnboundedReceiver<T>);

    fn instrument(
        self,
        site: &'static FlowSite,
        _: Option<usize>,
        declared: Option<usize>,
    ) -> Self::Wrapped {
        check_capacity(site, None, declared);
        let inst = Inst::new::<T>(site, Shape::sized("tokio", None, Depth::Counters));
        (
            UnboundedSender {
                inner: self.0,
                inst: inst.clone(),
            },
            UnboundedReceiver {
                inner: self.1,
                inst,
                scratch: Scratch::default(),
            },
        )
    }
}

impl<T> Sender<T> {
    /// `Sender::send`: waits for room (measured as a blocked send); fails when the
    /// receiver is gone. Cancelling it drops the message, as tokio's does.
    pub async fn send(&self, value: T) -> Result<(), SendError<T>> {
        let inst = &*self.inst;
        let mut op = inst.begin_send();
        let undo = inst.undo_on_drop(&op);
        let fut = self.inner.send(Inst::stamped(&op, value));
        let r = send_waiting(fut, inst, &mut op, || self.inner.capacity() == 0).await;
        undo.done();
        match r {
            Ok(()) => {
                inst.sent(&op, || 0);
                Ok(())
            }
            Err(SendError(m)) => {
                inst.send_failed(&op);
                Err(SendError(m.into_inner()))
            }
        }
    }

    /// `Sender::try_send`: `Full` is neither a send nor an error.
    pub fn try_send(&self, message: T) -> Result<(), TrySendError<T>> {
        let inst = &*self.inst;
        let op = inst.begin_send();
        match self.inner.try_send(Inst::stamped(&op, message)) {
            Ok(()) => {
                inst.sent(&op, || 0);
                Ok(())
            }
            Err(TrySendError::Full(m)) => {
                inst.not_sent(&op);
                Err(TrySendError::Full(m.into_inner()))
            }
            Err(TrySendError::Closed(m)) => {
                inst.send_failed(&op);
                Err(TrySendError::Closed(m.into_inner()))
            }
        }
    }

    /// `Sender::send_timeout`: a timeout counts as a blocked send that did not send.
    pub async fn send_timeout(
        &self,
        value: T,
        timeout: Duration,
    ) -> Result<(), SendTimeoutError<T>> {
        let inst = &*self.inst;
        let mut op = inst.begin_send();
        let undo = inst.undo_on_drop(&op);
        let fut = self.inner.send_timeout(Inst::stamped(&op, value), timeout);
        let r = send_waiting(fut, inst, &mut op, || self.inner.capacity() == 0).await;
        undo.done();
        match r {
            Ok(()) => {
                inst.sent(&op, || 0);
                Ok(())
            }
            Err(SendTimeoutError::Timeout(m)) => {
                inst.not_sent(&op);
                Err(SendTimeoutError::Timeout(m.into_inner()))
            }
            Err(SendTimeoutError::Closed(m)) => {
                inst.send_failed(&op);
                Err(SendTimeoutError::Closed(m.into_inner()))
            }
        }
    }

    /// `Sender::blocking_send` (outside an async context).
    pub fn blocking_send(&self, value: T) -> Result<(), SendError<T>> {
        let inst = &*self.inst;
        let op = inst.begin_send();
        match self.inner.try_send(Inst::stamped(&op, value)) {
            Ok(()) => {
                inst.sent(&op, || 0);
                Ok(())
            }
            Err(TrySendError::Full(m)) => {
                let t0 = wait_start();
                let r = self.inner.blocking_send(m);
                inst.blocked(&op, t0);
                match r {
                    Ok(()) => {
                        inst.sent(&op, || 0);
                        Ok(())
                    }
                    Err(SendError(m)) => {
                        inst.send_failed(&op);
                        Err(SendError(m.into_inner()))
                    }
                }
            }
            Err(TrySendError::Closed(m)) => {
                inst.send_failed(&op);
                Err(SendError(m.into_inner()))
            }
        }
    }

    /// `Sender::closed`.
    pub async fn closed(&self) {
        self.inner.closed().await
    }

    /// `Sender::is_closed`.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// `Sender::reserve`: waits for a slot (measured as a blocked send).
    pub async fn reserve(&self) -> Result<Permit<'_, T>, SendError<()>> {
        let mut op = SendOp::untimed();
        let fut = self.inner.reserve();
        let r = send_waiting(fut, &self.inst, &mut op, || self.inner.capacity() == 0).await;
        r.map(|inner| Permit {
            inner,
            inst: &self.inst,
        })
    }

    /// `Sender::reserve_many`.
    pub async fn reserve_many(&self, n: usize) -> Result<PermitIterator<'_, T>, SendError<()>> {
        let mut op = SendOp::untimed();
        let fut = self.inner.reserve_many(n);
        let r = send_waiting(fut, &self.inst, &mut op, || self.inner.capacity() < n).await;
        r.map(|inner| PermitIterator {
            inner,
            inst: &self.inst,
        })
    }

    /// `Sender::reserve_owned`.
    pub async fn reserve_owned(self) -> Result<OwnedPermit<T>, SendError<()>> {
        let inst = self.inst;
        let full = self.inner.capacity() == 0;
        let mut op = SendOp::untimed();
        let fut = self.inner.reserve_owned();
        let r = send_waiting(fut, &inst, &mut op, || full).await;
        r.map(|inner| OwnedPermit { inner, inst })
    }

    /// `Sender::try_reserve`.
    pub fn try_reserve(&self) -> Result<Permit<'_, T>, TrySendError<()>> {
        self.inner.try_reserve().map(|inner| Permit {
            inner,
            inst: &self.inst,
        })
    }

    /// `Sender::try_reserve_many`.
    pub fn try_reserve_many(&self, n: usize) -> Result<PermitIterator<'_, T>, TrySendError<()>> {
        self.inner.try_reserve_many(n).map(|inner| PermitIterator {
            inner,
            inst: &self.inst,
        })
    }

    /// `Sender::try_reserve_owned`.
    pub fn try_reserve_owned(self) -> Result<OwnedPermit<T>, TrySendError<Self>> {
        let inst = self.inst;
        match self.inner.try_reserve_owned() {
            Ok(inner) => Ok(OwnedPermit { inner, inst }),
            Err(TrySendError::Full(inner)) => Err(TrySendError::Full(Sender { inner, inst })),
            Err(TrySendError::Closed(inner)) => Err(TrySendError::Closed(Sender { inner, inst })),
        }
    }

    /// `Sender::same_channel`.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.inner.same_channel(&other.inner)
    }

    /// `Sender::capacity`: free slots now.
    pub fn capacity(&self) -> usize {
        self.inner.capacity()
    }

    /// `Sender::max_capacity`.
    pub fn max_capacity(&self) -> usize {
        self.inner.max_capacity()
    }

    /// `Sender::downgrade`.
    pub fn downgrade(&self) -> WeakSender<T> {
        WeakSender {
            inner: self.inner.downgrade(),
            inst: self.inst.clone(),
        }
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

impl<T> Permit<'_, T> {
    /// `Permit::send`: sends into the reserved slot (never fails).
    pub fn send(self, value: T) {
        let op = self.inst.begin_send();
        self.inner.send(Inst::stamped(&op, value));
        self.inst.sent(&op, || 0);
    }
}

impl<'a, T> Iterator for PermitIterator<'a, T> {
    type Item = Permit<'a, T>;
    fn next(&mut self) -> Option<Permit<'a, T>> {
        let inst = self.inst;
        self.inner.next().map(|inner| Permit { inner, inst })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<T> ExactSizeIterator for PermitIterator<'_, T> {}
impl<T> std::iter::FusedIterator for PermitIterator<'_, T> {}

impl<T> OwnedPermit<T> {
    /// `OwnedPermit::send`: sends into the reserved slot and gives the sender back.
    pub fn send(self, value: T) -> Sender<T> {
        let op = self.inst.begin_send();
        let inner = self.inner.send(Inst::stamped(&op, value));
        self.inst.sent(&op, || 0);
        Sender {
            inner,
            inst: self.inst,
        }
    }

    /// `OwnedPermit::release`: gives the slot back unused.
    pub fn release(self) -> Sender<T> {
        Sender {
            inner: self.inner.release(),
            inst: self.inst,
        }
    }

    /// `OwnedPermit::same_channel`.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.inner.same_channel(&other.inner)
    }

    /// `OwnedPermit::same_channel_as_sender`.
    pub fn same_channel_as_sender(&self, sender: &Sender<T>) -> bool {
        self.inner.same_channel_as_sender(&sender.inner)
    }
}

/// Messages taken by one `recv_many`, before they are unstamped into the caller's
/// buffer.
struct Scratch<T>(std::sync::Mutex<Vec<Stamped<T>>>);

impl<T> Default for Scratch<T> {
    fn default() -> Self {
        Scratch(std::sync::Mutex::new(Vec::new()))
    }
}

impl<T> Scratch<T> {
    fn get(&mut self) -> &mut Vec<Stamped<T>> {
        // Never locked, so never poisoned.
        let v = self.0.get_mut().unwrap_or_else(|e| e.into_inner());
        v.clear();
        v
    }
}

macro_rules! receiver_methods {
    ($ty:ident) => {
        impl<T> $ty<T> {
            /// `recv`: waits for a message (the wait is charged to the function).
            pub async fn recv(&mut self) -> Option<T> {
                let r = recv_waiting(std::future::poll_fn(|cx| self.inner.poll_recv(cx))).await;
                r.map(|m| self.inst.received(m))
            }

            /// `recv_many`: up to `limit` messages appended to `buffer`.
            pub async fn recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
                let scratch = self.scratch.get();
                let n = recv_waiting(self.inner.recv_many(scratch, limit)).await;
                let inst = &*self.inst;
                buffer.extend(scratch.drain(..).map(|m| inst.received(m)));
                n
            }

            /// `try_recv`.
            pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
                self.inner.try_recv().map(|m| self.inst.received(m))
            }

            /// `blocking_recv` (outside an async context).
            pub fn blocking_recv(&mut self) -> Option<T> {
                match self.inner.try_recv() {
                    Ok(m) => Some(self.inst.received(m)),
                    Err(TryRecvError::Disconnected) => None,
                    Err(TryRecvError::Empty) => {
                        let t0 = wait_start();
                        let r = self.inner.blocking_recv();
                        recv_waited(t0);
                        r.map(|m| self.inst.received(m))
                    }
                }
            }

            /// `blocking_recv_many` (outside an async context).
            pub fn blocking_recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
                let scratch = self.scratch.get();
                let t0 = wait_start();
                let n = self.inner.blocking_recv_many(scratch, limit);
                recv_waited(t0);
                let inst = &*self.inst;
                buffer.extend(scratch.drain(..).map(|m| inst.received(m)));
                n
            }

            /// `close`.
            pub fn close(&mut self) {
                self.inner.close()
            }

            /// `is_closed`.
            pub fn is_closed(&self) -> bool {
                self.inner.is_closed()
            }

            /// `is_empty`.
            pub fn is_empty(&self) -> bool {
                self.inner.is_empty()
            }

            /// `len`: messages queued.
            pub fn len(&self) -> usize {
                self.inner.len()
            }

            /// `poll_recv`.
            pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
                let inst = &*self.inst;
                self.inner
                    .poll_recv(cx)
                    .map(|o| o.map(|m| inst.received(m)))
            }

            /// `poll_recv_many`.
            pub fn poll_recv_many(
                &mut self,
                cx: &mut Context<'_>,
                buffer: &mut Vec<T>,
                limit: usize,
            ) -> Poll<usize> {
                let scratch = self.scratch.get();
                let p = self.inner.poll_recv_many(cx, scratch, limit);
                let inst = &*self.inst;
                buffer.extend(scratch.drain(..).map(|m| inst.received(m)));
                p
            }

            /// `sender_strong_count`.
            pub fn sender_strong_count(&self) -> usize {
                self.inner.sender_strong_count()
            }

            /// `sender_weak_count`.
            pub fn sender_weak_count(&self) -> usize {
                self.inner.sender_weak_count()
            }
        }

        impl<T> Drop for $ty<T> {
            fn drop(&mut self) {
                self.inst.receiver_dropped(|| 0);
            }
        }

        debug_endpoints!($ty);
    };
}

receiver_methods!(Receiver);
receiver_methods!(UnboundedReceiver);

impl<T> Receiver<T> {
    /// `Receiver::capacity`: free slots now.
    pub fn capacity(&self) -> usize {
        self.inner.capacity()
    }

    /// `Receiver::max_capacity`.
    pub fn max_capacity(&self) -> usize {
        self.inner.max_capacity()
    }
}

impl<T> UnboundedSender<T> {
    /// `UnboundedSender::send`: never waits; fails when the receiver is gone.
    pub fn send(&self, message: T) -> Result<(), SendError<T>> {
        let inst = &*self.inst;
        let op = inst.begin_send();
        match self.inner.send(Inst::stamped(&op, message)) {
            Ok(()) => {
                inst.sent(&op, || 0);
                Ok(())
            }
            Err(SendError(m)) => {
                inst.send_failed(&op);
                Err(SendError(m.into_inner()))
            }
        }
    }

    /// `UnboundedSender::closed`.
    pub async fn closed(&self) {
        self.inner.closed().await
    }

    /// `UnboundedSender::is_closed`.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// `UnboundedSender::same_channel`.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.inner.same_channel(&other.inner)
    }

    /// `UnboundedSender::downgrade`.
    pub fn downgrade(&self) -> WeakUnboundedSender<T> {
        WeakUnboundedSender {
            inner: self.inner.downgrade(),
            inst: self.inst.clone(),
        }
    }

    /// `UnboundedSender::strong_count`.
    pub fn strong_count(&self) -> usize {
        self.inner.strong_count()
    }

    /// `UnboundedSender::weak_count`.
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

impl<T> WeakUnboundedSender<T> {
    /// `WeakUnboundedSender::upgrade`.
    pub fn upgrade(&self) -> Option<UnboundedSender<T>> {
        self.inner.upgrade().map(|inner| UnboundedSender {
            inner,
            inst: self.inst.clone(),
        })
    }

    /// `WeakUnboundedSender::strong_count`.
    pub fn strong_count(&self) -> usize {
        self.inner.strong_count()
    }

    /// `WeakUnboundedSender::weak_count`.
    pub fn weak_count(&self) -> usize {
        self.inner.weak_count()
    }
}

clone_endpoints!(Sender, UnboundedSender, WeakSender, WeakUnboundedSender);
debug_endpoints!(Sender, UnboundedSender, WeakSender, WeakUnboundedSender);

debug_endpoints!(Permit<'_>, PermitIterator<'_>, OwnedPermit);
