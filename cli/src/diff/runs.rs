//! Several runs on each side: `hotpath diff BASE_DIR/ HEAD_DIR/`.
//!
//! One run of a program is one sample of its times; two runs of the same code differ by
//! several percent, and a rarely called function's times by much more. With several runs
//! a side, each quantity is compared by its median over that side's runs, and a change
//! counts only when the two sides' ranges do not overlap: a time is slower when HEAD's
//! median exceeds BASE's by more than the threshold (and the floor) *and* every HEAD run
//! is slower than every BASE run; faster likewise. An exact quantity that is not the same
//! in every run of a side (allocations of a program with random hash seeds, say) changes
//! only when the ranges do not overlap either. Everything else is noise. With five runs a
//! side, the chance that all five HEAD runs land above all five BASE runs when nothing
//! changed is 1 in 252.
//!
//! Rows are matched across the runs of one side the way they are across sides (name and
//! label, or name and type, in the order listed); a row missing from some runs is
//! summarised over the runs that have it, and a note says how many such rows there are.

use std::collections::HashMap;

use hotpath::report::Report;
use serde_json::{Map, Value as Json};

use super::{compare::diff_with_floor, Diff, RowKey, Unit, Verdict};

/// Which order statistic of a side's runs a folded report holds.
#[derive(Clone, Copy)]
enum Stat {
    Min,
    /// The middle run; the lower of the two middle ones for an even number, so that every
    /// value is one a run produced (and integers stay integers).
    Median,
    Max,
}

/// Compares the runs of HEAD against the runs of BASE (see the module docs); with one
/// run a side it is [`diff_with_floor`]. `None` when a side has no run.
pub fn diff_runs(
    base: &[Report],
    head: &[Report],
    threshold: f64,
    min_delta_ns: u64,
) -> Option<Diff> {
    if let ([b], [h]) = (base, head) {
        return Some(diff_with_floor(b, h, threshold, min_delta_ns));
    }
    if base.is_empty() || head.is_empty() {
        return None;
    }
    let (b, h) = (Side::new(base), Side::new(head));
    let mut d = diff_with_floor(&b.median, &h.median, threshold, min_delta_ns);
    // HEAD's lowest against BASE's highest, and HEAD's highest against BASE's lowest.
    let up = index(diff_with_floor(&b.max, &h.min, threshold, 0));
    let down = index(diff_with_floor(&b.min, &h.max, threshold, 0));
    for c in &mut d.changes {
        let key = (c.row.clone(), c.metric.to_string());
        let (Some(up), Some(down)) = (up.get(&key), down.get(&key)) else {
            continue;
        };
        // `up` is (BASE max, HEAD min), `down` is (BASE min, HEAD max).
        let (Some(bmax), Some(hmin), Some(bmin), Some(hmax)) = (up.0, up.1, down.0, down.1) else {
            continue;
        };
        let above = hmin > bmax;
        let below = hmax < bmin;
        let varies = bmin != bmax || hmin != hmax;
        c.verdict = match c.verdict {
            Verdict::Slower if !above => Verdict::Noise,
            Verdict::Faster if !below => Verdict::Noise,
            Verdict::Increased | Verdict::Decreased
                if c.metric.unit() != Unit::Time && varies && !above && !below =>
            {
                Verdict::Noise
            }
            v => v,
        };
    }
    d.base_runs = base.len();
    d.head_runs = head.len();
    for (side, s) in [("base", &b), ("head", &h)] {
        if s.partial_rows > 0 {
            let (rows, are) = if s.partial_rows == 1 {
                ("row", "is")
            } else {
                ("rows", "are")
            };
            d.notes.push(format!(
                "{} {rows} of {side} {are} not in every one of its {} runs, and summarised over \
                 the runs that have {}",
                s.partial_rows,
                s.runs,
                if s.partial_rows == 1 { "it" } else { "them" }
            ));
        }
    }
    Some(d)
}

/// (BASE, HEAD) of every compared quantity, by row and metric name.
type Index = HashMap<(RowKey, String), (Option<f64>, Option<f64>)>;

fn index(d: Diff) -> Index {
    let value = |v: Option<super::Value>| v.map(|v| v.as_f64());
    d.changes
        .into_iter()
        .map(|c| {
            let key = (c.row, c.metric.to_string());
            (key, (value(c.base), value(c.head)))
        })
        .collect()
}

/// The runs of one side folded into three reports.
struct Side {
    runs: usize,
    min: Report,
    median: Report,
    max: Report,
    /// Functions and I/O entries missing from some runs.
    partial_rows: usize,
}

impl Side {
    fn new(runs: &[Report]) -> Side {
        let json: Vec<Json> = runs
            .iter()
            .map(|r| serde_json::to_value(r).unwrap_or(Json::Null))
            .collect();
        let refs: Vec<&Json> = json.iter().collect();
        let report_of = |stat| {
            serde_json::from_value::<Report>(fold(&refs, stat))
                // Folding keeps every field's kind, so this holds; the first run otherwise.
                .unwrap_or_else(|_| runs[0].clone())
        };
        let partial_rows = ["functions", "io"]
            .iter()
            .map(|k| {
                let lists: Vec<&Json> = refs.iter().filter_map(|r| r.get(k)).collect();
                keyed_groups(&lists)
                    .iter()
                    .filter(|g| g.len() < runs.len())
                    .count()
            })
            .sum();
        Side {
            runs: runs.len(),
            min: report_of(Stat::Min),
            median: report_of(Stat::Median),
            max: report_of(Stat::Max),
            partial_rows,
        }
    }
}

