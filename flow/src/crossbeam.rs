//! crossbeam-channel: `bounded(n)` and `unbounded()`. Queue depth from `len()`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel as raw;
use crossbeam_channel::{
    RecvError, RecvTimeoutError, SendError, SendTimeoutError, TryRecvError, TrySendError,
};

use crate::chan::{Inst, SendOp, Stamped};
use crate::depth::Depth;
use crate::instrument::{check_capacity, IntoInstrumented, Shape};
use crate::wait::{recv_waited, wait_start};
use crate::FlowSite;

/// `crossbeam_channel::Sender`, instrumented.
pub struct Sender<T> {
    inner: raw::Sender<Stamped<T>>,
    inst: Arc<Inst>,
}

/// `crossbeam_channel::Receiver`, instrumented.
pub struct Receiver<T> {
    inner: raw::Receiver<Stamped<T>>,
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
        let inst = Inst::new::<T>(site, Shape::sized("crossbeam", cap, Depth::Len));
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

    /// Waits with `wait` after a `try_send` found the channel full.
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
                    self.inst.not_sent(&op);
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
            Err(TrySendError::Full(m)) => {
                self.inst.not_sent(&op);
                Err(TrySendError::Full(m.into_inner()))
            }
            Err(TrySendError::Disconnected(m)) => {
                self.inst.send_failed(&op);
                Err(TrySendError::Disconnected(m.into_inner()))
            }
        }
    }

    /// `Sender::send_timeout`: a timeout is a blocked send that did not send.
    pub fn send_timeout(&self, msg: T, timeout: Duration) -> Result<(), SendTimeoutError<T>> {
        self.send_with(
            msg,
            |m| self.inner.send_timeout(m, timeout).map_err(unstamp_timeout),
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

    /// `Sender::same_channel`.
    pub fn same_channel(&self, other: &Sender<T>) -> bool {
        self.inner.same_channel(&other.inner)
    }
}

fn unstamp_timeout<T>(e: SendTimeoutError<Stamped<T>>) -> SendTimeoutError<T> {
    match e {
        SendTimeoutError::Timeout(m) => SendTimeoutError::Timeout(m.into_inner()),
        SendTimeoutError::Disconnected(m) => SendTimeoutError::Disconnected(m.into_inner()),
    }
}

impl<T> Receiver<T> {
    /// `Receiver::try_recv`.
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        self.inner.try_recv().map(|m| self.inst.received(m))
    }

    fn recv_with<E>(
        &self,
        disconnected: E,
        wait: impl FnOnce() -> Result<Stamped<T>, E>,
    ) -> Result<T, E> {
        match self.inner.try_recv() {
            Ok(m) => Ok(self.inst.received(m)),
            Err(TryRecvError::Disconnected) => Err(disconnected),
            Err(TryRecvError::Empty) => {
                let t0 = wait_start();
                let r = wait();
                recv_waited(t0);
                r.map(|m| self.inst.received(m))
            }
        }
    }

    /// `Receiver::recv`: waits for a message (charged to the function).
    pub fn recv(&self) -> Result<T, RecvError> {
        self.recv_with(RecvError, || self.inner.recv())
    }

    /// `Receiver::recv_timeout`.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<T, RecvTimeoutError> {
        self.recv_with(RecvTimeoutError::Disconnected, || {
            self.inner.recv_timeout(timeout)
        })
    }

    /// `Receiver::recv_deadline`.
    pub fn recv_deadline(&self, deadline: Instant) -> Result<T, RecvTimeoutError> {
        self.recv_with(RecvTimeoutError::Disconnected, || {
            self.inner.recv_deadline(deadline)
        })
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

    /// `Receiver::iter`: blocks for each message until the senders are gone.
    pub fn iter(&self) -> Iter<'_, T> {
        Iter { rx: self }
    }

    /// `Receiver::try_iter`: the messages already there.
    pub fn try_iter(&self) -> TryIter<'_, T> {
        TryIter { rx: self }
    }

    /// `Receiver::same_channel`.
    pub fn same_channel(&self, other: &Receiver<T>) -> bool {
        self.inner.same_channel(&other.inner)
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.inst.receiver_dropped(|| self.inner.len());
    }
}

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

impl<T> std::iter::FusedIterator for Iter<'_, T> {}

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

impl<T> std::iter::FusedIterator for IntoIter<T> {}

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

clone_endpoints!(Sender);

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Self {
        self.inst.add_receiver();
        Receiver {
            inner: self.inner.clone(),
            inst: self.inst.clone(),
        }
    }
}

debug_endpoints!(Sender, Receiver);
debug_opaque!(Iter<'_>, TryIter<'_>, IntoIter);
