//! `std::sync::mpsc`: `channel()` and `sync_channel(n)`.
//!
//! The endpoints behave as std's: same errors, same blocking, same capacity. Queue
//! depth comes from the instance's counters (std has no `len()`).

use std::sync::mpsc::{self, RecvError, RecvTimeoutError, SendError, TryRecvError, TrySendError};
use std::sync::Arc;
use std::time::Duration;

use crate::chan::{Inst, SendOp, Stamped};
use crate::depth::Depth;
use crate::instrument::{check_capacity, IntoInstrumented, Shape};
use crate::wait::{recv_waited, wait_start};
use crate::FlowSite;

/// `std::sync::mpsc::Sender`, instrumented.
pub struct Sender<T> {
    inner: mpsc::Sender<Stamped<T>>,
    inst: Arc<Inst>,
}

/// `std::sync::mpsc::SyncSender`, instrumented.
pub struct SyncSender<T> {
    inner: mpsc::SyncSender<Stamped<T>>,
    inst: Arc<Inst>,
}

/// `std::sync::mpsc::Receiver`, instrumented.
pub struct Receiver<T> {
    inner: mpsc::Receiver<Stamped<T>>,
    inst: Arc<Inst>,
}

impl<T> IntoInstrumented for (mpsc::Sender<Stamped<T>>, mpsc::Receiver<Stamped<T>>) {
    type Wrapped = (Sender<T>, Receiver<T>);

    fn instrument(
        self,
        site: &'static FlowSite,
        _: Option<usize>,
        declared: Option<usize>,
    ) -> Self::Wrapped {
        check_capacity(site, None, declared);
        let inst = Inst::new::<T>(site, Shape::sized("std", None, Depth::Counters));
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

impl<T> IntoInstrumented for (mpsc::SyncSender<Stamped<T>>, mpsc::Receiver<Stamped<T>>) {
    type Wrapped = (SyncSender<T>, Receiver<T>);

    fn instrument(
        self,
        site: &'static FlowSite,
        ctor: Option<usize>,
        declared: Option<usize>,
    ) -> Self::Wrapped {
        // std cannot tell a channel's capacity: it comes from the constructor's argument.
        if ctor.is_some() {
            check_capacity(site, ctor, declared);
        }
        let cap = ctor.or(declared);
        let mut shape = Shape::sized("std", cap, Depth::Counters);
        if cap.is_none() {
            shape.kind = "bounded";
        }
        let inst = Inst::new::<T>(site, shape);
        (
            SyncSender {
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
    /// `Sender::send`: never blocks; fails when the receiver is gone.
    pub fn send(&self, t: T) -> Result<(), SendError<T>> {
        let op = self.inst.begin_send();
        match self.inner.send(Inst::stamped(&op, t)) {
            Ok(()) => {
                self.inst.sent(&op, || 0);
                Ok(())
            }
            Err(SendError(m)) => {
                self.inst.send_failed(&op);
                Err(SendError(m.into_inner()))
            }
        }
    }
}

impl<T> SyncSender<T> {
    /// `SyncSender::send`: waits for room when the channel is full (the wait is
    /// measured); fails when the receiver is gone.
    pub fn send(&self, t: T) -> Result<(), SendError<T>> {
        let op = self.inst.begin_send();
        match self.inner.try_send(Inst::stamped(&op, t)) {
            Ok(()) => {
                self.inst.sent(&op, || 0);
                Ok(())
            }
            Err(TrySendError::Full(m)) => self.send_full(&op, m),
            Err(TrySendError::Disconnected(m)) => {
                self.inst.send_failed(&op);
                Err(SendError(m.into_inner()))
            }
        }
    }

    /// [`SyncSender::send`] when the channel is full: waits for room, out of line (the
    /// usual send stays small).
    #[cold]
    #[inline(never)]
    fn send_full(&self, op: &SendOp, m: Stamped<T>) -> Result<(), SendError<T>> {
        let t0 = wait_start();
        let r = self.inner.send(m);
        self.inst.blocked(op, t0);
        match r {
            Ok(()) => {
                self.inst.sent(op, || 0);
                Ok(())
            }
            Err(SendError(m)) => {
                self.inst.send_failed(op);
                Err(SendError(m.into_inner()))
            }
        }
    }

    /// `SyncSender::try_send`: `Full` when there is no room (not counted as an error).
    pub fn try_send(&self, t: T) -> Result<(), TrySendError<T>> {
        let op = self.inst.begin_send();
        match self.inner.try_send(Inst::stamped(&op, t)) {
            Ok(()) => {
                self.inst.sent(&op, || 0);
                Ok(())
            }
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
}

impl<T> Receiver<T> {
    /// `Receiver::recv`: waits for a message (the wait is charged to the function).
    pub fn recv(&self) -> Result<T, RecvError> {
        match self.inner.try_recv() {
            Ok(m) => Ok(self.inst.received(m)),
            Err(TryRecvError::Disconnected) => Err(RecvError),
            Err(TryRecvError::Empty) => self.recv_empty(),
        }
    }

    /// [`Receiver::recv`] when the channel is empty: waits for a message, out of line
    /// (the usual receive stays small).
    #[inline(never)]
    fn recv_empty(&self) -> Result<T, RecvError> {
        let t0 = wait_start();
        let r = self.inner.recv();
        recv_waited(t0);
        r.map(|m| self.inst.received(m))
    }

    /// `Receiver::try_recv`.
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        self.inner.try_recv().map(|m| self.inst.received(m))
    }

    /// `Receiver::recv_timeout`.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<T, RecvTimeoutError> {
        match self.inner.try_recv() {
            Ok(m) => Ok(self.inst.received(m)),
            Err(TryRecvError::Disconnected) => Err(RecvTimeoutError::Disconnected),
            Err(TryRecvError::Empty) => {
                let t0 = wait_start();
                let r = self.inner.recv_timeout(timeout);
                recv_waited(t0);
                r.map(|m| self.inst.received(m))
            }
        }
    }

    /// `Receiver::iter`: blocks for each message until the senders are gone.
    pub fn iter(&self) -> Iter<'_, T> {
        Iter { rx: self }
    }

    /// `Receiver::try_iter`: the messages already there.
    pub fn try_iter(&self) -> TryIter<'_, T> {
        TryIter { rx: self }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.inst.receiver_dropped(|| 0);
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

clone_endpoints!(Sender, SyncSender);
debug_endpoints!(Sender, SyncSender, Receiver);
debug_opaque!(Iter<'_>, TryIter<'_>, IntoIter);
