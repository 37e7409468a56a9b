//! `futures_channel::mpsc`. Queue depth from the instance's counters; a bounded
//! channel's depth is not clamped to `n`: futures-channel gives every sender one slot
//! beyond the buffer, so one sender can queue `n + 1`.

use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use futures_channel::mpsc as raw;
use futures_channel::mpsc::{RecvError, SendError, TryRecvError};

use crate::chan::{Inst, SendOp, Stamped};
use crate::depth::Depth;
use crate::instrument::{check_capacity, IntoInstrumented, Shape};
use crate::wait::{recv_waiting, wait_start};
use crate::FlowSite;

/// `futures_channel::mpsc::Sender`, instrumented; a `Sink<T>`.
pub struct Sender<T> {
    inner: raw::Sender<Stamped<T>>,
    inst: Arc<Inst>,
    /// Clock reading when `poll_ready` first returned `Pending` (the channel full).
    waiting: Option<u64>,
}

/// `futures_channel::mpsc::Receiver`, instrumented; a `Stream` of the messages.
pub struct Receiver<T> {
    inner: raw::Receiver<Stamped<T>>,
    inst: Arc<Inst>,
}

/// `futures_channel::mpsc::UnboundedSender`, instrumented; a `Sink<T>`.
pub struct UnboundedSender<T> {
    inner: raw::UnboundedSender<Stamped<T>>,
    inst: Arc<Inst>,
}

/// `futures_channel::mpsc::UnboundedReceiver`, instrumented.
pub struct UnboundedReceiver<T> {
    inner: raw::UnboundedReceiver<Stamped<T>>,
    inst: Arc<Inst>,
}

/// The error of `try_send` and `unbounded_send`: why, and the message back.
#[derive(Clone, PartialEq, Eq)]
pub struct TrySendError<T> {
    err: SendError,
    val: T,
}

/// A `SendError` of each kind (full, disconnected), made once by a real channel:
/// futures-channel does not let other crates build one.
fn kinds() -> &'static (SendError, SendError) {
    static KINDS: OnceLock<(SendError, SendError)> = OnceLock::new();
    KINDS.get_or_init(|| {
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
    })
}

