//! Matching the rows of two reports and judging each quantity.

use std::collections::HashMap;

use hotpath_report::format::{bytes, count, duration, short_type};
use hotpath_report::{percentile_label, Function, IoEntry, Report, Section};

use flow::FlowRow;

use super::{
    percent_label, Change, Diff, Direction, Metric, RowKey, Unit, Unmatched, Value, Verdict,
};

mod locks;
mod service;

/// Compares HEAD against BASE; `threshold` is the relative change in a time below which
/// it is noise (`0.1` = 10 %).
pub fn diff(base: &Report, head: &Report, threshold: f64) -> Diff {
    diff_with_floor(base, head, threshold, 0)
}

/// [`diff`] with an absolute floor as well: a time that changed by less than
/// `min_delta_ns` is noise whatever the relative change (`--min-delta`). A per-call time
/// (avg, a percentile, an I/O avg) is held to the floor multiplied out over its calls (or
/// operations, the larger count of the two reports): +100 ns a call over 1,000,000 calls
/// is 100 ms, +50 µs over 3 calls is 150 µs.
pub fn diff_with_floor(base: &Report, head: &Report, threshold: f64, min_delta_ns: u64) -> Diff {
    let has = |r: &Report, s: Section| r.has(s);
    let mut c = Compare {
        threshold,
        min_delta_ns,
        per_call_weight: 1,
        percentiles: head
            .percentiles
            .iter()
            .copied()
            .filter(|p| base.percentiles.contains(p))
            .collect(),
        alloc: has(base, Section::Alloc) && has(head, Section::Alloc),
        cpu: has(base, Section::Cpu) && has(head, Section::Cpu),
        changes: Vec::new(),
    };

    // The process.
    let process = |c: &mut Compare, metric, b, h| {
        c.push(RowKey::Process, "(process)", metric, b, h);
    };
    process(
        &mut c,
        Metric::Elapsed,
        Some(Value::Int(base.elapsed_ns)),
        Some(Value::Int(head.elapsed_ns)),
    );
    if let (Some(b), Some(h)) = (&base.cpu, &head.cpu) {
        let v = |x: u64| Some(Value::Int(x));
        process(
            &mut c,
            Metric::Cpu,
            v(b.process_cpu_ns),
            v(h.process_cpu_ns),
        );
    }
    if let (Some(b), Some(h)) = (&base.alloc_total, &head.alloc_total) {
        let v = |x: u64| Some(Value::Int(x));
        process(&mut c, Metric::Allocs, v(b.count), v(h.count));
        process(&mut c, Metric::AllocBytes, v(b.bytes), v(h.bytes));
    }

    // Functions.
    let fkey = |f: &Function| (f.name.clone(), f.label.clone());
    let fmatch = Matching::new(&base.functions, &head.functions, fkey);
    let fshown = shown_functions(&fmatch.keys);
    for (bi, hi) in &fmatch.pairs {
        let (b, h) = (&base.functions[*bi], &head.functions[*hi]);
        let key = fmatch.row_key_of_head(*hi, function_key);
        c.function(&key, &fshown[&key], b, h);
        c.waits(&key, &fshown[&key], b, h);
    }

    // I/O entries.
    let (bio, hio) = (
        base.io.as_deref().unwrap_or(&[]),
        head.io.as_deref().unwrap_or(&[]),
    );
    let ikey = |e: &IoEntry| (e.name.clone(), e.type_name.clone());
    let imatch = Matching::new(bio, hio, ikey);
    let ishown = shown_io(&imatch.keys);
    for (bi, hi) in &imatch.pairs {
        let key = imatch.row_key_of_head(*hi, io_key);
        c.io(&key, &ishown[&key], &bio[*bi], &hio[*hi]);
    }

    // Channels, streams, futures.
    let (bflow, hflow) = (flow::rows(base), flow::rows(head));
    let flkey = |e: &FlowRow| (e.what, e.name.clone(), e.type_name.clone());
    let flmatch = Matching::new(&bflow, &hflow, flkey);
    let flshown = flow::shown(&flmatch.keys);
    for (bi, hi) in &flmatch.pairs {
        let key = flmatch.row_key_of_head(*hi, flow::key);
        c.flow(&key, &flshown[&key], &bflow[*bi], &hflow[*hi]);
    }

    let mut added = Vec::new();
    let mut removed = Vec::new();
    for i in flmatch.only_head() {
        let row = flmatch.row_key_of_head(i, flow::key);
        added.push(flow::unmatched(&flshown, row, &hflow[i]));
    }
    for i in flmatch.only_base() {
        let row = flmatch.row_key_of_base(i, flow::key);
        removed.push(flow::unmatched(&flshown, row, &bflow[i]));
    }
    for i in fmatch.only_head() {
        let row = fmatch.row_key_of_head(i, function_key);
        added.push(unmatched_function(&fshown, row, &head.functions[i]));
    }
    for i in fmatch.only_base() {
        let row = fmatch.row_key_of_base(i, function_key);
        removed.push(unmatched_function(&fshown, row, &base.functions[i]));
    }
    for i in imatch.only_head() {
        let row = imatch.row_key_of_head(i, io_key);
        added.push(unmatched_io(&ishown, row, &hio[i]));
    }
    for i in imatch.only_base() {
        let row = imatch.row_key_of_base(i, io_key);
        removed.push(unmatched_io(&ishown, row, &bio[i]));
    }

    // Lock sites, by mode.
    let (lock_added, lock_removed) = c.locks(base, head);
    added.extend(lock_added);
    removed.extend(lock_removed);

    // SQL queries, HTTP endpoints, server routes.
    let (svc_added, svc_removed) = c.service(base, head);
    added.extend(svc_added);
    removed.extend(svc_removed);

    Diff {
        threshold,
        min_delta_ns,
        base_runs: 1,
        head_runs: 1,
        significance: None,
        caller: head.caller.clone(),
        changes: std::mem::take(&mut c.changes),
        added,
        removed,
        notes: notes(base, head, &c.percentiles),
    }
}

