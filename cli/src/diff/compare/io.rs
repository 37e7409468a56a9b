//! The `io!` entries of two reports: operations, bytes, errors and the mean time of each
//! direction.

use std::collections::HashMap;

use hotpath_report::format::{bytes, count, short_type};
use hotpath_report::IoEntry;

use super::Compare;
use crate::diff::{Direction, Metric, RowKey, Unmatched, Value};

impl Compare {
    pub(super) fn io(&mut self, key: &RowKey, shown: &str, b: &IoEntry, h: &IoEntry) {
        for dir in Direction::ALL {
            let (bd, hd) = (dir.of(b), dir.of(h));
            if bd.ops + bd.errors + hd.ops + hd.errors == 0 {
                continue;
            }
            self.per_call_weight = bd.ops.max(hd.ops).max(1);
            let mut push = |metric, bv, hv| self.push(key.clone(), shown, metric, bv, hv);
            let int = |v: u64| Some(Value::Int(v));
            push(Metric::IoOps(dir), int(bd.ops), int(hd.ops));
            if dir.moves_bytes() {
                push(Metric::IoBytes(dir), int(bd.bytes), int(hd.bytes));
            }
            push(Metric::IoErrors(dir), int(bd.errors), int(hd.errors));
            push(
                Metric::IoAvg(dir),
                bd.mean_ns.map(Value::Int),
                hd.mean_ns.map(Value::Int),
            );
        }
    }
}

pub(super) type IoKey = ((String, String), usize);

pub(super) fn io_key((name, type_name): (String, String), nth: usize) -> RowKey {
    RowKey::Io {
        name,
        type_name,
        nth,
    }
}

/// Display names of the I/O entries: `io: <name>`, with the short type when two entries
/// share the name, and ` #2` for later ones with the same name and type.
pub(super) fn shown_io(keys: &[IoKey]) -> HashMap<RowKey, String> {
    let mut out = HashMap::new();
    for (id, nth) in keys {
        let mut s = format!("io: {}", id.0);
        if keys.iter().any(|(o, _)| o.0 == id.0 && o.1 != id.1) {
            s = format!("{s} ({})", short_type(&id.1));
        }
        if *nth > 0 {
            s = format!("{s} #{}", nth + 1);
        }
        out.insert(io_key(id.clone(), *nth), s);
    }
    out
}

pub(super) fn unmatched_io(shown: &HashMap<RowKey, String>, row: RowKey, e: &IoEntry) -> Unmatched {
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
