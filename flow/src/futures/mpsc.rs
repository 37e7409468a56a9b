//! `futures_channel::mpsc`. Queue depth from the instance's counters; a bounded
//! channel's depth is not clamped to `n`: futures-channel gives every sender one slot
//! beyond the buffer, so one sender can queue `n + 1`.

use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};

use futures_channel::mpsc as raw;
use futures_channel::mpsc::{RecvError, SendError, TryRecvError};
use hotpath_core::InternalArc;

use crate::chan::{Inst, SendOp, Stamped, TrySend};
use crate::depth::Depth;
use crate::instrument::{ctor_capacity, Shape};
use crate::wait::{recv_waiting, wait_start};

/// `futures_channel::mpsc::Sender`, instrumented; a `Sink<T>`.
pub struct Sender<T> {
    inner: raw::Sender<Stamped<T>>,
    inst: InternalArc<Inst>,
    /// Clock reading when `poll_ready` first returned `Pending` (the channel full).
    waiting: Option<u64>,
}

endpoints! {
    /// `futures_channel::mpsc::Receiver`, instrumented; a `Stream` of the messages.
    Receiver(raw::Receiver<Stamped<T>>);
    /// `futures_channel::mpsc::UnboundedSender`, instrumented; a `Sink<T>`.
    UnboundedSender(raw::UnboundedSender<Stamped<T>>);
    /// `futures_channel::mpsc::UnboundedReceiver`, instrumented.
    UnboundedReceiver(raw::UnboundedReceiver<Stamped<T>>);
}

/// The error of `try_send` and `unbounded_send`: why, and the message back.
#[derive(Clone, PartialEq, Eq)]
pub struct TrySendError<T> {
    err: SendError,
    val: T,
}

/// A `SendError` of each kind (full, disconnected), made once by a real channel:
/// futures-channel does not let other crates build one. That channel is the profiler's
/// (made under `internal`), not the program's whose send was refused.
fn kinds() -> &'static (SendError, SendError) {
    static KINDS: OnceLock<(SendError, SendError)> = OnceLock::new();
    KINDS.get_or_init(|| hotpath_core::internal(kinds_made))
}

fn kinds_made() -> (SendError, SendError) {
    let (mut tx, rx) = raw::channel::<()>(0);
    // One slot per sender: the second send finds the channel full.
    let _ = tx.try_send(());
    let full = tx.try_send(()).map_err(|e| e.into_send_error());
    drop(rx);
    let gone = tx.try_send(()).map_err(|e| e.into_send_error());
    match (full, gone) {
        (Err(full), Err(gone)) => (full, gone),
        _ => unreachable!("futures-channel: a full and a closed channel refuse sends"),
    }
}

impl<T> TrySendError<T> {
    /// `val` refused by a full channel.
    fn full(val: T) -> Self {
        TrySendError {
            err: kinds().0.clone(),
            val,
        }
    }

    /// `val` refused by a channel whose receiver is gone.
    fn disconnected(val: T) -> Self {
        TrySendError {
            err: kinds().1.clone(),
            val,
        }
    }

    /// The channel was full.
    pub fn is_full(&self) -> bool {
        self.err.is_full()
    }

    /// The receiver was gone.
    pub fn is_disconnected(&self) -> bool {
        self.err.is_disconnected()
    }

    /// The message that was not sent.
    pub fn into_inner(self) -> T {
        self.val
    }

    /// The error without the message.
    pub fn into_send_error(self) -> SendError {
        self.err
    }
}

/// As futures-channel's: `TrySendError { kind: Full }`.
impl<T> std::fmt::Debug for TrySendError<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.is_full() {
            "Full"
        } else {
            "Disconnected"
        };
        f.debug_struct("TrySendError")
            .field("kind", &format_args!("{kind}"))
            .finish()
    }
}