struct Compare {
    threshold: f64,
    /// Time changes smaller than this are noise.
    min_delta_ns: u64,
    /// Calls (or I/O operations) of the row being compared, which a change in a per-call
    /// time is multiplied by before it is held to the floor.
    per_call_weight: u64,
    /// Percentiles both reports show.
    percentiles: Vec<f64>,
    /// Both reports have the `alloc` section.
    alloc: bool,
    /// Both reports have the `cpu` section.
    cpu: bool,
    changes: Vec<Change>,
}

impl Compare {
    fn push(
        &mut self,
        row: RowKey,
        shown: &str,
        metric: Metric,
        base: Option<Value>,
        head: Option<Value>,
    ) {
        let verdict = match (base, head) {
            (None, None) => return,
            (None, _) | (_, None) => Verdict::NotComparable,
            (Some(b), Some(h)) if metric.unit() == Unit::Time => {
                let (b, h) = (b.as_f64(), h.as_f64());
                let weight = if metric.is_per_call() {
                    self.per_call_weight as f64
                } else {
                    1.0
                };
                if (h - b).abs() * weight < self.min_delta_ns as f64 {
                    Verdict::Noise
                } else if b == 0.0 {
                    if h > 0.0 {
                        Verdict::Slower
                    } else {
                        Verdict::Noise
                    }
                } else {
                    let r = (h - b) / b;
                    if r > self.threshold {
                        Verdict::Slower
                    } else if r < -self.threshold {
                        Verdict::Faster
                    } else {
                        Verdict::Noise
                    }
                }
            }
            (Some(b), Some(h)) => match b.as_f64().total_cmp(&h.as_f64()) {
                std::cmp::Ordering::Less => Verdict::Increased,
                std::cmp::Ordering::Greater => Verdict::Decreased,
                std::cmp::Ordering::Equal => match (b, h) {
                    // Integers above 2^53 can be equal as f64 and differ.
                    (Value::Int(b), Value::Int(h)) if b < h => Verdict::Increased,
                    (Value::Int(b), Value::Int(h)) if b > h => Verdict::Decreased,
                    _ => Verdict::Unchanged,
                },
            },
        };
        self.changes.push(Change {
            row,
            shown: shown.to_string(),
            metric,
            base,
            head,
            verdict,
        });
    }

