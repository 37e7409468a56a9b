//! `tokio::sync::mpsc`.

use hotpath_core::InternalArc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::sync::mpsc as raw;
use tokio::sync::mpsc::error::{SendError, SendTimeoutError, TryRecvError, TrySendError};

use crate::chan::{Inst, SendOp, Stamped};
use crate::depth::Depth;
use crate::instrument::{check_capacity, Shape};
use crate::wait::{recv_waited, recv_waiting, wait_start};

endpoints! {
    /// `tokio::sync::mpsc::Sender`, instrumented.
    Sender(raw::Sender<Stamped<T>>);
    /// `tokio::sync::mpsc::UnboundedSender`, instrumented.
    UnboundedSender(raw::UnboundedSender<Stamped<T>>);
    /// `tokio::sync::mpsc::WeakSender`, instrumented.
    WeakSender(raw::WeakSender<Stamped<T>>);
    /// `tokio::sync::mpsc::WeakUnboundedSender`, instrumented.
    WeakUnboundedSender(raw::WeakUnboundedSender<Stamped<T>>);
}

/// `tokio::sync::mpsc::Receiver`, instrumented.
pub struct Receiver<T> {
    inner: raw::Receiver<Stamped<T>>,
    inst: InternalArc<Inst>,
    /// Reused by `recv_many`; in a `Mutex` only so that the receiver is `Sync`
    /// exactly when tokio's is (it is only reached through `&mut self`, unlocked).
    scratch: Scratch<T>,
}

/// `tokio::sync::mpsc::UnboundedReceiver`, instrumented.
pub struct UnboundedReceiver<T> {
    inner: raw::UnboundedReceiver<Stamped<T>>,
    inst: InternalArc<Inst>,
    scratch: Scratch<T>,
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
    inst: InternalArc<Inst>,
}

instrument! {
    impl<T> for (raw::Sender<Stamped<T>>, raw::Receiver<Stamped<T>>) =>
        (Sender, Receiver { scratch: Scratch::default() }),
    |(tx, _), site, _, declared| {
        let cap = tx.max_capacity();
        check_capacity(site, Some(cap), declared);
        Shape::sized("tokio", Some(cap), Depth::Counters)
    }
}

instrument! {
    impl<T> for (raw::UnboundedSender<Stamped<T>>, raw::UnboundedReceiver<Stamped<T>>) =>
        (UnboundedSender, UnboundedReceiver { scratch: Scratch::default() }),
    |_, site, _, declared| Shape::checked("tokio", site, None, declared, Depth::Counters)
}

outcomes! {
    SendError(M) => Closed;
    TrySendError<M> { Full => Full, Closed => Closed }
    // A timeout is a blocked send that did not send.
    SendTimeoutError<M> { Timeout => Full, Closed => Closed }
    recv TryRecvError { Empty => Empty, Disconnected => Closed }
}

impl<T> Sender<T> {
    /// `Sender::send`: waits for room (measured as a blocked send); fails when the
    /// receiver is gone. Cancelling it drops the message, as tokio's does.
    pub async fn send(&self, value: T) -> Result<(), SendError<T>> {
        self.inst
            .send_async_with(
                value,
                |m| self.inner.send(m),
                || self.inner.capacity() == 0,
                || 0,
            )
            .await
            .into_result(SendError, SendError)
    }

    /// `Sender::try_send`: `Full` is neither a send nor an error.
    pub fn try_send(&self, message: T) -> Result<(), TrySendError<T>> {
        self.inst
            .try_send_with(message, |m| self.inner.try_send(m), || 0)
            .into_result(TrySendError::Full, TrySendError::Closed)
    }

    /// `Sender::send_timeout`: a timeout counts as a blocked send that did not send.
    pub async fn send_timeout(
        &self,
        value: T,
        timeout: Duration,
    ) -> Result<(), SendTimeoutError<T>> {
        self.inst
            .send_async_with(
                value,
                |m| self.inner.send_timeout(m, timeout),
                || self.inner.capacity() == 0,
                || 0,
            )
            .await
            .into_result(SendTimeoutError::Timeout, SendTimeoutError::Closed)
    }

    // The depth comes from the instance's counters, not from a length.
    blocking_sends!(len: |_: &Self| 0; blocking_send);