/// One value made of the same value in several runs: numbers by `stat`, objects key by
/// key, lists of rows by row identity, other lists element by element (lists of strings
/// as their union), anything else as in the first run that has it.
fn fold(values: &[&Json], stat: Stat) -> Json {
    let present: Vec<&Json> = values.iter().copied().filter(|v| !v.is_null()).collect();
    let Some(first) = present.first() else {
        return Json::Null;
    };
    match first {
        Json::Number(_) => {
            let mut numbers: Vec<&Json> = present.into_iter().filter(|v| v.is_number()).collect();
            numbers.sort_by(|a, b| {
                let f = |v: &Json| v.as_f64().unwrap_or(0.0);
                f(a).total_cmp(&f(b))
                    // Integers above 2^53 compare exactly.
                    .then(a.as_u64().cmp(&b.as_u64()))
            });
            let i = match stat {
                Stat::Min => 0,
                Stat::Median => (numbers.len() - 1) / 2,
                Stat::Max => numbers.len() - 1,
            };
            numbers[i].clone()
        }
        Json::Object(o) => {
            let mut out = Map::new();
            for k in o.keys() {
                let field: Vec<&Json> = present.iter().filter_map(|v| v.get(k)).collect();
                out.insert(k.clone(), fold(&field, stat));
            }
            Json::Object(out)
        }
        Json::Array(a) if !a.is_empty() && a.iter().all(Json::is_string) => {
            let mut out: Vec<Json> = Vec::new();
            for v in present.iter().filter_map(|v| v.as_array()).flatten() {
                if !out.contains(v) {
                    out.push(v.clone());
                }
            }
            Json::Array(out)
        }
        Json::Array(a) if a.first().is_some_and(|e| e.get("name").is_some()) => Json::Array(
            keyed_groups(&present)
                .iter()
                .map(|g| fold(g, stat))
                .collect(),
        ),
        Json::Array(_) => {
            let lists: Vec<&Vec<Json>> = present.iter().filter_map(|v| v.as_array()).collect();
            let len = lists.iter().map(|l| l.len()).max().unwrap_or(0);
            Json::Array(
                (0..len)
                    .map(|i| {
                        let at: Vec<&Json> = lists.iter().filter_map(|l| l.get(i)).collect();
                        fold(&at, stat)
                    })
                    .collect(),
            )
        }
        _ => (*first).clone(),
    }
}

/// The rows of several lists grouped by identity (`name`, `label`, `type_name`, and which
/// of the rows with those it is), in the order each first appears.
fn keyed_groups<'a>(lists: &[&'a Json]) -> Vec<Vec<&'a Json>> {
    let mut order: Vec<(String, usize)> = Vec::new();
    let mut groups: HashMap<(String, usize), Vec<&'a Json>> = HashMap::new();
    for list in lists.iter().filter_map(|l| l.as_array()) {
        let mut seen: HashMap<String, usize> = HashMap::new();
        for row in list {
            let id = ["name", "label", "type_name"]
                .map(|k| row.get(k).map_or_else(String::new, Json::to_string))
                .join("\u{0}");
            let nth = seen.entry(id.clone()).or_insert(0);
            let key = (id, *nth);
            *nth += 1;
            groups
                .entry(key.clone())
                .or_insert_with(|| {
                    order.push(key);
                    Vec::new()
                })
                .push(row);
        }
    }
    order
        .into_iter()
        .filter_map(|k| groups.remove(&k))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_fold_to_an_order_statistic_rows_by_identity() {
        let runs = [
            serde_json::json!({"n": 3, "rows": [{"name": "a", "x": 1}, {"name": "b", "x": 9}]}),
            serde_json::json!({"n": 1, "rows": [{"name": "b", "x": 7}, {"name": "a", "x": 5}]}),
            serde_json::json!({"n": 2, "rows": [{"name": "a", "x": 3}]}),
        ];
        let refs: Vec<&Json> = runs.iter().collect();
        assert_eq!(
            fold(&refs, Stat::Median),
            serde_json::json!({"n": 2, "rows": [{"name": "a", "x": 3}, {"name": "b", "x": 7}]})
        );
        assert_eq!(
            fold(&refs, Stat::Min),
            serde_json::json!({"n": 1, "rows": [{"name": "a", "x": 1}, {"name": "b", "x": 7}]})
        );
        assert_eq!(
            fold(&refs, Stat::Max),
            serde_json::json!({"n": 3, "rows": [{"name": "a", "x": 5}, {"name": "b", "x": 9}]})
        );
    }

    #[test]
    fn the_lower_middle_of_an_even_number_and_exact_big_integers() {
        let runs = [
            serde_json::json!({"n": u64::MAX}),
            serde_json::json!({"n": u64::MAX - 1}),
        ];
        let refs: Vec<&Json> = runs.iter().collect();
        assert_eq!(
            fold(&refs, Stat::Median),
            serde_json::json!({"n": u64::MAX - 1})
        );
        assert_eq!(fold(&refs, Stat::Max), serde_json::json!({"n": u64::MAX}));
    }
}
