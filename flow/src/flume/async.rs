//! flume's async adapters (`flume::r#async`), instrumented: the send future and sink,
//! the receive future and stream. Each polls flume's own adapter exactly once per poll.

use hotpath_core::InternalArc;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use flume::r#async as raw_async;
use flume::SendError;

use crate::chan::{Inst, SendOp, Stamped};
use crate::wait::{poll_waiting, wait_start};

/// `flume::r#async::SendFut`, instrumented.
pub struct SendFut<'a, T> {
    inner: raw_async::SendFut<'a, Stamped<T>>,
    inst: InternalArc<Inst>,
    op: SendOp,
    waiting: Option<u64>,
}

/// `flume::r#async::SendSink`, instrumented: a `Sink<T>`.
pub struct SendSink<'a, T> {
    inner: raw_async::SendSink<'a, Stamped<T>>,
    inst: InternalArc<Inst>,
}

/// `flume::r#async::RecvFut`, instrumented.
pub struct RecvFut<'a, T> {
    inner: raw_async::RecvFut<'a, Stamped<T>>,
    inst: InternalArc<Inst>,
    /// Made by `into_recv_async`: it holds a receiver endpoint.
    owner: bool,
    waiting: Option<u64>,
}

/// `flume::r#async::RecvStream`, instrumented: the messages as a `Stream`.
pub struct RecvStream<'a, T> {
    inner: raw_async::RecvStream<'a, Stamped<T>>,
    inst: InternalArc<Inst>,
    /// Made by `into_stream` or a clone: it holds a receiver endpoint.
    owner: bool,
}

impl<'a, T> SendFut<'a, T> {
    /// The send of `item` as `send` makes flume's future of it, stamped.
    pub(super) fn new(
        inst: InternalArc<Inst>,
        send: impl FnOnce(Stamped<T>) -> raw_async::SendFut<'a, Stamped<T>>,
        item: T,
    ) -> Self {
        let op = inst.begin_send();
        SendFut {
            inner: send(Inst::stamped(&op, item)),
            inst,
            op,
            waiting: None,
        }
    }

    channel_queries!(SendFut(inner));
}

impl<T> Future for SendFut<'_, T> {
    type Output = Result<(), SendError<T>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll(cx) {
            Poll::Pending => {
                if this.waiting.is_none() && this.inner.is_full() {
                    this.waiting = Some(wait_start());
                }
                Poll::Pending
            }
            Poll::Ready(r) => {
                this.op.here_again();
                if let Some(t0) = this.waiting.take() {
                    this.inst.blocked(&this.op, t0);
                }
                let inner = &this.inner;
                Poll::Ready(
                    this.inst
                        .record(&this.op, r.into(), || inner.len())
                        .into_result(SendError, SendError),
                )
            }
        }
    }
}

impl<T> futures_core::FusedFuture for SendFut<'_, T> {
    fn is_terminated(&self) -> bool {
        self.inner.is_terminated()
    }
}

impl<'a, T> SendSink<'a, T> {
    pub(super) fn new(inner: raw_async::SendSink<'a, Stamped<T>>, inst: InternalArc<Inst>) -> Self {
        SendSink { inner, inst }
    }

    channel_queries!(SendSink(inner));

    forward! { SendSink(inner):
        fn same_channel(&self, other: &Self) -> bool;
    }
}

fn unstamp_send<T>(e: SendError<Stamped<T>>) -> SendError<T> {
    SendError(e.0.into_inner())
}

impl<T> futures_sink::Sink<T> for SendSink<'_, T> {
    type Error = SendError<T>;

    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Pin::new(&mut self.inner)
            .poll_ready(cx)
            .map_err(unstamp_send)
    }

    fn start_send(self: Pin<&mut Self>, item: T) -> Result<(), Self::Error> {
        let this = self.get_mut();
        let op = this.inst.begin_send();
        let r = Pin::new(&mut this.inner).start_send(Inst::stamped(&op, item));
        this.inst
            .record(&op, r.into(), || this.inner.len())
            .into_result(SendError, SendError)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Pin::new(&mut self.inner)
            .poll_flush(cx)
            .map_err(unstamp_send)
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Pin::new(&mut self.inner)
            .poll_close(cx)
            .map_err(unstamp_send)
    }
}

impl<'a, T> RecvFut<'a, T> {
    pub(super) fn new(
        inner: raw_async::RecvFut<'a, Stamped<T>>,
        inst: InternalArc<Inst>,
        owner: bool,
    ) -> Self {
        RecvFut {
            inner,
            inst,
            owner,
            waiting: None,
        }
    }

    channel_queries!(RecvFut(inner));
}

impl<T> Future for RecvFut<'_, T> {
    type Output = Result<T, flume::RecvError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let inst = &*this.inst;
        poll_waiting(&mut this.waiting, Pin::new(&mut this.inner).poll(cx))
            .map(|r| r.map(|m| inst.received(m)))
    }
}

impl<T> futures_core::FusedFuture for RecvFut<'_, T> {
    fn is_terminated(&self) -> bool {
        self.inner.is_terminated()
    }
}

impl<T> Drop for RecvFut<'_, T> {
    fn drop(&mut self) {
        if self.owner {
            self.inst.receiver_dropped(|| self.inner.len());
        }
    }
}

impl<'a, T> RecvStream<'a, T> {
    pub(super) fn new(
        inner: raw_async::RecvStream<'a, Stamped<T>>,
        inst: InternalArc<Inst>,
        owner: bool,
    ) -> Self {
        RecvStream { inner, inst, owner }
    }

    channel_queries!(RecvStream(inner));

    forward! { RecvStream(inner):
        fn same_channel(&self, other: &Self) -> bool;
    }
}

impl<T> futures_core::Stream for RecvStream<'_, T> {
    type Item = T;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let this = self.get_mut();
        Pin::new(&mut this.inner)
            .poll_next(cx)
            .map(|o| o.map(|m| this.inst.received(m)))
    }
}

impl<T> futures_core::stream::FusedStream for RecvStream<'_, T> {
    fn is_terminated(&self) -> bool {
        self.inner.is_terminated()
    }
}

impl<T> Clone for RecvStream<'_, T> {
    /// As flume's: the clone holds a receiver endpoint of its own.
    fn clone(&self) -> Self {
        self.inst.add_receiver();
        RecvStream::new(self.inner.clone(), self.inst.clone(), true)
    }
}

impl<T> Drop for RecvStream<'_, T> {
    fn drop(&mut self) {
        if self.owner {
            self.inst.receiver_dropped(|| self.inner.len());
        }
    }
}

impl<T> Clone for SendSink<'_, T> {
    fn clone(&self) -> Self {
        SendSink::new(self.inner.clone(), self.inst.clone())
    }
}

debug_opaque!(SendFut<'_>, SendSink<'_>, RecvFut<'_>, RecvStream<'_>);
