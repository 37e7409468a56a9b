//! tokio's channels: `mpsc` (bounded and unbounded), `oneshot`, `broadcast`, `watch`.
//!
//! Async sends and receives poll the raw futures exactly as the raw endpoints would
//! (tokio's cooperative budget included); a send counts as blocked when it returned
//! `Pending` while the channel had no free slot. Queue depth: from the instance's
//! counters for `mpsc` and `oneshot`, from `Sender::len()` for `broadcast`.

/// `tokio::sync::mpsc`.
pub mod mpsc {
    use std::sync::Arc;
    use std::task::{Context, Poll};
    use std::time::Duration;

    use tokio::sync::mpsc as raw;
    use tokio::sync::mpsc::error::{SendError, SendTimeoutError, TryRecvError, TrySendError};

    use crate::chan::{
        check_capacity, recv_wait_start, recv_waited, recv_waiting, send_waiting, Depth, Inst,
        IntoInstrumented, Shape, Stamped,
    };
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
                    let t0 = op.wait_start();
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
            let mut op = crate::chan::SendOp::untimed();
            let fut = self.inner.reserve();
            let r = send_waiting(fut, &self.inst, &mut op, || self.inner.capacity() == 0).await;
            r.map(|inner| Permit {
                inner,
                inst: &self.inst,
            })
        }

        /// `Sender::reserve_many`.
        pub async fn reserve_many(&self, n: usize) -> Result<PermitIterator<'_, T>, SendError<()>> {
            let mut op = crate::chan::SendOp::untimed();
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
            let mut op = crate::chan::SendOp::untimed();
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
        pub fn try_reserve_many(
            &self,
            n: usize,
        ) -> Result<PermitIterator<'_, T>, TrySendError<()>> {
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
                Err(TrySendError::Closed(inner)) => {
                    Err(TrySendError::Closed(Sender { inner, inst }))
                }
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
                            let t0 = recv_wait_start();
                            let r = self.inner.blocking_recv();
                            recv_waited(t0);
                            r.map(|m| self.inst.received(m))
                        }
                    }
                }

                /// `blocking_recv_many` (outside an async context).
                pub fn blocking_recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
                    let scratch = self.scratch.get();
                    let t0 = recv_wait_start();
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
}

/// `tokio::sync::oneshot`.
pub mod oneshot {
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::Arc;
    use std::task::{Context, Poll};

    use tokio::sync::oneshot as raw;
    use tokio::sync::oneshot::error::{RecvError, TryRecvError};

    use crate::chan::{
        check_capacity, recv_wait_start, recv_waited, Depth, Inst, IntoInstrumented, Shape, Stamped,
    };
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
                    let t0 = recv_wait_start();
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
                        this.waiting = Some(recv_wait_start());
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
}

/// `tokio::sync::broadcast`: every receiver gets every message; a receiver that falls
/// more than the capacity behind misses messages (`Lagged`), counted as lagged.
pub mod broadcast {
    use std::sync::Arc;

    use tokio::sync::broadcast as raw;
    use tokio::sync::broadcast::error::{RecvError, SendError, TryRecvError};

    use crate::chan::{
        check_capacity, recv_wait_start, recv_waited, recv_waiting, Depth, Inst, IntoInstrumented,
        Shape, Stamped,
    };
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
                    let t0 = recv_wait_start();
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
}

/// `tokio::sync::watch`: one value, replaced by each send; a receiver that looks less
/// often than the sender sends sees only the newest (the others are counted as
/// coalesced, in the entry's `lagged`). Messages are not stamped (no latency).
pub mod watch {
    use std::sync::Arc;

    use tokio::sync::watch as raw;
    use tokio::sync::watch::error::{RecvError, SendError};
    use tokio::sync::watch::Ref;

    use crate::chan::{check_capacity, recv_waiting, Depth, Inst, IntoInstrumented, SendOp, Shape};
    use crate::FlowSite;

    /// `tokio::sync::watch::Sender`, instrumented.
    pub struct Sender<T> {
        inner: raw::Sender<T>,
        inst: Arc<Inst>,
    }

    /// `tokio::sync::watch::Receiver`, instrumented.
    pub struct Receiver<T> {
        inner: raw::Receiver<T>,
        inst: Arc<Inst>,
        /// The version (sends so far) this receiver last observed.
        seen: u64,
    }

    impl<T> IntoInstrumented for (raw::Sender<T>, raw::Receiver<T>) {
        type Wrapped = (Sender<T>, Receiver<T>);

        fn instrument(
            self,
            site: &'static FlowSite,
            _: Option<usize>,
            declared: Option<usize>,
        ) -> Self::Wrapped {
            check_capacity(site, Some(1), declared);
            let mut shape = Shape::sized("tokio", Some(1), Depth::One);
            shape.kind = "watch";
            let inst = Inst::new::<T>(site, shape);
            (
                Sender {
                    inner: self.0,
                    inst: inst.clone(),
                },
                Receiver {
                    inner: self.1,
                    inst,
                    seen: 0,
                },
            )
        }
    }

