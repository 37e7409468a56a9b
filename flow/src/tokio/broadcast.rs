//! `tokio::sync::broadcast`: every receiver gets every message; a receiver that falls
//! more than the capacity behind misses messages (`Lagged`), counted as lagged.

use tokio::sync::broadcast as raw;
use tokio::sync::broadcast::error::{RecvError, SendError, TryRecvError};

use crate::chan::{Inst, Stamped, TryRecv};
use crate::depth::Depth;
use crate::instrument::{ctor_capacity, Shape};
use crate::wait::recv_waiting;

endpoints! {
    /// `tokio::sync::broadcast::Sender`, instrumented.
    Sender(raw::Sender<Stamped<T>>);
    /// `tokio::sync::broadcast::Receiver`, instrumented.
    Receiver(raw::Receiver<Stamped<T>>);
    /// `tokio::sync::broadcast::WeakSender`, instrumented.
    WeakSender(raw::WeakSender<Stamped<T>>);
}

instrument! {
    impl<T: Clone> for (raw::Sender<Stamped<T>>, raw::Receiver<Stamped<T>>) => (Sender, Receiver),
    |_, site, ctor, declared| Shape {
        kind: "broadcast",
        ..Shape::sized("tokio", ctor_capacity(site, ctor, declared), Depth::Len)
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

    forward! { Sender(inner):
        /// values still queued for some receiver
        fn len(&self) -> usize;
        fn is_empty(&self) -> bool;
        fn receiver_count(&self) -> usize;
        async fn closed(&self);
        fn strong_count(&self) -> usize;
        fn weak_count(&self) -> usize;
        fn same_channel(&self, other: &Self) -> bool;
    }
}

weak!(WeakSender => Sender + counts);

impl<T> Receiver<T> {
    forward! { Receiver(inner):
        /// messages this receiver has not read yet
        fn len(&self) -> usize;
        fn is_empty(&self) -> bool;
        fn is_closed(&self) -> bool;
        fn sender_strong_count(&self) -> usize;
        fn sender_weak_count(&self) -> usize;
        fn same_channel(&self, other: &Self) -> bool;
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

    /// `Receiver::recv`: `Lagged(n)` when it missed `n` messages (counted).
    pub async fn recv(&mut self) -> Result<T, RecvError> {
        let r = recv_waiting(self.inner.recv()).await;
        lagged(&self.inst, r).map(|m| self.inst.received(m))
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
        let now = match self.inner.try_recv() {
            Ok(m) => TryRecv::Got(m),
            Err(TryRecvError::Empty) => TryRecv::Empty,
            Err(TryRecvError::Closed) => TryRecv::Closed,
            Err(TryRecvError::Lagged(n)) => {
                self.inst.missed(n);
                return Err(RecvError::Lagged(n));
            }
        };
        let (inner, inst) = (&mut self.inner, &*self.inst);
        inst.recv_with(
            now,
            || lagged(inst, inner.blocking_recv()),
            RecvError::Closed,
        )
    }
}

/// A receive's result, with the messages a `Lagged(n)` says the receiver missed counted.
fn lagged<M>(inst: &Inst, r: Result<M, RecvError>) -> Result<M, RecvError> {
    if let Err(RecvError::Lagged(n)) = r {
        inst.missed(n);
    }
    r
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        // Every receiver has its own view of the queue: what it did not read.
        self.inst.unread(self.inner.len() as u64);
    }
}

clone_endpoints!(Sender, WeakSender);
debug_endpoints!(Sender, WeakSender, Receiver);
