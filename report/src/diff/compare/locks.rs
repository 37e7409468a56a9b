//! The lock sites (`mutexes`, `rw_locks`) and the functions' waits of two reports.

use std::collections::HashMap;

use crate::format::count;
use crate::{Function, LockMode, Report};

use super::{ints, shown_with, sides, Compare, Unpaired};
use crate::diff::{Metric, RowKey, Value};

/// One mode of one lock site as compared: `(kind, name, type_name, mode)`.
type LockId = (&'static str, String, String, &'static str);

fn lock_rows(r: &Report) -> Vec<(LockId, &LockMode)> {
    let mut rows = Vec::new();
    for e in r.mutexes.iter().flatten() {
        rows.push((
            ("mutex", e.name.clone(), e.type_name.clone(), "exclusive"),
            &e.lock,
        ));
    }
    for e in r.rw_locks.iter().flatten() {
        for (mode, m) in e.modes() {
            rows.push((("rw_lock", e.name.clone(), e.type_name.clone(), mode), m));
        }
    }
    rows
}

fn lock_key((kind, name, type_name, mode): LockId, nth: usize) -> RowKey {
    RowKey::Lock {
        kind: kind.to_string(),
        name,
        type_name,
        mode: mode.to_string(),
        nth,
    }
}

/// `mutex: counter`, `rw_lock: table (read)`, ` #2` for a later row of the same identity.
fn shown((kind, name, _, mode): &LockId, nth: usize) -> String {
    shown_with(kind, name, (*kind == "rw_lock").then_some(*mode), nth)
}

impl Compare {
    /// Compares the lock modes both reports have; returns the rows only in HEAD and
    /// only in BASE.
    pub(crate) fn locks(&mut self, base: &Report, head: &Report) -> Unpaired {
        let (b, h) = (lock_rows(base), lock_rows(head));
        let pair = |c: &mut Self, key: &RowKey, shown: &str, bm: &&LockMode, hm: &&LockMode| {
            c.per_call_weight = bm.acquisitions.max(hm.acquisitions).max(1);
            let mut push = |metric, v| c.push(key.clone(), shown, metric, v);
            push(
                Metric::LockAcquisitions,
                ints(bm.acquisitions, hm.acquisitions),
            );
            push(Metric::LockContended, ints(bm.contended, hm.contended));
            let wait = (bm.wait_ns.as_ref(), hm.wait_ns.as_ref());
            push(Metric::LockWait, sides(wait, |d| Value::Int(d.total)));
            let hold = (bm.hold_ns.as_ref(), hm.hold_ns.as_ref());
            push(Metric::LockHoldAvg, sides(hold, |d| Value::Int(d.mean)));
        };
        self.keyed_rows(&b, &h, lock_key, shown, pair, |m| {
            format!(
                "{} acquisitions, {} contended",
                count(m.acquisitions),
                count(m.contended)
            )
        })
    }

    /// The waits of a function in both reports, per kind that either report shows.
    pub(crate) fn waits(&mut self, key: &RowKey, shown: &str, b: &Function, h: &Function) {
        let (Some(bw), Some(hw)) = (&b.waits, &h.waits) else {
            return;
        };
        let kinds: HashMap<&str, (u64, u64)> = bw
            .kinds()
            .iter()
            .zip(hw.kinds().iter())
            .map(|((k, bv), (_, hv))| (*k, (*bv, *hv)))
            .collect();
        for (kind, _) in bw.kinds() {
            let (bv, hv) = kinds[kind];
            if bv + hv > 0 {
                self.push(key.clone(), shown, Metric::Wait(kind), ints(bv, hv));
            }
        }
    }
}
