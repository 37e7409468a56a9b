//! Several runs on each side: `hotpath diff BASE_DIR/ HEAD_DIR/`.
//!
//! One run of a program is one sample of its times; two runs of the same code differ by
//! several percent, and a rarely called function's times (or a whole run, on a shared
//! machine) by much more. With several runs a side, each quantity is compared by its
//! median over that side's runs, and a change must also be *significant*: a time is
//! slower when HEAD's median exceeds BASE's by more than the threshold (and the floor)
//! and a one-sided Mann–Whitney U test over the runs finds HEAD above BASE at
//! p ≤ [`SIGNIFICANCE`] (or `--significance`); faster likewise. The test looks only at
//! how the runs of the two sides interleave, not at how far apart they are, so one wild
//! run weighs no more than any other. An exact quantity
//! that is the same in every run of a side keeps the one-run rule (every difference
//! counts); one that varies from run to run (allocations of a program with random hash
//! seeds, say) changes only when significant. Everything else is noise.
//!
//! The test needs runs. At the default p ≤ 0.01: with 5 a side, HEAD must be above BASE in
//! at least 24 of the 25 pairs of runs (p = 0.008); with 7 a side, in 43 of 49
//! (p = 0.009). With 4 or fewer runs a side nothing can be significant at 0.01 (3 a side
//! can reach 0.05 at best), and the comparison says so.
//!
//! Rows are matched across the runs of one side the way they are across sides (name and
//! label, or name and type, in the order listed); a row missing from some runs is
//! summarised over the runs that have it, and a note says how many such rows there are.
//! The notes of a side are those of its first run.

use std::collections::HashMap;

use crate::Report;
use serde_json::{Map, Value as Json};

use super::{compare::diff_with_floor, Diff, RowKey, Unit, Verdict};

/// The default largest one-sided p-value of the Mann–Whitney U test that counts as a
/// change (`--significance`). At 0.05, sets of 5 runs of the unchanged demo compared
/// with each other here gave 0 to 5 "regressions" among their ~80 compared times; at
/// 0.01, none.
pub const SIGNIFICANCE: f64 = 0.01;

/// Compares the runs of HEAD against the runs of BASE (see the module docs): a change
/// needs a one-sided p-value of at most `significance` ([`SIGNIFICANCE`] by default).
/// With one run a side it is [`diff_with_floor`]. `None` when a side has no run.
pub fn diff_runs(
    base: &[Report],
    head: &[Report],
    threshold: f64,
    min_delta_ns: u64,
    significance: f64,
) -> Option<Diff> {
    if let ([b], [h]) = (base, head) {
        return Some(diff_with_floor(b, h, threshold, min_delta_ns));
    }
    if base.is_empty() || head.is_empty() {
        return None;
    }
    let (b, h) = (Side::new(base), Side::new(head));
    let mut d = diff_with_floor(b.median(), h.median(), threshold, min_delta_ns);
    let (bv, hv) = (b.values(), h.values());
    let mut test = MannWhitney::default();
    for c in &mut d.changes {
        let key = (c.row.clone(), c.metric.to_string());
        let samples = |values: &[HashMap<(RowKey, String), f64>]| -> Vec<f64> {
            values.iter().filter_map(|v| v.get(&key).copied()).collect()
        };
        let (bs, hs) = (samples(&bv), samples(&hv));
        if bs.is_empty() || hs.is_empty() {
            continue;
        }
        let mut significant = |up: bool| test.p(&bs, &hs, up) <= significance;
        let constant = |xs: &[f64]| xs.iter().all(|x| *x == xs[0]);
        let exact = c.metric.unit() != Unit::Time;
        c.verdict = match c.verdict {
            Verdict::Slower if !significant(true) => Verdict::Noise,
            Verdict::Faster if !significant(false) => Verdict::Noise,
            Verdict::Increased
                if exact && !(constant(&bs) && constant(&hs)) && !significant(true) =>
            {
                Verdict::Noise
            }
            Verdict::Decreased
                if exact && !(constant(&bs) && constant(&hs)) && !significant(false) =>
            {
                Verdict::Noise
            }
            v => v,
        };
    }
    d.base_runs = base.len();
    d.head_runs = head.len();
    d.significance = Some(significance);
    // The smallest p-value these numbers of runs can give: HEAD above BASE in every pair.
    let mut best = |n: usize, m: usize| test.p(&vec![0.0; n], &vec![1.0; m], true);
    if best(base.len(), head.len()) > significance {
        let enough = (2..=64)
            .find(|&n| best(n, n) <= significance)
            .map_or_else(|| "more".to_string(), |n| n.to_string());
        d.notes.push(format!(
            "with {} and {} runs no change in a time can be significant at p <= \
             {significance}; give each side at least {enough} runs",
            base.len(),
            head.len()
        ));
    }
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
                s.ordered.len(),
                if s.partial_rows == 1 { "it" } else { "them" }
            ));
        }
    }
    Some(d)
}