impl<T> std::fmt::Display for TrySendError<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_full() {
            write!(f, "send failed because channel is full")
        } else {
            write!(f, "send failed because receiver is gone")
        }
    }
}

impl<T: core::any::Any> std::error::Error for TrySendError<T> {}

instrument! {
    impl<T> for (raw::Sender<Stamped<T>>, raw::Receiver<Stamped<T>>) =>
        (Sender { waiting: None }, Receiver),
    |_, site, ctor, declared| Shape {
        kind: "bounded",
        unclamped: true,
        ..Shape::sized("futures", ctor_capacity(site, ctor, declared), Depth::Counters)
    }
}

instrument! {
    impl<T> for (raw::UnboundedSender<Stamped<T>>, raw::UnboundedReceiver<Stamped<T>>) =>
        (UnboundedSender, UnboundedReceiver),
    |_, site, _, declared| Shape::checked("futures", site, None, declared, Depth::Counters)
}

// futures-channel's refusals are errors that say whether the channel was full: a
// `TrySendError` gives the message back, a `SendError` (`start_send`) does not, so it is
// itself what the refused send gives back. An unbounded channel is never full.

impl<M> From<Result<(), raw::TrySendError<M>>> for TrySend<M> {
    #[inline(always)]
    fn from(r: Result<(), raw::TrySendError<M>>) -> Self {
        match r {
            Ok(()) => TrySend::Sent,
            Err(e) if e.is_full() => TrySend::Full(e.into_inner()),
            Err(e) => TrySend::Closed(e.into_inner()),
        }
    }
}

impl From<Result<(), SendError>> for TrySend<SendError> {
    #[inline(always)]
    fn from(r: Result<(), SendError>) -> Self {
        match r {
            Ok(()) => TrySend::Sent,
            Err(e) if e.is_full() => TrySend::Full(e),
            Err(e) => TrySend::Closed(e),
        }
    }
}

impl<T> Sender<T> {
    /// `Sender::try_send`: a full channel is neither a send nor an error.
    pub fn try_send(&mut self, msg: T) -> Result<(), TrySendError<T>> {
        // `try_send_with` written out: with futures-channel's `try_send` inlined, the
        // closure kept one more pointer live across it, 12 more instructions per message
        // (callgrind, one codegen unit); the steps are the same.
        let op = self.inst.begin_send();
        let r = self.inner.try_send(Inst::stamped(&op, msg));
        self.inst
            .record(&op, r.into(), || 0)
            .into_result(TrySendError::full, TrySendError::disconnected)
    }

    /// `Sender::poll_ready`: `Pending` while the channel is full (measured as a
    /// blocked send until it is ready).
    pub fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        let p = self.inner.poll_ready(cx);
        match &p {
            Poll::Pending => {
                if self.waiting.is_none() {
                    self.waiting = Some(wait_start());
                }
            }
            Poll::Ready(_) => {
                if let Some(t0) = self.waiting.take() {
                    self.inst.blocked(&SendOp::untimed(), t0);
                }
            }
        }
        p
    }

    forward! { Sender(inner):
        fn close_channel(&mut self);
    }
}

impl<T> UnboundedSender<T> {
    /// `UnboundedSender::unbounded_send`: fails when the receiver is gone.
    pub fn unbounded_send(&self, msg: T) -> Result<(), TrySendError<T>> {
        self.inst
            .try_send_with(msg, |m| self.inner.unbounded_send(m), || 0)
            .into_result(TrySendError::full, TrySendError::disconnected)
    }

