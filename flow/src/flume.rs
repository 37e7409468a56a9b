//! flume: `bounded(n)` and `unbounded()`, with its async futures, stream, sink and
//! drain. Queue depth from `len()` (which takes flume's lock).
//!
//! One method of flume is not offered: `SendSink::sender`, which lends the `Sender` a
//! sink was made from. A sink made by `into_sink` owns flume's sender inside flume's
//! sink, so there is no instrumented `Sender` to lend without a second sender, which
//! would change `sender_count` and when the channel disconnects.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use flume::r#async as raw_async;
use flume::{RecvError, RecvTimeoutError, SendError, SendTimeoutError, TryRecvError, TrySendError};

use crate::chan::{Inst, SendOp, Stamped};
use crate::depth::Depth;
use crate::instrument::{check_capacity, IntoInstrumented, Shape};
use crate::wait::{recv_waited, wait_start};
use crate::FlowSite;

/// `flume::Sender`, instrumented.
pub struct Sender<T> {
    inner: flume::Sender<Stamped<T>>,
    inst: Arc<Inst>,
}

/// `flume::WeakSender`, instrumented.
pub struct WeakSender<T> {
    inner: flume::WeakSender<Stamped<T>>,
    inst: Arc<Inst>,
}

/// `flume::Receiver`, instrumented.
pub struct Receiver<T> {
    // `None` only once an `into_*` method took it.
    inner: Option<flume::Receiver<Stamped<T>>>,
    inst: Arc<Inst>,
}

impl<T> IntoInstrumented for (flume::Sender<Stamped<T>>, flume::Receiver<Stamped<T>>) {
    type Wrapped = (Sender<T>, Receiver<T>);

    fn instrument(
        self,
        site: &'static FlowSite,
        _: Option<usize>,
        declared: Option<usize>,
    ) -> Self::Wrapped {
        let cap = self.0.capacity();
        check_capacity(site, cap, declared);
        let inst = Inst::new::<T>(site, Shape::sized("flume", cap, Depth::Len));
        (
            Sender {
                inner: self.0,
                inst: inst.clone(),
            },
            Receiver {
                inner: Some(self.1),
                inst,
            },
        )
    }
}

