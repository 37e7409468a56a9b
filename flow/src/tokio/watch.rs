//! `tokio::sync::watch`: one value, replaced by each send; a receiver that looks less
//! often than the sender sends sees only the newest (the others are counted as
//! coalesced, in the entry's `lagged`). Messages are not stamped (no latency).

use std::sync::Arc;

use tokio::sync::watch as raw;
use tokio::sync::watch::error::{RecvError, SendError};
use tokio::sync::watch::Ref;

use crate::chan::{Inst, SendOp};
use crate::depth::Depth;
use crate::instrument::{check_capacity, IntoInstrumented, Shape};
use crate::wait::recv_waiting;
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
    pub async fn wait_for(&mut self, f: impl FnMut(&T) -> bool) -> Result<Ref<'_, T>, RecvError> {
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
