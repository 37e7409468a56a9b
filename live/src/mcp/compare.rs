//! The `compare` tool's comparison: the report so far against a saved one, function by
//! function. The rows and verdicts are `hotpath diff`'s (`hotpath_report::diff`, the one
//! comparison core): functions matched by name, label and order, the verdict that of the
//! mean time of one call (of the total for a function called once on both sides) against
//! the threshold; totals, calls, percentiles, allocations and CPU time are shown beside
//! it.
//!
//! A live report is of a run in progress, so its totals and calls grow while it runs;
//! what compares across runs of different length is the cost of one call.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use hotpath_report::diff::{self, Metric, RowKey, Verdict};
use hotpath_report::{percentile_key, Function, Report};

/// The comparison.
#[derive(Debug, Serialize)]
pub(crate) struct Comparison {
    /// The saved report's caller, label and length.
    pub baseline: Run,
    /// The report so far.
    pub current: Run,
    /// A per-call time that changed by more than this is `slower` or `faster`.
    pub threshold_percent: f64,
    /// How the verdicts were reached.
    pub note: &'static str,
    /// Functions in both reports, the largest change of per-call time first (at most
    /// `limit`).
    pub functions: Vec<Row>,
    /// How many functions in both reports got each verdict.
    pub summary: Summary,
    /// Functions measured now and absent from the baseline.
    pub only_in_current: Vec<String>,
    /// Functions in the baseline not measured (yet) now.
    pub only_in_baseline: Vec<String>,
    /// Rows left out by the limit.
    pub functions_not_shown: usize,
}

/// One side.
#[derive(Debug, Serialize)]
pub(crate) struct Run {
    pub caller: String,
    pub label: Option<String>,
    pub elapsed_ns: u64,
}

/// Verdict counts.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Summary {
    pub slower: usize,
    pub faster: usize,
    pub same: usize,
    pub not_timed: usize,
}

/// One function in both reports.
#[derive(Debug, Serialize)]
pub(crate) struct Row {
    pub name: String,
    pub label: Option<String>,
    /// `slower`, `faster`, `same` (mean time of one call against the threshold), or
    /// `not timed` (a side has no timed call).
    pub verdict: &'static str,
    pub calls: Pair,
    pub mean_ns: Pair,
    /// Each percentile both reports have: `p50`, `p99`, ...
    pub percentiles_ns: BTreeMap<String, Pair>,
    pub total_ns: Pair,
    pub self_ns: Pair,
    /// Mean bytes allocated by one call, when both reports measured allocations.
    #[serde(skip_serializing_if = "Pair::is_empty")]
    pub alloc_bytes_per_call: Pair,
    /// CPU time of the calls, when both reports measured it.
    #[serde(skip_serializing_if = "Pair::is_empty")]
    pub cpu_ns: Pair,
}

/// A quantity in both reports, and its change in percent of the baseline.
#[derive(Debug, Default, PartialEq, Serialize)]
pub(crate) struct Pair {
    pub baseline: Option<u64>,
    pub current: Option<u64>,
    /// `null` when a side is missing or the baseline is 0.
    pub change_percent: Option<f64>,
}

impl Pair {
    fn new(baseline: Option<u64>, current: Option<u64>) -> Pair {
        let change_percent = match (baseline, current) {
            (Some(b), Some(c)) if b > 0 => {
                let pct = (c as f64 - b as f64) / b as f64 * 100.0;
                // Two decimals are all anyone reads.
                Some((pct * 100.0).round() / 100.0)
            }
            _ => None,
        };
        Pair {
            baseline,
            current,
            change_percent,
        }
    }

    fn is_empty(&self) -> bool {
        self.baseline.is_none() && self.current.is_none()
    }
}