    fn function(&mut self, key: &RowKey, shown: &str, b: &Function, h: &Function) {
        self.per_call_weight = b.calls.max(h.calls).max(1);
        let (percentiles, alloc, cpu) = (self.percentiles.clone(), self.alloc, self.cpu);
        let int = |v: u64| Some(Value::Int(v));
        let mut push = |metric, bv, hv| self.push(key.clone(), shown, metric, bv, hv);
        push(Metric::Calls, int(b.calls), int(h.calls));
        let (bw, hw) = (b.wall_ns.as_ref(), h.wall_ns.as_ref());
        push(
            Metric::Total,
            bw.map(|w| Value::Int(w.total)),
            hw.map(|w| Value::Int(w.total)),
        );
        // A quantity equal to the total in both reports says nothing the total does not:
        // self time without measured children, and every per-call time of a function
        // called once on both sides.
        let no_children = |w: &hotpath_report::WallNs| w.self_ == w.total;
        if !(bw.is_some_and(no_children) && hw.is_some_and(no_children)) {
            push(
                Metric::SelfTime,
                bw.map(|w| Value::Int(w.self_)),
                hw.map(|w| Value::Int(w.self_)),
            );
        }
        let once = |f: &Function| f.calls <= 1;
        if !(once(b) && once(h) && bw.is_some() && hw.is_some()) {
            push(
                Metric::Avg,
                bw.map(|w| Value::Int(w.mean)),
                hw.map(|w| Value::Int(w.mean)),
            );
            for p in &percentiles {
                push(
                    Metric::Percentile(*p),
                    bw.and_then(|w| w.percentiles.get(*p)).map(Value::Int),
                    hw.and_then(|w| w.percentiles.get(*p)).map(Value::Int),
                );
            }
        }
        if cpu {
            push(
                Metric::Cpu,
                b.cpu.as_ref().map(|c| Value::Int(c.cpu_ns)),
                h.cpu.as_ref().map(|c| Value::Int(c.cpu_ns)),
            );
        }
        if alloc {
            let (ba, ha) = (b.alloc.as_ref(), h.alloc.as_ref());
            push(
                Metric::Allocs,
                ba.map(|a| Value::Int(a.count)),
                ha.map(|a| Value::Int(a.count)),
            );
            push(
                Metric::AllocBytes,
                ba.map(|a| Value::Int(a.bytes)),
                ha.map(|a| Value::Int(a.bytes)),
            );
            push(
                Metric::AllocsPerCall,
                ba.map(|a| Value::Real(a.per_call_count)),
                ha.map(|a| Value::Real(a.per_call_count)),
            );
            push(
                Metric::BytesPerCall,
                ba.map(|a| Value::Int(a.per_call_bytes)),
                ha.map(|a| Value::Int(a.per_call_bytes)),
            );
        }
    }