    forward! { UnboundedSender(inner):
        fn poll_ready(&self, cx: &mut Context<'_>) -> Poll<Result<(), SendError>>;
        fn close_channel(&self);
        fn len(&self) -> usize;
        fn is_empty(&self) -> bool;
    }
}

/// What both senders have: `start_send`, the queries about their receiver, and `Sink<T>`
/// through their own `poll_ready` and `start_send`.
macro_rules! sender {
    ($ty:ident, $rx:ident) => {
        impl<T> $ty<T> {
            /// `start_send` (after `poll_ready`).
            pub fn start_send(&mut self, msg: T) -> Result<(), SendError> {
                self.inst
                    .try_send_with(msg, |m| self.inner.start_send(m), || 0)
                    .or_refusal(std::convert::identity)
            }

            forward! { $ty(inner):
                fn is_closed(&self) -> bool;
                fn disconnect(&mut self);
            }

            /// `same_receiver`.
            pub fn same_receiver(&self, other: &Self) -> bool {
                self.inner.same_receiver(&other.inner)
            }

            /// `is_connected_to`.
            pub fn is_connected_to(&self, receiver: &$rx<T>) -> bool {
                self.inner.is_connected_to(&receiver.inner)
            }

            /// `hash_receiver`.
            pub fn hash_receiver<H: std::hash::Hasher>(&self, hasher: &mut H) {
                self.inner.hash_receiver(hasher)
            }
        }

        impl<T> futures_sink::Sink<T> for $ty<T> {
            type Error = SendError;

            fn poll_ready(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
            ) -> Poll<Result<(), SendError>> {
                $ty::poll_ready(self.get_mut(), cx)
            }

            fn start_send(self: Pin<&mut Self>, msg: T) -> Result<(), SendError> {
                $ty::start_send(self.get_mut(), msg)
            }

            fn poll_flush(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
            ) -> Poll<Result<(), SendError>> {
                Pin::new(&mut self.get_mut().inner).poll_flush(cx)
            }

            fn poll_close(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
            ) -> Poll<Result<(), SendError>> {
                Pin::new(&mut self.get_mut().inner).poll_close(cx)
            }
        }
    };
}

sender!(Sender, Receiver);
sender!(UnboundedSender, UnboundedReceiver);

impl<T> futures_sink::Sink<T> for &UnboundedSender<T> {
    type Error = SendError;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        UnboundedSender::poll_ready(*self, cx)
    }

    fn start_send(self: Pin<&mut Self>, msg: T) -> Result<(), SendError> {
        self.unbounded_send(msg)
            .map_err(TrySendError::into_send_error)
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        self.close_channel();
        Poll::Ready(Ok(()))
    }
}

macro_rules! receiver {
    ($ty:ident) => {
        impl<T> $ty<T> {
            /// `recv`: the next message, or `RecvError` once the channel is closed
            /// and empty (the wait is charged to the function).
            pub async fn recv(&mut self) -> Result<T, RecvError> {
                let r = recv_waiting(self.inner.recv()).await;
                r.map(|m| self.inst.received(m))
            }

            forward! { $ty(inner):
                fn close(&mut self);
            }

            /// `try_next`.
            #[allow(deprecated)]
            pub fn try_next(&mut self) -> Result<Option<T>, TryRecvError> {
                let inst = &*self.inst;
                self.inner.try_next().map(|o| o.map(|m| inst.received(m)))
            }

            /// `try_recv`.
            pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
                self.inner.try_recv().map(|m| self.inst.received(m))
            }
        }

        impl<T> futures_core::Stream for $ty<T> {
            type Item = T;

            fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
                let this = self.get_mut();
                let inst = &*this.inst;
                Pin::new(&mut this.inner)
                    .poll_next(cx)
                    .map(|o| o.map(|m| inst.received(m)))
            }

            fn size_hint(&self) -> (usize, Option<usize>) {
                self.inner.size_hint()
            }
        }

        impl<T> futures_core::stream::FusedStream for $ty<T> {
            fn is_terminated(&self) -> bool {
                self.inner.is_terminated()
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

receiver!(Receiver);
receiver!(UnboundedReceiver);

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        Sender {
            inner: self.inner.clone(),
            inst: self.inst.clone(),
            waiting: None,
        }
    }
}

clone_endpoints!(UnboundedSender);
debug_endpoints!(Sender, UnboundedSender);