fn unstamp_timeout<T>(e: SendTimeoutError<Stamped<T>>) -> SendTimeoutError<T> {
    match e {
        SendTimeoutError::Timeout(m) => SendTimeoutError::Timeout(m.into_inner()),
        SendTimeoutError::Disconnected(m) => SendTimeoutError::Disconnected(m.into_inner()),
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

    fn send_with<E>(
        &self,
        t: T,
        wait: impl FnOnce(Stamped<T>) -> Result<(), E>,
        disconnected: impl FnOnce(T) -> E,
        timed_out: impl Fn(&E) -> bool,
    ) -> Result<(), E> {
        let op = self.inst.begin_send();
        match self.inner.try_send(Inst::stamped(&op, t)) {
            Ok(()) => self.done(&op, Ok(())),
            Err(TrySendError::Full(m)) => {
                let t0 = wait_start();
                let r = wait(m);
                self.inst.blocked(&op, t0);
                if r.as_ref().err().is_some_and(&timed_out) {
                    return r;
                }
                self.done(&op, r)
            }
            Err(TrySendError::Disconnected(m)) => {
                self.inst.send_failed(&op);
                Err(disconnected(m.into_inner()))
            }
        }
    }

    /// `Sender::send`: waits for room when the channel is full (measured).
    pub fn send(&self, msg: T) -> Result<(), SendError<T>> {
        self.send_with(
            msg,
            |m| {
                self.inner
                    .send(m)
                    .map_err(|SendError(m)| SendError(m.into_inner()))
            },
            SendError,
            |_| false,
        )
    }

    /// `Sender::try_send`: `Full` is neither a send nor an error.
    pub fn try_send(&self, msg: T) -> Result<(), TrySendError<T>> {
        let op = self.inst.begin_send();
        match self.inner.try_send(Inst::stamped(&op, msg)) {
            Ok(()) => self.done(&op, Ok(())),
            Err(TrySendError::Full(m)) => Err(TrySendError::Full(m.into_inner())),
            Err(TrySendError::Disconnected(m)) => {
                self.inst.send_failed(&op);
                Err(TrySendError::Disconnected(m.into_inner()))
            }
        }
    }

    /// `Sender::send_timeout`.
    pub fn send_timeout(&self, msg: T, dur: Duration) -> Result<(), SendTimeoutError<T>> {
        self.send_with(
            msg,
            |m| self.inner.send_timeout(m, dur).map_err(unstamp_timeout),
            SendTimeoutError::Disconnected,
            |e| matches!(e, SendTimeoutError::Timeout(_)),
        )
    }

    /// `Sender::send_deadline`.
    pub fn send_deadline(&self, msg: T, deadline: Instant) -> Result<(), SendTimeoutError<T>> {
        self.send_with(
            msg,
            |m| {
                self.inner
                    .send_deadline(m, deadline)
                    .map_err(unstamp_timeout)
            },
            SendTimeoutError::Disconnected,
            |e| matches!(e, SendTimeoutError::Timeout(_)),
        )
    }

    /// `Sender::send_async`: a future of the send.
    pub fn send_async(&self, item: T) -> SendFut<'_, T> {
        let op = self.inst.begin_send();
        SendFut {
            inner: self.inner.send_async(Inst::stamped(&op, item)),
            inst: self.inst.clone(),
            op,
            waiting: None,
        }
    }

    /// `Sender::into_send_async`.
    pub fn into_send_async<'a>(self, item: T) -> SendFut<'a, T> {
        let op = self.inst.begin_send();
        SendFut {
            inner: self.inner.into_send_async(Inst::stamped(&op, item)),
            inst: self.inst,
            op,
            waiting: None,
        }
    }

    /// `Sender::sink`.
    pub fn sink(&self) -> SendSink<'_, T> {
        SendSink {
            inner: self.inner.sink(),
            inst: self.inst.clone(),
        }
    }

    /// `Sender::into_sink`.
    pub fn into_sink<'a>(self) -> SendSink<'a, T> {
        SendSink {
            inner: self.inner.into_sink(),
            inst: self.inst,
        }
    }

    /// `Sender::is_disconnected`.
    pub fn is_disconnected(&self) -> bool {
        self.inner.is_disconnected()
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

    /// `Sender::sender_count`.
    pub fn sender_count(&self) -> usize {
        self.inner.sender_count()
    }

    /// `Sender::receiver_count`.
    pub fn receiver_count(&self) -> usize {
        self.inner.receiver_count()
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

impl<T> WeakSender<T> {
    /// `WeakSender::upgrade`.
    pub fn upgrade(&self) -> Option<Sender<T>> {
        self.inner.upgrade().map(|inner| Sender {
            inner,
            inst: self.inst.clone(),
        })
    }
}

/// `flume::r#async::SendFut`, instrumented.
pub struct SendFut<'a, T> {
    inner: raw_async::SendFut<'a, Stamped<T>>,
    inst: Arc<Inst>,
    op: SendOp,
    waiting: Option<u64>,
}

impl<T> SendFut<'_, T> {
    /// `SendFut::is_disconnected`.
    pub fn is_disconnected(&self) -> bool {
        self.inner.is_disconnected()
    }

    /// `SendFut::is_empty`.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// `SendFut::is_full`.
    pub fn is_full(&self) -> bool {
        self.inner.is_full()
    }

    /// `SendFut::len`.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// `SendFut::capacity`.
    pub fn capacity(&self) -> Option<usize> {
        self.inner.capacity()
    }
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
                Poll::Ready(match r {
                    Ok(()) => {
                        this.inst.sent(&this.op, || this.inner.len());
                        Ok(())
                    }
                    Err(SendError(m)) => {
                        this.inst.send_failed(&this.op);
                        Err(SendError(m.into_inner()))
                    }
                })
            }
        }
    }
}

impl<T> futures_core::FusedFuture for SendFut<'_, T> {
    fn is_terminated(&self) -> bool {
        self.inner.is_terminated()
    }
}

/// `flume::r#async::SendSink`, instrumented: a `Sink<T>`.
pub struct SendSink<'a, T> {
    inner: raw_async::SendSink<'a, Stamped<T>>,
    inst: Arc<Inst>,
}

impl<T> SendSink<'_, T> {
    /// `SendSink::is_disconnected`.
    pub fn is_disconnected(&self) -> bool {
        self.inner.is_disconnected()
    }

    /// `SendSink::is_empty`.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// `SendSink::is_full`.
    pub fn is_full(&self) -> bool {
        self.inner.is_full()
    }

    /// `SendSink::len`.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// `SendSink::capacity`.
    pub fn capacity(&self) -> Option<usize> {
        self.inner.capacity()
    }

    /// `SendSink::same_channel`.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.inner.same_channel(&other.inner)
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

    fn start_send(mut self: Pin<&mut Self>, item: T) -> Result<(), Self::Error> {
        let op = self.inst.begin_send();
        let r = Pin::new(&mut self.inner).start_send(Inst::stamped(&op, item));
        match r {
            Ok(()) => {
                self.inst.sent(&op, || self.inner.len());
                Ok(())
            }
            Err(e) => {
                self.inst.send_failed(&op);
                Err(unstamp_send(e))
            }
        }
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

impl<T> Clone for SendSink<'_, T> {
    fn clone(&self) -> Self {
        SendSink {
            inner: self.inner.clone(),
            inst: self.inst.clone(),
        }
    }
}