    impl<T> Sender<T> {
        fn modify<R>(&self, f: impl FnOnce(&mut T) -> (bool, R)) -> (bool, R) {
            let inst = &*self.inst;
            let mut out = None;
            let modified = self.inner.send_if_modified(|v| {
                let (m, r) = f(v);
                if m {
                    // Under the value's write lock: versions and values agree.
                    inst.bump();
                }
                out = Some(r);
                m
            });
            (modified, out.expect("the closure ran"))
        }

        fn count(&self) {
            self.inst.sent(&SendOp::untimed(), || 1);
        }

        /// `Sender::send`: fails (giving the value back) when there is no receiver.
        pub fn send(&self, value: T) -> Result<(), SendError<T>> {
            // As tokio's `send`: the receiver count, then `send_replace`.
            if self.inner.receiver_count() == 0 {
                self.inst.send_failed(&SendOp::untimed());
                return Err(SendError(value));
            }
            self.send_replace(value);
            Ok(())
        }

        /// `Sender::send_replace`: the previous value.
        pub fn send_replace(&self, value: T) -> T {
            let (_, old) = self.modify(|v| (true, std::mem::replace(v, value)));
            self.count();
            old
        }

        /// `Sender::send_modify`.
        pub fn send_modify<F: FnOnce(&mut T)>(&self, modify: F) {
            self.modify(|v| {
                modify(v);
                (true, ())
            });
            self.count();
        }

        /// `Sender::send_if_modified`: counted as a send when `modify` returns true.
        pub fn send_if_modified<F: FnOnce(&mut T) -> bool>(&self, modify: F) -> bool {
            let (m, ()) = self.modify(|v| (modify(v), ()));
            if m {
                self.count();
            }
            m
        }

        /// `Sender::borrow`.
        pub fn borrow(&self) -> Ref<'_, T> {
            self.inner.borrow()
        }

        /// `Sender::is_closed`.
        pub fn is_closed(&self) -> bool {
            self.inner.is_closed()
        }

        /// `Sender::closed`.
        pub async fn closed(&self) {
            self.inner.closed().await
        }

        /// `Sender::subscribe`: a receiver that has seen the current value.
        pub fn subscribe(&self) -> Receiver<T> {
            let _value = self.inner.borrow();
            let seen = self.inst.sends();
            Receiver {
                inner: self.inner.subscribe(),
                inst: self.inst.clone(),
                seen,
            }
        }

        /// `Sender::receiver_count`.
        pub fn receiver_count(&self) -> usize {
            self.inner.receiver_count()
        }

        /// `Sender::sender_count`.
        pub fn sender_count(&self) -> usize {
            self.inner.sender_count()
        }

        /// `Sender::same_channel`.
        pub fn same_channel(&self, other: &Self) -> bool {
            self.inner.same_channel(&other.inner)
        }
    }

    impl<T> Receiver<T> {
        /// An observation: counts it and the sends it skipped.
        fn observe(&mut self) {
            let version = {
                let _value = self.inner.borrow();
                self.inst.sends()
            };
            self.inst.observed();
            self.inst
                .missed(version.saturating_sub(self.seen).saturating_sub(1));
            self.seen = self.seen.max(version);
        }

        /// `Receiver::borrow`.
        pub fn borrow(&self) -> Ref<'_, T> {
            self.inner.borrow()
        }

        /// `Receiver::borrow_and_update`.
        pub fn borrow_and_update(&mut self) -> Ref<'_, T> {
            self.inner.borrow_and_update()
        }

        /// `Receiver::has_changed`.
        pub fn has_changed(&self) -> Result<bool, RecvError> {
            self.inner.has_changed()
        }

        /// `Receiver::is_closed`.
        pub fn is_closed(&self) -> bool {
            self.inner.is_closed()
        }

        /// `Receiver::mark_changed`.
        pub fn mark_changed(&mut self) {
            self.inner.mark_changed()
        }

        /// `Receiver::mark_unchanged`.
        pub fn mark_unchanged(&mut self) {
            self.inner.mark_unchanged()
        }

        /// `Receiver::changed`: an observation, counted as a receive; the sends since
        /// the last one beyond this one are counted as coalesced.
        pub async fn changed(&mut self) -> Result<(), RecvError> {
            let r = recv_waiting(self.inner.changed()).await;
            if r.is_ok() {
                self.observe();
            }
            r
        }

        /// `Receiver::wait_for`: counted as an observation when it returns a value.
        pub async fn wait_for(
            &mut self,
            f: impl FnMut(&T) -> bool,
        ) -> Result<Ref<'_, T>, RecvError> {
            let ok = recv_waiting(self.inner.wait_for(f)).await.is_ok();
            if ok {
                self.observe();
                Ok(self.inner.borrow())
            } else {
                Err(self
                    .inner
                    .has_changed()
                    .expect_err("wait_for failed: the sender is gone"))
            }
        }

        /// `Receiver::same_channel`.
        pub fn same_channel(&self, other: &Self) -> bool {
            self.inner.same_channel(&other.inner)
        }
    }

    impl<T> Clone for Sender<T> {
        fn clone(&self) -> Self {
            Sender {
                inner: self.inner.clone(),
                inst: self.inst.clone(),
            }
        }
    }

    impl<T> Clone for Receiver<T> {
        fn clone(&self) -> Self {
            Receiver {
                inner: self.inner.clone(),
                inst: self.inst.clone(),
                seen: self.seen,
            }
        }
    }

    debug_endpoints!(Sender, Receiver);
}