    fn io(&mut self, key: &RowKey, shown: &str, b: &IoEntry, h: &IoEntry) {
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

impl Compare {
    fn flow(&mut self, key: &RowKey, shown: &str, b: &FlowRow, h: &FlowRow) {
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

/// Channel, stream and future entries as rows of quantities.
mod flow {
    use std::collections::HashMap;

    use hotpath_report::format::{count, short_type};
    use hotpath_report::Report;

    use super::super::{RowKey, Unmatched};

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

    pub(super) fn key(
        (what, name, type_name): (&'static str, String, String),
        nth: usize,
    ) -> RowKey {
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

    pub(super) fn unmatched(
        shown: &HashMap<RowKey, String>,
        row: RowKey,
        e: &FlowRow,
    ) -> Unmatched {
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
}

/// Rows of two reports matched by identity; the k-th row with an identity in BASE
/// matches the k-th with it in HEAD.
struct Matching<K> {
    /// Identity and occurrence of each BASE row.
    base: Vec<(K, usize)>,
    /// Identity and occurrence of each HEAD row.
    head: Vec<(K, usize)>,
    /// (BASE index, HEAD index) of the rows in both, in HEAD's order.
    pairs: Vec<(usize, usize)>,
    /// Every identity and occurrence of either report.
    keys: Vec<(K, usize)>,
}

impl<K: Clone + Eq + std::hash::Hash> Matching<K> {
    fn new<T>(base: &[T], head: &[T], key: impl Fn(&T) -> K) -> Self {
        let numbered = |rows: &[T]| {
            let mut seen: HashMap<K, usize> = HashMap::new();
            rows.iter()
                .map(|r| {
                    let k = key(r);
                    let n = seen.entry(k.clone()).or_insert(0);
                    *n += 1;
                    (k, *n - 1)
                })
                .collect::<Vec<_>>()
        };
        let (base, head) = (numbered(base), numbered(head));
        let in_base: HashMap<&(K, usize), usize> =
            base.iter().enumerate().map(|(i, k)| (k, i)).collect();
        let pairs = head
            .iter()
            .enumerate()
            .filter_map(|(hi, k)| Some((*in_base.get(k)?, hi)))
            .collect();
        let mut keys = head.clone();
        keys.extend(base.iter().filter(|k| !head.contains(k)).cloned());
        Matching {
            base,
            head,
            pairs,
            keys,
        }
    }

    fn only_head(&self) -> Vec<usize> {
        (0..self.head.len())
            .filter(|i| !self.pairs.iter().any(|(_, h)| h == i))
            .collect()
    }

    fn only_base(&self) -> Vec<usize> {
        (0..self.base.len())
            .filter(|i| !self.pairs.iter().any(|(b, _)| b == i))
            .collect()
    }

    fn row_key_of_head(&self, i: usize, make: impl Fn(K, usize) -> RowKey) -> RowKey {
        let (k, n) = self.head[i].clone();
        make(k, n)
    }

    fn row_key_of_base(&self, i: usize, make: impl Fn(K, usize) -> RowKey) -> RowKey {
        let (k, n) = self.base[i].clone();
        make(k, n)
    }
}

type FunctionKey = ((String, Option<String>), usize);
type IoKey = ((String, String), usize);

fn function_key((name, label): (String, Option<String>), nth: usize) -> RowKey {
    RowKey::Function { name, label, nth }
}

fn io_key((name, type_name): (String, String), nth: usize) -> RowKey {
    RowKey::Io {
        name,
        type_name,
        nth,
    }
}

/// Display names of the functions: the label or name; `label (name)` when two rows share
/// it; ` #2`, ` #3` for later rows with the same name and label.
fn shown_functions(keys: &[FunctionKey]) -> HashMap<RowKey, String> {
    let display = |(name, label): &(String, Option<String>)| label.as_ref().unwrap_or(name).clone();
    let mut out = HashMap::new();
    for (id, nth) in keys {
        let mut s = display(id);
        let twins = keys
            .iter()
            .filter(|(o, _)| o != id && display(o) == s)
            .count();
        if twins > 0 {
            if id.1.is_some() {
                s = format!("{s} ({})", id.0);
            } else {
                s = format!("{s} (fn)");
            }
        }
        if *nth > 0 {
            s = format!("{s} #{}", nth + 1);
        }
        out.insert(function_key(id.clone(), *nth), s);
    }
    out
}

/// Display names of the I/O entries: `io: <name>`, with the short type when two entries
/// share the name, and ` #2` for later ones with the same name and type.
fn shown_io(keys: &[IoKey]) -> HashMap<RowKey, String> {
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

fn unmatched_function(shown: &HashMap<RowKey, String>, row: RowKey, f: &Function) -> Unmatched {
    let calls = if f.calls == 1 {
        "1 call".to_string()
    } else {
        format!("{} calls", count(f.calls))
    };
    let summary = match &f.wall_ns {
        Some(w) => format!("{calls}, {} total", duration(w.total)),
        None => format!("{calls}, not timed"),
    };
    Unmatched {
        shown: shown[&row].clone(),
        row,
        summary,
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

/// What differs in how the two reports were made, then each report's own notes.
fn notes(base: &Report, head: &Report, compared: &[f64]) -> Vec<String> {
    let mut out = Vec::new();
    if base.caller != head.caller {
        out.push(format!(
            "callers differ: base {}, head {}",
            base.caller, head.caller
        ));
    }
    if base.clock != head.clock {
        out.push(format!(
            "clocks differ: base {}, head {}",
            base.clock, head.clock
        ));
    }
    if base.percentiles != head.percentiles {
        let list = |ps: &[f64]| {
            if ps.is_empty() {
                "none".to_string()
            } else {
                ps.iter()
                    .map(|p| format!("p{}", percentile_label(*p)))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        out.push(format!(
            "percentiles differ: base {}; head {}; compared: {}",
            list(&base.percentiles),
            list(&head.percentiles),
            list(compared)
        ));
    }
    if base.time_sampling_rate != head.time_sampling_rate {
        out.push(format!(
            "time sampling rates differ: base {}, head {} of calls timed; sampled times are estimates",
            percent_label(base.time_sampling_rate),
            percent_label(head.time_sampling_rate)
        ));
    }
    if let (Some(b), Some(h)) = (base.io_time_sampling_rate, head.io_time_sampling_rate) {
        if b != h {
            out.push(format!(
                "I/O time sampling rates differ: base {}, head {} of operations timed",
                percent_label(b),
                percent_label(h)
            ));
        }
    }
    if base.sections != head.sections {
        let only = |a: &Report, b: &Report| -> Vec<String> {
            a.sections
                .iter()
                .filter(|s| !b.sections.contains(s))
                .map(|s| s.name().to_string())
                .collect()
        };
        let mut parts = Vec::new();
        let (ob, oh) = (only(base, head), only(head, base));
        if !ob.is_empty() {
            parts.push(format!("{} only in base", ob.join(", ")));
        }
        if !oh.is_empty() {
            parts.push(format!("{} only in head", oh.join(", ")));
        }
        if parts.is_empty() {
            parts.push(format!(
                "base {}, head {}",
                Section::join(&base.sections, ", "),
                Section::join(&head.sections, ", ")
            ));
        }
        out.push(format!(
            "sections differ: {}; alloc and cpu are compared only when both reports have them, \
             threads never",
            parts.join("; ")
        ));
    }
    if let (Some(b), Some(h)) = (&base.cpu, &head.cpu) {
        if b.mode != h.mode {
            out.push(format!(
                "CPU modes differ: base {}, head {}",
                b.mode, h.mode
            ));
        }
    }
    for n in &base.notes {
        if head.notes.contains(n) {
            out.push(format!("both reports: {n}"));
        } else {
            out.push(format!("base report: {n}"));
        }
    }
    for n in head.notes.iter().filter(|n| !base.notes.contains(n)) {
        out.push(format!("head report: {n}"));
    }
    out
}
