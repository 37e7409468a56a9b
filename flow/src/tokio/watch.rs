//! `tokio::sync::watch`: one value, replaced by each send; a receiver that looks less
//! often than the sender sends sees only the newest (the others are counted as
//! coalesced, in the entry's `lagged`). Messages are not stamped (no latency).

use hotpath_core::InternalArc;

use tokio::sync::watch as raw;
use tokio::sync::watch::error::{RecvError, SendError};
use tokio::sync::watch::Ref;

use crate::chan::{Inst, SendOp};
use crate::depth::Depth;
use crate::instrument::{check_capacity, Shape};
use crate::wait::recv_waiting;

endpoints! {
    /// `tokio::sync::watch::Sender`, instrumented.
    Sender(raw::Sender<T>);
}

/// `tokio::sync::watch::Receiver`, instrumented.
pub struct Receiver<T> {
    inner: raw::Receiver<T>,
    inst: InternalArc<Inst>,
    /// The version (sends so far) this receiver last observed.
    seen: u64,
}

instrument! {
    impl<T> for (raw::Sender<T>, raw::Receiver<T>) => (Sender, Receiver { seen: 0 }),
    |_, site, _, declared| {
        check_capacity(site, Some(1), declared);
        Shape {
            kind: "watch",
            ..Shape::sized("tokio", Some(1), Depth::One)
        }
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

    forward! { Sender(inner):
        fn borrow(&self) -> Ref<'_, T>;
        fn is_closed(&self) -> bool;
        async fn closed(&self);
        fn receiver_count(&self) -> usize;
        fn sender_count(&self) -> usize;
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

    forward! { Sender(inner):
        fn same_channel(&self, other: &Self) -> bool;
    }
}

impl<T> Receiver<T> {
    /// An observation: counts it and the sends it skipped.
    fn observe(&mut self) {
        let version = {
            let _value = self.inner.borrow();
            self.inst.sends()
        };
        observed(&self.inst, &mut self.seen, version);
    }

    forward! { Receiver(inner):
        fn borrow(&self) -> Ref<'_, T>;
        fn borrow_and_update(&mut self) -> Ref<'_, T>;
        fn has_changed(&self) -> Result<bool, RecvError>;
        fn is_closed(&self) -> bool;
        fn mark_changed(&mut self);
        fn mark_unchanged(&mut self);
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

    /// `Receiver::wait_for`: counted as an observation when it returns a value. The value
    /// is tokio's own `Ref`, the one the predicate accepted (still read-locked, so that
    /// no send comes between), with tokio's `has_changed`.
    pub async fn wait_for(&mut self, f: impl FnMut(&T) -> bool) -> Result<Ref<'_, T>, RecvError> {
        let Receiver { inner, inst, seen } = self;
        let r = recv_waiting(inner.wait_for(f)).await;
        if r.is_ok() {
            // The `Ref` holds the value's read lock and a send bumps the version under
            // its write lock: the version read now is the value's.
            observed(inst, seen, inst.sends());
        }
        r
    }

    forward! { Receiver(inner):
        fn same_channel(&self, other: &Self) -> bool;
    }
}

/// An observation of the value at `version` by a receiver that had seen `seen`: counts
/// it and the sends it skipped.
fn observed(inst: &Inst, seen: &mut u64, version: u64) {
    inst.observed();
    inst.missed(version.saturating_sub(*seen).saturating_sub(1));
    *seen = (*seen).max(version);
}

clone_endpoints!(Sender);

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