/// Compares `current` against `baseline`; at most `limit` rows (0: all).
pub(crate) fn compare(
    baseline: &Report,
    current: &Report,
    threshold_percent: f64,
    limit: usize,
) -> Comparison {
    let d = diff::diff(baseline, current, threshold_percent / 100.0);
    let percentiles: Vec<f64> = current
        .percentiles
        .iter()
        .copied()
        .filter(|p| baseline.percentiles.contains(p))
        .collect();
    let base_rows = keyed(baseline);
    let mut summary = Summary::default();
    let mut rows = Vec::new();
    for (key, c) in keyed(current) {
        let Some((_, b)) = base_rows.iter().find(|(k, _)| *k == key) else {
            continue;
        };
        let timed = |m: Metric| {
            d.changes
                .iter()
                .find(|ch| ch.row == key && ch.metric == m)
                .map(|ch| ch.verdict)
        };
        // The mean of one call; the engine leaves it out when both sides were called
        // once (it is the total then).
        let verdict = match timed(Metric::Avg).or_else(|| timed(Metric::Total)) {
            Some(Verdict::Slower) => "slower",
            Some(Verdict::Faster) => "faster",
            Some(Verdict::Noise) => "same",
            _ => "not timed",
        };
        match verdict {
            "slower" => summary.slower += 1,
            "faster" => summary.faster += 1,
            "same" => summary.same += 1,
            _ => summary.not_timed += 1,
        }
        rows.push(compare_function(b, c, &percentiles, verdict));
    }
    let names = |r: &Report, only: &[diff::Unmatched]| -> Vec<String> {
        keyed(r)
            .into_iter()
            .filter(|(k, _)| only.iter().any(|u| u.row == *k))
            .map(|(_, f)| f.full_display_name().to_string())
            .collect()
    };
    let only_in_current = names(current, &d.added);
    let only_in_baseline = names(baseline, &d.removed);
    // Largest change of per-call time first, either way; untimed rows last.
    rows.sort_by(|a, b| {
        let size = |r: &Row| r.mean_ns.change_percent.map(f64::abs);
        size(b)
            .partial_cmp(&size(a))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.name.cmp(&b.name))
    });
    let shown = if limit == 0 { rows.len() } else { limit };
    let functions_not_shown = rows.len().saturating_sub(shown);
    rows.truncate(shown);
    Comparison {
        baseline: run(baseline),
        current: run(current),
        threshold_percent,
        note: "verdicts are hotpath diff's: the mean wall time of one call against the \
               threshold; calls and totals grow while the program runs, so compare them only \
               between runs of the same work",
        functions: rows,
        summary,
        only_in_current,
        only_in_baseline,
        functions_not_shown,
    }
}

/// The functions of `r` with the diff's row key: name, label, and which of the rows with
/// that name and label it is.
fn keyed(r: &Report) -> Vec<(RowKey, &Function)> {
    let mut seen: HashMap<(&str, Option<&str>), usize> = HashMap::new();
    r.functions
        .iter()
        .map(|f| {
            let n = seen.entry((&f.name, f.label.as_deref())).or_insert(0);
            let key = RowKey::Function {
                name: f.name.clone(),
                label: f.label.clone(),
                nth: *n,
            };
            *n += 1;
            (key, f)
        })
        .collect()
}

fn run(r: &Report) -> Run {
    Run {
        caller: r.caller.clone(),
        label: r.label.clone(),
        elapsed_ns: r.elapsed_ns,
    }
}

fn compare_function(b: &Function, c: &Function, percentiles: &[f64], verdict: &'static str) -> Row {
    let wall = |f: &Function, get: fn(&hotpath_report::WallNs) -> u64| f.wall_ns.as_ref().map(get);
    let mean_ns = Pair::new(wall(b, |w| w.mean), wall(c, |w| w.mean));
    let both = |f: fn(&Function) -> Option<u64>| {
        let (x, y) = (f(b), f(c));
        if x.is_some() && y.is_some() {
            Pair::new(x, y)
        } else {
            Pair::default()
        }
    };
    Row {
        name: c.name.clone(),
        label: c.label.clone(),
        verdict,
        calls: Pair::new(Some(b.calls), Some(c.calls)),
        percentiles_ns: percentiles
            .iter()
            .map(|&p| {
                let at = |f: &Function| f.wall_ns.as_ref().and_then(|w| w.percentiles.get(p));
                (percentile_key(p), Pair::new(at(b), at(c)))
            })
            .collect(),
        mean_ns,
        total_ns: Pair::new(wall(b, |w| w.total), wall(c, |w| w.total)),
        self_ns: Pair::new(wall(b, |w| w.self_), wall(c, |w| w.self_)),
        alloc_bytes_per_call: both(|f| f.alloc.as_ref().map(|a| a.per_call_bytes)),
        cpu_ns: both(|f| f.cpu.as_ref().map(|c| c.cpu_ns)),
    }
}