impl<T> Receiver<T> {
    fn rx(&self) -> &flume::Receiver<Stamped<T>> {
        self.inner
            .as_ref()
            .expect("the receiver is only taken by the methods that consume it")
    }

    /// Gives up the raw receiver to an owning adapter, which then counts what it leaves.
    fn take(mut self) -> (flume::Receiver<Stamped<T>>, Arc<Inst>) {
        let rx = self.inner.take().expect("not taken yet");
        (rx, self.inst.clone())
    }

    /// `Receiver::try_recv`.
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        self.rx().try_recv().map(|m| self.inst.received(m))
    }

    fn recv_with<E>(
        &self,
        disconnected: E,
        wait: impl FnOnce(&flume::Receiver<Stamped<T>>) -> Result<Stamped<T>, E>,
    ) -> Result<T, E> {
        match self.rx().try_recv() {
            Ok(m) => Ok(self.inst.received(m)),
            Err(TryRecvError::Disconnected) => Err(disconnected),
            Err(TryRecvError::Empty) => {
                let t0 = wait_start();
                let r = wait(self.rx());
                recv_waited(t0);
                r.map(|m| self.inst.received(m))
            }
        }
    }

    /// `Receiver::recv`: waits for a message (charged to the function).
    pub fn recv(&self) -> Result<T, RecvError> {
        self.recv_with(RecvError::Disconnected, |rx| rx.recv())
    }

    /// `Receiver::recv_timeout`.
    pub fn recv_timeout(&self, dur: Duration) -> Result<T, RecvTimeoutError> {
        self.recv_with(RecvTimeoutError::Disconnected, |rx| rx.recv_timeout(dur))
    }

    /// `Receiver::recv_deadline`.
    pub fn recv_deadline(&self, deadline: Instant) -> Result<T, RecvTimeoutError> {
        self.recv_with(RecvTimeoutError::Disconnected, |rx| {
            rx.recv_deadline(deadline)
        })
    }

    /// `Receiver::recv_async`: a future of the next message.
    pub fn recv_async(&self) -> RecvFut<'_, T> {
        RecvFut {
            inner: self.rx().recv_async(),
            inst: self.inst.clone(),
            owner: false,
            waiting: None,
        }
    }

    /// `Receiver::into_recv_async`.
    pub fn into_recv_async<'a>(self) -> RecvFut<'a, T> {
        let (rx, inst) = self.take();
        RecvFut {
            inner: rx.into_recv_async(),
            inst,
            owner: true,
            waiting: None,
        }
    }

    /// `Receiver::stream`: the messages as a `Stream`.
    pub fn stream(&self) -> RecvStream<'_, T> {
        RecvStream {
            inner: self.rx().stream(),
            inst: self.inst.clone(),
            owner: false,
        }
    }

    /// `Receiver::into_stream`.
    pub fn into_stream<'a>(self) -> RecvStream<'a, T> {
        let (rx, inst) = self.take();
        RecvStream {
            inner: rx.into_stream(),
            inst,
            owner: true,
        }
    }

    /// `Receiver::iter`.
    pub fn iter(&self) -> Iter<'_, T> {
        Iter { rx: self }
    }

    /// `Receiver::try_iter`.
    pub fn try_iter(&self) -> TryIter<'_, T> {
        TryIter { rx: self }
    }

    /// `Receiver::drain`: the messages there now.
    pub fn drain(&self) -> Drain<'_, T> {
        Drain {
            inner: self.rx().drain(),
            inst: &self.inst,
        }
    }

    /// `Receiver::is_disconnected`.
    pub fn is_disconnected(&self) -> bool {
        self.rx().is_disconnected()
    }

    /// `Receiver::is_empty`.
    pub fn is_empty(&self) -> bool {
        self.rx().is_empty()
    }

    /// `Receiver::is_full`.
    pub fn is_full(&self) -> bool {
        self.rx().is_full()
    }

    /// `Receiver::len`.
    pub fn len(&self) -> usize {
        self.rx().len()
    }

    /// `Receiver::capacity`.
    pub fn capacity(&self) -> Option<usize> {
        self.rx().capacity()
    }

    /// `Receiver::sender_count`.
    pub fn sender_count(&self) -> usize {
        self.rx().sender_count()
    }

    /// `Receiver::receiver_count`.
    pub fn receiver_count(&self) -> usize {
        self.rx().receiver_count()
    }

    /// `Receiver::same_channel`.
    pub fn same_channel(&self, other: &Receiver<T>) -> bool {
        self.rx().same_channel(other.rx())
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        if let Some(rx) = &self.inner {
            self.inst.receiver_dropped(|| rx.len());
        }
    }
}

