//! The channel, stream and future entries of two reports, as rows of quantities.

use std::collections::HashMap;

use crate::format::count;
use crate::Report;

use super::{ints, opt_ints, typed_names, Compare, Matching, Unpaired};
use crate::diff::{Metric, RowKey, Unmatched};

impl Compare {
    /// Compares the channel, stream and future entries both reports have; returns the
    /// rows only in HEAD and only in BASE.
    pub(crate) fn flow(&mut self, base: &Report, head: &Report) -> Unpaired {
        let (b, h) = (flow_rows(base), flow_rows(head));
        let m = Matching::new(&b, &h, |e: &FlowRow| {
            (e.what, e.name.clone(), e.type_name.clone())
        });
        // `channel: jobs`.
        let shown = typed_names(&m.keys, |(what, name, ty)| (*what, name, ty), flow_key);
        for (bi, hi) in &m.pairs {
            let key = m.row_key_of_head(*hi, flow_key);
            self.flow_entry(&key, &shown[&key], &b[*bi], &h[*hi]);
        }
        m.unmatched(&b, &h, |(id, nth), e| {
            unmatched_flow(&shown, flow_key(id.clone(), *nth), e)
        })
    }

    fn flow_entry(&mut self, key: &RowKey, shown: &str, b: &FlowRow, h: &FlowRow) {
        // Only the means are per message, instance or call.
        self.per_call_weight = b.weight.max(h.weight).max(1);
        let mut push = |metric, v| self.push(key.clone(), shown, metric, v);
        for ((name, bv), (_, hv)) in b.counts.iter().zip(&h.counts) {
            push(Metric::FlowCount(name), ints(*bv, *hv));
        }
        for ((name, bv), (_, hv)) in b.totals.iter().zip(&h.totals) {
            push(Metric::FlowTime(name), opt_ints(*bv, *hv));
        }
        for ((name, bv), (_, hv)) in b.means.iter().zip(&h.means) {
            push(Metric::FlowAvg(name), opt_ints(*bv, *hv));
        }
    }
}

/// One entry's quantities, in a fixed order per kind.
struct FlowRow {
    what: &'static str,
    name: String,
    type_name: String,
    counts: Vec<(&'static str, u64)>,
    totals: Vec<(&'static str, Option<u64>)>,
    means: Vec<(&'static str, Option<u64>)>,
    /// What the means are per (messages received, instances, calls).
    weight: u64,
}

fn flow_rows(r: &Report) -> Vec<FlowRow> {
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

fn flow_key((what, name, type_name): (&'static str, String, String), nth: usize) -> RowKey {
    RowKey::Flow {
        what,
        name,
        type_name,
        nth,
    }
}

fn unmatched_flow(shown: &HashMap<RowKey, String>, row: RowKey, e: &FlowRow) -> Unmatched {
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