impl<T> TrySendError<T> {
    fn from_raw(e: raw::TrySendError<Stamped<T>>) -> Self {
        let (full, gone) = kinds();
        let err = if e.is_full() {
            full.clone()
        } else {
            gone.clone()
        };
        TrySendError {
            err,
            val: e.into_inner().into_inner(),
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

impl<T> IntoInstrumented for (raw::Sender<Stamped<T>>, raw::Receiver<Stamped<T>>) {
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
        let mut shape = Shape::sized("futures", ctor.or(declared), Depth::Counters);
        shape.kind = "bounded";
        shape.unclamped = true;
        let inst = Inst::new::<T>(site, shape);
        (
            Sender {
                inner: self.0,
                inst: inst.clone(),
                waiting: None,
            },
            Receiver {
                inner: self.1,
                inst,
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
        let inst = Inst::new::<T>(site, Shape::sized("futures", None, Depth::Counters));
        (
            UnboundedSender {
                inner: self.0,
                inst: inst.clone(),
            },
            UnboundedReceiver {
                inner: self.1,
                inst,
            },
        )
    }
}

impl<T> Sender<T> {
    /// `Sender::try_send`: a full channel is neither a send nor an error.
    pub fn try_send(&mut self, msg: T) -> Result<(), TrySendError<T>> {
        let op = self.inst.begin_send();
        match self.inner.try_send(Inst::stamped(&op, msg)) {
            Ok(()) => {
                self.inst.sent(&op, || 0);
                Ok(())
            }
            Err(e) => {
                if e.is_full() {
                    self.inst.not_sent(&op);
                } else {
                    self.inst.send_failed(&op);
                }
                Err(TrySendError::from_raw(e))
            }
        }
    }

    /// `Sender::start_send` (after `poll_ready`).
    pub fn start_send(&mut self, msg: T) -> Result<(), SendError> {
        let op = self.inst.begin_send();
        match self.inner.start_send(Inst::stamped(&op, msg)) {
            Ok(()) => {
                self.inst.sent(&op, || 0);
                Ok(())
            }
            Err(e) => {
                if e.is_full() {
                    self.inst.not_sent(&op);
                } else {
                    self.inst.send_failed(&op);
                }
                Err(e)
            }
        }
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

    /// `Sender::is_closed`.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// `Sender::close_channel`.
    pub fn close_channel(&mut self) {
        self.inner.close_channel()
    }

    /// `Sender::disconnect`.
    pub fn disconnect(&mut self) {
        self.inner.disconnect()
    }

    /// `Sender::same_receiver`.
    pub fn same_receiver(&self, other: &Self) -> bool {
        self.inner.same_receiver(&other.inner)
    }

    /// `Sender::is_connected_to`.
    pub fn is_connected_to(&self, receiver: &Receiver<T>) -> bool {
        self.inner.is_connected_to(&receiver.inner)
    }

    /// `Sender::hash_receiver`.
    pub fn hash_receiver<H: std::hash::Hasher>(&self, hasher: &mut H) {
        self.inner.hash_receiver(hasher)
    }
}

impl<T> futures_sink::Sink<T> for Sender<T> {
    type Error = SendError;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        Sender::poll_ready(self.get_mut(), cx)
    }

    fn start_send(self: Pin<&mut Self>, msg: T) -> Result<(), SendError> {
        Sender::start_send(self.get_mut(), msg)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        Pin::new(&mut self.get_mut().inner).poll_close(cx)
    }
}

impl<T> UnboundedSender<T> {
    /// `UnboundedSender::unbounded_send`: fails when the receiver is gone.
    pub fn unbounded_send(&self, msg: T) -> Result<(), TrySendError<T>> {
        let op = self.inst.begin_send();
        match self.inner.unbounded_send(Inst::stamped(&op, msg)) {
            Ok(()) => {
                self.inst.sent(&op, || 0);
                Ok(())
            }
            Err(e) => {
                self.inst.send_failed(&op);
                Err(TrySendError::from_raw(e))
            }
        }
    }

    /// `UnboundedSender::start_send`.
    pub fn start_send(&mut self, msg: T) -> Result<(), SendError> {
        let op = self.inst.begin_send();
        match self.inner.start_send(Inst::stamped(&op, msg)) {
            Ok(()) => {
                self.inst.sent(&op, || 0);
                Ok(())
            }
            Err(e) => {
                self.inst.send_failed(&op);
                Err(e)
            }
        }
    }

    /// `UnboundedSender::poll_ready`.
    pub fn poll_ready(&self, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        self.inner.poll_ready(cx)
    }

    /// `UnboundedSender::is_closed`.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// `UnboundedSender::close_channel`.
    pub fn close_channel(&self) {
        self.inner.close_channel()
    }

    /// `UnboundedSender::disconnect`.
    pub fn disconnect(&mut self) {
        self.inner.disconnect()
    }

    /// `UnboundedSender::same_receiver`.
    pub fn same_receiver(&self, other: &Self) -> bool {
        self.inner.same_receiver(&other.inner)
    }

    /// `UnboundedSender::is_connected_to`.
    pub fn is_connected_to(&self, receiver: &UnboundedReceiver<T>) -> bool {
        self.inner.is_connected_to(&receiver.inner)
    }

    /// `UnboundedSender::hash_receiver`.
    pub fn hash_receiver<H: std::hash::Hasher>(&self, hasher: &mut H) {
        self.inner.hash_receiver(hasher)
    }

    /// `UnboundedSender::len`.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// `UnboundedSender::is_empty`.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }
}

impl<T> futures_sink::Sink<T> for UnboundedSender<T> {
    type Error = SendError;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        UnboundedSender::poll_ready(&*self, cx)
    }

    fn start_send(self: Pin<&mut Self>, msg: T) -> Result<(), SendError> {
        UnboundedSender::start_send(self.get_mut(), msg)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        Pin::new(&mut self.get_mut().inner).poll_close(cx)
    }
}

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

            /// `close`.
            pub fn close(&mut self) {
                self.inner.close()
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