/// One-sided p-values of the Mann–Whitney U test, with the null distribution of U for
/// each pair of side sizes worked out once.
#[derive(Default)]
struct MannWhitney {
    /// `tails[(n, m)][u]`: the chance of `u` or more of the `n * m` pairs ordered one way
    /// when both sides come from one distribution.
    tails: HashMap<(usize, usize), Vec<f64>>,
}

/// Up to this many pairs of runs the p-value is exact; beyond, a normal approximation.
const EXACT_PAIRS: usize = 10_000;

impl MannWhitney {
    /// The p-value that `head` is above `base` (`up`) or below it: the chance, were both
    /// sides drawn from one distribution, that at least as many (HEAD, BASE) pairs of runs
    /// would be ordered that way. Ties count against the change.
    fn p(&mut self, base: &[f64], head: &[f64], up: bool) -> f64 {
        let (n, m) = (base.len(), head.len());
        let u = head
            .iter()
            .map(|&h| {
                base.iter()
                    .filter(|&&b| if up { h > b } else { h < b })
                    .count()
            })
            .sum::<usize>();
        let pairs = n * m;
        if pairs == 0 {
            return 1.0;
        }
        if pairs > EXACT_PAIRS {
            return normal_tail(n, m, u);
        }
        self.tails.entry((n, m)).or_insert_with(|| tails(n, m))[u]
    }
}

/// `P(U >= u)` for `u` in `0..=n*m`, counting the orderings of `n` BASE and `m` HEAD runs:
/// with `c(i, j, k)` those of `i` and `j` runs with `k` pairs HEAD above BASE, the last
/// run is a HEAD run above all `i` BASE runs or a BASE run, so
/// `c(i, j, k) = c(i, j - 1, k - i) + c(i - 1, j, k)`. Two rows of `i` at a time.
fn tails(n: usize, m: usize) -> Vec<f64> {
    let pairs = n * m;
    // prev[j][k] = c(i - 1, j, k); row i = 0 has one ordering with no pair.
    let mut prev = vec![vec![0f64; pairs + 1]; m + 1];
    for row in &mut prev {
        row[0] = 1.0;
    }
    for i in 1..=n {
        let mut cur = vec![vec![0f64; pairs + 1]; m + 1];
        cur[0][0] = 1.0;
        for j in 1..=m {
            for k in 0..=i * j {
                let head_last = if k >= i { cur[j - 1][k - i] } else { 0.0 };
                cur[j][k] = head_last + prev[j][k];
            }
        }
        prev = cur;
    }
    let counts = &prev[m];
    let all: f64 = counts.iter().sum();
    let mut tail = vec![0f64; pairs + 1];
    let mut acc = 0.0;
    for k in (0..=pairs).rev() {
        acc += counts[k];
        tail[k] = acc / all;
    }
    tail
}

