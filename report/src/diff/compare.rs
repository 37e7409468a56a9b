//! Matching the rows of two reports and judging each quantity. Each kind of row (functions,
//! I/O entries, data flow, locks, service rows) is matched and compared by a module of
//! its own; the notes say how the reports were made differently.

use std::collections::HashMap;

use crate::format::short_type;
use crate::model_dist::Distribution;
use crate::{Report, Section};

use super::{Change, Diff, Metric, RowKey, Unit, Unmatched, Value, Verdict};

mod flow;
mod functions;
mod io;
mod locks;
mod notes;
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
        icount: has(base, Section::Icount) && has(head, Section::Icount),
        untimed: notes::counted(base) && notes::counted(head),
        changes: Vec::new(),
    };

    // The process.
    let process = |c: &mut Compare, metric, v| c.push(RowKey::Process, "(process)", metric, v);
    process(
        &mut c,
        Metric::Elapsed,
        ints(base.elapsed_ns, head.elapsed_ns),
    );
    if let (Some(b), Some(h)) = (&base.cpu, &head.cpu) {
        process(
            &mut c,
            Metric::Cpu,
            ints(b.process_cpu_ns, h.process_cpu_ns),
        );
    }
    if let (Some(b), Some(h)) = (&base.alloc_total, &head.alloc_total) {
        process(&mut c, Metric::Allocs, ints(b.count, h.count));
        process(&mut c, Metric::AllocBytes, ints(b.bytes, h.bytes));
    }

    // Each kind of row, its changes in this order.
    let functions = c.functions(base, head);
    let io = c.io(base, head);
    let flow = c.flow(base, head);
    let locks = c.locks(base, head);
    let service = c.service(base, head);

    // Rows in one report only: channels, streams and futures first, then functions, I/O
    // entries, lock modes, and SQL queries, HTTP endpoints and server routes.
    let mut added = Vec::new();
    let mut removed = Vec::new();
    for (only_head, only_base) in [flow, functions, io, locks, service] {
        added.extend(only_head);
        removed.extend(only_base);
    }

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
        notes: notes::notes(base, head, &c.percentiles),
    }
}

/// The rows of one kind in one report only: those only in HEAD (added), those only in
/// BASE (removed).
type Unpaired = (Vec<Unmatched>, Vec<Unmatched>);

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
    /// Both reports have the `icount` section.
    icount: bool,
    /// Both reports ran under callgrind: times are not compared (an instruction count
    /// is exact; the elapsed time under valgrind varies by tens of percent).
    untimed: bool,
    changes: Vec<Change>,
}

/// A quantity of a row in BASE and in HEAD; `None` where that report does not have it.
type Sides = (Option<Value>, Option<Value>);

/// An integer quantity both reports' rows have.
fn ints(base: u64, head: u64) -> Sides {
    (Some(Value::Int(base)), Some(Value::Int(head)))
}

/// A quantity a row may lack in either report.
fn opt_ints(base: Option<u64>, head: Option<u64>) -> Sides {
    (base.map(Value::Int), head.map(Value::Int))
}

/// The quantity `v` reads from a part of the row (its wall time, allocations, a
/// distribution...) in each report whose row has the part.
fn sides<T>((base, head): (Option<&T>, Option<&T>), v: impl Fn(&T) -> Value) -> Sides {
    (base.map(&v), head.map(&v))
}

/// The mean and each percentile in `percentiles` of a distribution in BASE and in HEAD
/// (`None` where that report's row has none), as metrics `avg`, `p50`, ...
fn dist_sides<D: Distribution>(
    percentiles: &[f64],
    (base, head): (Option<&D>, Option<&D>),
) -> Vec<(Metric, Sides)> {
    let mut out = vec![(Metric::Avg, sides((base, head), |d| Value::Int(d.mean())))];
    for &p in percentiles {
        let at = |d: Option<&D>| d.and_then(|d| d.percentiles().get(p));
        out.push((Metric::Percentile(p), opt_ints(at(base), at(head))));
    }
    out
}

impl Compare {
    fn push(&mut self, row: RowKey, shown: &str, metric: Metric, (base, head): Sides) {
        if self.untimed && metric.unit() == Unit::Time {
            return;
        }
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
}

impl Compare {
    /// Compares rows given as `(identity, row)`, matched by identity: `pair` pushes the
    /// quantities of each row in both under its key (`key`) and name (`shown`), from
    /// the identity and its occurrence; returns the rows only in HEAD and only in BASE,
    /// each told by its key, name and `summary`.
    fn keyed_rows<Id: Clone + Eq + std::hash::Hash, T>(
        &mut self,
        base: &[(Id, T)],
        head: &[(Id, T)],
        key: fn(Id, usize) -> RowKey,
        shown: fn(&Id, usize) -> String,
        mut pair: impl FnMut(&mut Self, &RowKey, &str, &T, &T),
        summary: impl Fn(&T) -> String,
    ) -> Unpaired {
        let m = Matching::new(base, head, |(id, _)| id.clone());
        for (bi, hi) in &m.pairs {
            let row = m.row_key_of_head(*hi, key);
            let (id, nth) = &m.head[*hi];
            pair(self, &row, &shown(id, *nth), &base[*bi].1, &head[*hi].1);
        }
        m.unmatched(base, head, |(id, nth), (_, r)| Unmatched {
            row: key(id.clone(), *nth),
            shown: shown(id, *nth),
            summary: summary(r),
        })
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

    /// The rows only in HEAD and those only in BASE, each told by `unmatched` from its
    /// identity and occurrence and the row.
    fn unmatched<T>(
        &self,
        base: &[T],
        head: &[T],
        unmatched: impl Fn(&(K, usize), &T) -> Unmatched,
    ) -> Unpaired {
        let only_head = self.only_head().into_iter();
        let only_base = self.only_base().into_iter();
        (
            only_head
                .map(|i| unmatched(&self.head[i], &head[i]))
                .collect(),
            only_base
                .map(|i| unmatched(&self.base[i], &base[i]))
                .collect(),
        )
    }
}

/// `s`, with ` #2`, ` #3` after it for the later rows of one identity (`nth` from 0).
fn numbered(s: String, nth: usize) -> String {
    if nth > 0 {
        format!("{s} #{}", nth + 1)
    } else {
        s
    }
}

/// `what: name`, with ` (detail)` when there is one, [`numbered`].
fn shown_with(what: &str, name: &str, detail: Option<&str>, nth: usize) -> String {
    let s = match detail {
        Some(detail) => format!("{what}: {name} ({detail})"),
        None => format!("{what}: {name}"),
    };
    numbered(s, nth)
}

/// Display names of rows told apart by kind, name and type: `io: <name>`,
/// `channel: jobs`, with the short type when another row of the kind shares the name
/// with another type, and ` #2` for later rows of the same identity. `parts` gives a
/// row's kind, name and type; `key` its row key.
fn typed_names<K: Clone>(
    keys: &[(K, usize)],
    parts: impl Fn(&K) -> (&str, &str, &str),
    key: impl Fn(K, usize) -> RowKey,
) -> HashMap<RowKey, String> {
    let mut out = HashMap::new();
    for (id, nth) in keys {
        let (kind, name, type_name) = parts(id);
        let mut s = format!("{kind}: {name}");
        if keys.iter().any(|(o, _)| {
            let (o_kind, o_name, o_type) = parts(o);
            o_kind == kind && o_name == name && o_type != type_name
        }) {
            s = format!("{s} ({})", short_type(type_name));
        }
        out.insert(key(id.clone(), *nth), numbered(s, *nth));
    }
    out
}
