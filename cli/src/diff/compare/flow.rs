//! The channel, stream and future entries of two reports, as rows of quantities.

use std::collections::HashMap;

use hotpath_report::format::{count, short_type};
use hotpath_report::Report;

use super::Compare;
use crate::diff::{Metric, RowKey, Unmatched, Value};

impl Compare {
    pub(super) fn flow(&mut self, key: &RowKey, shown: &str, b: &FlowRow, h: &FlowRow) {
        for ((name, bv), (_, hv)) in b.counts.iter().zip(&h.counts) {
            self.push(
                key.clone(),
                shown,
                Metric::FlowCount(name),
                Some(Value::Int(*bv)),
                Some(Value::Int(*hv)),
            );
        }
        for ((name, bv), (_, hv)) in b.totals.iter().zip(&h.totals) {
            self.push(
                key.clone(),
                shown,
                Metric::FlowTime(name),
                bv.map(Value::Int),
                hv.map(Value::Int),
            );
        }
        self.per_call_weight = b.weight.max(h.weight).max(1);
        for ((name, bv), (_, hv)) in b.means.iter().zip(&h.means) {
            self.push(
                key.clone(),
                shown,
                Metric::FlowAvg(name),
                bv.map(Value::Int),
                hv.map(Value::Int),
            );
        }
    }
}

/// One entry's quantities, in a fixed order per kind.
pub(super) struct FlowRow {
    pub what: &'static str,
    pub name: String,
    pub type_name: String,
    pub counts: Vec<(&'static str, u64)>,
    pub totals: Vec<(&'static str, Option<u64>)>,
    pub means: Vec<(&'static str, Option<u64>)>,
    /// What the means are per (messages received, instances, calls).
    pub weight: u64,
}

pub(super) fn rows(r: &Report) -> Vec<FlowRow> {
    let mut out = Vec::new();
    for e in r.channels.as_deref().unwrap_or(&[]) {
        out.push(FlowRow {
            what: "channel",
            name: e.name.clone(),
            type_name: e.type_name.clone(),
            counts: vec![
                ("sent", e.sent),
                ("received", e.received),
                ("send errors", e.send_errors),
                ("unread", e.unread),
                ("max depth", e.max_depth),
                ("blocked sends", e.send_blocked.count),
            ],
            totals: vec![("blocked", Some(e.send_blocked.total_ns))],
            means: vec![("latency avg", e.latency_ns.as_ref().map(|d| d.mean))],
            weight: e.received,
        });
    }
    for e in r.streams.as_deref().unwrap_or(&[]) {
        out.push(FlowRow {
            what: "stream",
            name: e.name.clone(),
            type_name: e.type_name.clone(),
            counts: vec![
                ("items", e.items),
                ("polls", e.polls),
                ("pending", e.pending),
                ("dropped", e.dropped),
            ],
            totals: vec![("busy", Some(e.busy_ns))],
            means: vec![("first item avg", e.first_item_ns.as_ref().map(|d| d.mean))],
            weight: e.instances,
        });
    }
    for e in r.futures.as_deref().unwrap_or(&[]) {
        out.push(FlowRow {
            what: "future",
            name: e.display_name().to_string(),
            type_name: String::new(),
            counts: vec![
                ("calls", e.calls),
                ("cancelled", e.cancelled),
                ("never polled", e.never_polled),
            ],
            totals: Vec::new(),
            means: vec![
                ("lifetime avg", e.lifetime_ns.as_ref().map(|d| d.mean)),
                ("busy avg", e.busy_ns.as_ref().map(|d| d.mean)),
            ],
            weight: e.calls,
        });
    }
    out
}

pub(super) type FlowKey = ((&'static str, String, String), usize);

pub(super) fn key((what, name, type_name): (&'static str, String, String), nth: usize) -> RowKey {
    RowKey::Flow {
        what,
        name,
        type_name,
        nth,
    }
}

/// `channel: jobs`, with the short type when two entries share the name, ` #2` for
/// later ones with the same identity.
pub(super) fn shown(keys: &[FlowKey]) -> HashMap<RowKey, String> {
    let mut out = HashMap::new();
    for (id, nth) in keys {
        let mut s = format!("{}: {}", id.0, id.1);
        if keys
            .iter()
            .any(|(o, _)| o.0 == id.0 && o.1 == id.1 && o.2 != id.2)
        {
            s = format!("{s} ({})", short_type(&id.2));
        }
        if *nth > 0 {
            s = format!("{s} #{}", nth + 1);
        }
        out.insert(key(id.clone(), *nth), s);
    }
    out
}

pub(super) fn unmatched(shown: &HashMap<RowKey, String>, row: RowKey, e: &FlowRow) -> Unmatched {
    let summary = e
        .counts
        .iter()
        .take(2)
        .map(|(n, v)| format!("{} {n}", count(*v)))
        .collect::<Vec<_>>()
        .join(", ");
    Unmatched {
        shown: shown[&row].clone(),
        row,
        summary,
    }
}
