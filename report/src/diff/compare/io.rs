//! The `io!` entries of two reports: operations, bytes, errors and the mean time of each
//! direction.

use std::collections::HashMap;

use crate::format::{bytes, count};
use crate::{IoEntry, Report};

use super::{ints, opt_ints, typed_names, Compare, Matching, Unpaired};
use crate::diff::{Direction, Metric, RowKey, Unmatched};

impl Compare {
    /// Compares the `io!` entries both reports have; returns the rows only in HEAD and
    /// only in BASE.
    pub(crate) fn io(&mut self, base: &Report, head: &Report) -> Unpaired {
        let (b, h) = (
            base.io.as_deref().unwrap_or(&[]),
            head.io.as_deref().unwrap_or(&[]),
        );
        let m = Matching::new(b, h, |e: &IoEntry| (e.name.clone(), e.type_name.clone()));
        // `io: <name>`.
        let shown = typed_names(&m.keys, |(name, ty)| ("io", name, ty), io_key);
        for (bi, hi) in &m.pairs {
            let key = m.row_key_of_head(*hi, io_key);
            self.io_entry(&key, &shown[&key], &b[*bi], &h[*hi]);
        }
        m.unmatched(b, h, |(id, nth), e| {
            unmatched_io(&shown, io_key(id.clone(), *nth), e)
        })
    }

    fn io_entry(&mut self, key: &RowKey, shown: &str, b: &IoEntry, h: &IoEntry) {
        for dir in Direction::ALL {
            let (bd, hd) = (dir.of(b), dir.of(h));
            if bd.ops + bd.errors + hd.ops + hd.errors == 0 {
                continue;
            }
            self.per_call_weight = bd.ops.max(hd.ops).max(1);
            let mut push = |metric, v| self.push(key.clone(), shown, metric, v);
            push(Metric::IoOps(dir), ints(bd.ops, hd.ops));
            if dir.moves_bytes() {
                push(Metric::IoBytes(dir), ints(bd.bytes, hd.bytes));
            }
            push(Metric::IoErrors(dir), ints(bd.errors, hd.errors));
            push(Metric::IoAvg(dir), opt_ints(bd.mean_ns, hd.mean_ns));
        }
    }
}

fn io_key((name, type_name): (String, String), nth: usize) -> RowKey {
    RowKey::Io {
        name,
        type_name,
        nth,
    }
}

fn unmatched_io(shown: &HashMap<RowKey, String>, row: RowKey, e: &IoEntry) -> Unmatched {
    let parts: Vec<String> = Direction::ALL
        .iter()
        .filter(|d| d.of(e).ops > 0)
        .map(|d| {
            let io = d.of(e);
            if d.moves_bytes() {
                format!("{} {d} ops ({})", count(io.ops), bytes(io.bytes))
            } else {
                format!("{} {d} ops", count(io.ops))
            }
        })
        .collect();
    let summary = if parts.is_empty() {
        "no operation".to_string()
    } else {
        parts.join(", ")
    };
    Unmatched {
        shown: shown[&row].clone(),
        row,
        summary,
    }
}