    forward! { Sender(inner):
        async fn closed(&self);
        fn is_closed(&self) -> bool;
        /// free slots now
        fn capacity(&self) -> usize;
        fn max_capacity(&self) -> usize;
        fn strong_count(&self) -> usize;
        fn weak_count(&self) -> usize;
    }

    /// `Sender::reserve`: waits for a slot (measured as a blocked send).
    pub async fn reserve(&self) -> Result<Permit<'_, T>, SendError<()>> {
        let op = SendOp::untimed();
        let fut = self.inner.reserve();
        let r = self
            .inst
            .send_waiting(fut, op, || self.inner.capacity() == 0, |_, r| r)
            .await;
        r.map(|inner| Permit {
            inner,
            inst: &self.inst,
        })
    }

    /// `Sender::reserve_many`.
    pub async fn reserve_many(&self, n: usize) -> Result<PermitIterator<'_, T>, SendError<()>> {
        let op = SendOp::untimed();
        let fut = self.inner.reserve_many(n);
        let r = self
            .inst
            .send_waiting(fut, op, || self.inner.capacity() < n, |_, r| r)
            .await;
        r.map(|inner| PermitIterator {
            inner,
            inst: &self.inst,
        })
    }

    /// `Sender::reserve_owned`.
    pub async fn reserve_owned(self) -> Result<OwnedPermit<T>, SendError<()>> {
        let inst = self.inst;
        let full = self.inner.capacity() == 0;
        let op = SendOp::untimed();
        let fut = self.inner.reserve_owned();
        let r = inst.send_waiting(fut, op, || full, |_, r| r).await;
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

    forward! { Sender(inner):
        fn same_channel(&self, other: &Self) -> bool;
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

    forward! { OwnedPermit(inner):
        fn same_channel(&self, other: &Self) -> bool;
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
                let now = self.inner.try_recv();
                self.inst
                    .recv_with(now, || self.inner.blocking_recv().ok_or(()), ())
                    .ok()
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

            forward! { $ty(inner):
                fn close(&mut self);
                fn is_closed(&self) -> bool;
                fn is_empty(&self) -> bool;
                /// messages queued
                fn len(&self) -> usize;
                fn sender_strong_count(&self) -> usize;
                fn sender_weak_count(&self) -> usize;
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
    forward! { Receiver(inner):
        /// free slots now
        fn capacity(&self) -> usize;
        fn max_capacity(&self) -> usize;
    }
}

impl<T> UnboundedSender<T> {
    /// `UnboundedSender::send`: never waits; fails when the receiver is gone.
    pub fn send(&self, message: T) -> Result<(), SendError<T>> {
        self.inst
            .try_send_with(message, |m| self.inner.send(m), || 0)
            .into_result(SendError, SendError)
    }

    forward! { UnboundedSender(inner):
        async fn closed(&self);
        fn is_closed(&self) -> bool;
        fn strong_count(&self) -> usize;
        fn weak_count(&self) -> usize;
        fn same_channel(&self, other: &Self) -> bool;
    }
}

weak!(
    WeakSender => Sender + counts,
    WeakUnboundedSender => UnboundedSender + counts,
);

clone_endpoints!(Sender, UnboundedSender, WeakSender, WeakUnboundedSender);
debug_endpoints!(Sender, UnboundedSender, WeakSender, WeakUnboundedSender);

debug_endpoints!(Permit<'_>, PermitIterator<'_>, OwnedPermit);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chan::{TryRecv, TrySend};

    #[test]
    fn tokio_s_results_say_what_a_send_or_a_receive_did() {
        assert_eq!(TrySend::from(Ok::<(), SendError<u8>>(())), TrySend::Sent);
        assert_eq!(
            TrySend::from(Err::<(), _>(SendError(1u8))),
            TrySend::Closed(1)
        );
        let full = Err::<(), _>(TrySendError::Full(2u8));
        assert_eq!(TrySend::from(full), TrySend::Full(2));
        let gone = Err::<(), _>(TrySendError::Closed(3u8));
        assert_eq!(TrySend::from(gone), TrySend::Closed(3));
        // A timeout is a blocked send that did not send: `Full`, not an error.
        let timeout = Err::<(), _>(SendTimeoutError::Timeout(4u8));
        assert_eq!(TrySend::from(timeout), TrySend::Full(4));
        let gone = Err::<(), _>(SendTimeoutError::Closed(5u8));
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