/// `P(U >= u)` by the normal approximation, with continuity correction.
fn normal_tail(n: usize, m: usize, u: usize) -> f64 {
    let pairs = (n * m) as f64;
    let sd = (pairs * (n + m + 1) as f64 / 12.0).sqrt();
    let z = (u as f64 - 0.5 - pairs / 2.0) / sd;
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// The complementary error function, by Abramowitz and Stegun's formula 7.1.26
/// (|error| < 1.5e-7 before the sign is applied).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let r = poly * (-z * z).exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// The runs of one side as order statistics: `ordered[k]` holds, for every quantity, its
/// `k`-th smallest value over the runs (over the runs that have it, for a row missing
/// from some). The quantities of one `ordered[k]` come from different runs; their sorted
/// values are all a rank test needs.
struct Side {
    ordered: Vec<Report>,
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
        let ordered = (0..runs.len())
            .map(|k| {
                let mut r = serde_json::from_value::<Report>(fold(&refs, k, runs.len()))
                    // Folding keeps every field's kind, so this holds; the run otherwise.
                    .unwrap_or_else(|_| runs[k].clone());
                r.notes.clone_from(&runs[0].notes);
                r
            })
            .collect();
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
            ordered,
            partial_rows,
        }
    }

    /// The middle run's values; the lower of the two middle ones for an even number of
    /// runs, so that every value is one a run produced (and integers stay integers).
    fn median(&self) -> &Report {
        &self.ordered[(self.ordered.len() - 1) / 2]
    }

    /// Every compared quantity of each `ordered[k]`, by row and metric name (read off a
    /// comparison of the report with itself, so that rows and quantities are exactly
    /// those [`diff_with_floor`] compares).
    fn values(&self) -> Vec<HashMap<(RowKey, String), f64>> {
        self.ordered
            .iter()
            .map(|r| {
                diff_with_floor(r, r, 0.0, 0)
                    .changes
                    .into_iter()
                    .filter_map(|c| Some(((c.row, c.metric.to_string()), c.head?.as_f64())))
                    .collect()
            })
            .collect()
    }
}