/// `flume::r#async::RecvFut`, instrumented.
pub struct RecvFut<'a, T> {
    inner: raw_async::RecvFut<'a, Stamped<T>>,
    inst: Arc<Inst>,
    /// Made by `into_recv_async`: it holds a receiver endpoint.
    owner: bool,
    waiting: Option<u64>,
}

impl<T> RecvFut<'_, T> {
    /// `RecvFut::is_disconnected`.
    pub fn is_disconnected(&self) -> bool {
        self.inner.is_disconnected()
    }

    /// `RecvFut::is_empty`.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// `RecvFut::is_full`.
    pub fn is_full(&self) -> bool {
        self.inner.is_full()
    }

    /// `RecvFut::len`.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// `RecvFut::capacity`.
    pub fn capacity(&self) -> Option<usize> {
        self.inner.capacity()
    }
}

impl<T> Future for RecvFut<'_, T> {
    type Output = Result<T, RecvError>;

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

/// `flume::r#async::RecvStream`, instrumented: the messages as a `Stream`.
pub struct RecvStream<'a, T> {
    inner: raw_async::RecvStream<'a, Stamped<T>>,
    inst: Arc<Inst>,
    owner: bool,
}

impl<T> RecvStream<'_, T> {
    /// `RecvStream::is_disconnected`.
    pub fn is_disconnected(&self) -> bool {
        self.inner.is_disconnected()
    }

    /// `RecvStream::is_empty`.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// `RecvStream::is_full`.
    pub fn is_full(&self) -> bool {
        self.inner.is_full()
    }

    /// `RecvStream::len`.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// `RecvStream::capacity`.
    pub fn capacity(&self) -> Option<usize> {
        self.inner.capacity()
    }

    /// `RecvStream::same_channel`.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.inner.same_channel(&other.inner)
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
        RecvStream {
            inner: self.inner.clone(),
            inst: self.inst.clone(),
            owner: true,
        }
    }
}

impl<T> Drop for RecvStream<'_, T> {
    fn drop(&mut self) {
        if self.owner {
            self.inst.receiver_dropped(|| self.inner.len());
        }
    }
}

/// `flume::Drain`, instrumented.
pub struct Drain<'a, T> {
    inner: flume::Drain<'a, Stamped<T>>,
    inst: &'a Inst,
}

impl<T> Iterator for Drain<'_, T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.inner.next().map(|m| self.inst.received(m))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<T> ExactSizeIterator for Drain<'_, T> {}

/// `Receiver::iter`'s iterator.
pub struct Iter<'a, T> {
    rx: &'a Receiver<T>,
}

impl<T> Iterator for Iter<'_, T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.rx.recv().ok()
    }
}

/// `Receiver::try_iter`'s iterator.
pub struct TryIter<'a, T> {
    rx: &'a Receiver<T>,
}

impl<T> Iterator for TryIter<'_, T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.rx.try_recv().ok()
    }
}

/// The owning iterator of a receiver.
pub struct IntoIter<T> {
    rx: Receiver<T>,
}

impl<T> Iterator for IntoIter<T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.rx.recv().ok()
    }
}

impl<T> IntoIterator for Receiver<T> {
    type Item = T;
    type IntoIter = IntoIter<T>;
    fn into_iter(self) -> IntoIter<T> {
        IntoIter { rx: self }
    }
}

impl<'a, T> IntoIterator for &'a Receiver<T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;
    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

clone_endpoints!(Sender, WeakSender);

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Self {
        self.inst.add_receiver();
        Receiver {
            inner: Some(self.rx().clone()),
            inst: self.inst.clone(),
        }
    }
}

debug_opaque!(
    SendFut<'_>,
    SendSink<'_>,
    RecvFut<'_>,
    RecvStream<'_>,
    Drain<'_>,
    Iter<'_>,
    TryIter<'_>,
    IntoIter
);

debug_endpoints!(Sender, WeakSender, Receiver);