/// One value made of the same value in `runs` runs: numbers as their `k`-th smallest (at
/// the same relative rank when fewer runs have it), objects key by key, lists of rows by
/// row identity, other lists element by element (lists of strings as their union),
/// anything else as in the first run that has it.
fn fold(values: &[&Json], k: usize, runs: usize) -> Json {
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
            // A row in fewer runs: its order statistics spread over the same ranks.
            let i = if runs > 1 {
                k * (numbers.len() - 1) / (runs - 1)
            } else {
                0
            };
            numbers[i.min(numbers.len() - 1)].clone()
        }
        Json::Object(_) => {
            // Every key any run has (an optional section may be left out of some), in the
            // order each first appears.
            let mut out = Map::new();
            for object in present.iter().filter_map(|v| v.as_object()) {
                for key in object.keys() {
                    if !out.contains_key(key) {
                        let field: Vec<&Json> = present.iter().filter_map(|v| v.get(key)).collect();
                        out.insert(key.clone(), fold(&field, k, runs));
                    }
                }
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
                .map(|g| fold(g, k, runs))
                .collect(),
        ),
        Json::Array(_) => {
            let lists: Vec<&Vec<Json>> = present.iter().filter_map(|v| v.as_array()).collect();
            let len = lists.iter().map(|l| l.len()).max().unwrap_or(0);
            Json::Array(
                (0..len)
                    .map(|i| {
                        let at: Vec<&Json> = lists.iter().filter_map(|l| l.get(i)).collect();
                        fold(&at, k, runs)
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
            fold(&refs, 1, 3),
            serde_json::json!({"n": 2, "rows": [{"name": "a", "x": 3}, {"name": "b", "x": 7}]})
        );
        assert_eq!(
            fold(&refs, 0, 3),
            serde_json::json!({"n": 1, "rows": [{"name": "a", "x": 1}, {"name": "b", "x": 7}]})
        );
        assert_eq!(
            fold(&refs, 2, 3),
            serde_json::json!({"n": 3, "rows": [{"name": "a", "x": 5}, {"name": "b", "x": 9}]})
        );
    }

    #[test]
    fn a_key_left_out_of_some_runs_is_kept() {
        let runs = [
            serde_json::json!({"a": 1}),
            serde_json::json!({"a": 2, "io": [{"name": "f", "ops": 4}]}),
        ];
        let refs: Vec<&Json> = runs.iter().collect();
        assert_eq!(
            fold(&refs, 1, 2),
            serde_json::json!({"a": 2, "io": [{"name": "f", "ops": 4}]})
        );
    }

    #[test]
    fn the_lower_middle_of_an_even_number_and_exact_big_integers() {
        let runs = [
            serde_json::json!({"n": u64::MAX}),
            serde_json::json!({"n": u64::MAX - 1}),
        ];
        let refs: Vec<&Json> = runs.iter().collect();
        assert_eq!(fold(&refs, 0, 2), serde_json::json!({"n": u64::MAX - 1}));
        assert_eq!(fold(&refs, 1, 2), serde_json::json!({"n": u64::MAX}));
    }

    #[test]
    fn mann_whitney_p_values_are_exact_for_small_sides() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        // 3 against 3: 20 orderings, one with HEAD above in all 9 pairs.
        assert!(close(
            MannWhitney::default().p(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0], true),
            1.0 / 20.0
        ));
        assert!(close(
            MannWhitney::default().p(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0], false),
            1.0
        ));
        // 8 of 9 pairs: 2 orderings of 20 have at least 8.
        assert!(close(
            MannWhitney::default().p(&[1.0, 2.0, 3.0], &[2.5, 5.0, 6.0], true),
            2.0 / 20.0
        ));
        // 5 against 5: at least 21 of 25 pairs in 12 of the 252 orderings.
        let base = [10.0, 20.0, 30.0, 40.0, 50.0];
        assert!(close(
            MannWhitney::default().p(&base, &[25.0, 45.0, 60.0, 70.0, 80.0], true),
            12.0 / 252.0
        ));
        // Ties count against the change.
        assert!(close(
            MannWhitney::default().p(&[1.0, 1.0, 1.0], &[1.0, 1.0, 1.0], true),
            1.0
        ));
        // One run a side can never be significant.
        assert!(MannWhitney::default().p(&[1.0], &[2.0, 3.0, 4.0], true) > SIGNIFICANCE);
    }

    #[test]
    fn the_normal_approximation_beyond_10_000_pairs_agrees_with_the_exact_count() {
        assert!((erfc(0.0) - 1.0).abs() < 2e-7);
        assert!((erfc(1.0) - 0.157_299_207).abs() < 2e-7);
        assert!((erfc(-1.0) - 1.842_700_793).abs() < 2e-7);
        // 30 against 30: the approximation is within 0.002 of the exact count.
        let exact = tails(30, 30);
        for u in [450, 500, 550, 600, 650] {
            let (e, a) = (exact[u], normal_tail(30, 30, u));
            assert!((e - a).abs() < 0.002, "u = {u}: exact {e}, normal {a}");
        }
        // 101 against 101, HEAD above in every pair: far beyond any threshold.
        let base: Vec<f64> = (0..101).map(f64::from).collect();
        let head: Vec<f64> = (200..301).map(f64::from).collect();
        assert!(MannWhitney::default().p(&base, &head, true) < 1e-6);
        // Interleaved one by one: about half.
        let head: Vec<f64> = (0..101).map(|i| f64::from(i) + 0.5).collect();
        let p = MannWhitney::default().p(&base, &head, true);
        assert!((0.4..0.6).contains(&p), "{p}");
    }
}
