//! The console's `Timing` table, with the Now and Trend columns once it has refreshed.

use hotpath_report::columns;
use hotpath_report::format::{count, duration, percent};
use hotpath_report::Report;

use super::common::{dash, function_id, Key, Source, Table};
use crate::console::trend::{sparkline, Trend, WINDOW};

pub(crate) fn timing(r: &Report, trend: &Trend) -> Table {
    let cols = columns::timing(r);
    let mut t = Table::new("timing: wall time per function", &cols, "Total");
    for (i, f) in r.functions.iter().enumerate() {
        let id = function_id(f);
        t.push(&cols, id.clone(), Source::Function(i), f);
        if trend.has_intervals() {
            let row = t.rows.last_mut().expect("pushed");
            let shares = trend.shares(&id);
            let now = shares.last().copied().filter(|_| f.wall_ns.is_some());
            row.cells.push(now.map_or_else(dash, |n| percent(n, 1.0)));
            row.keys.push(now.map_or(Key::Missing, Key::Num));
            row.cells.push(if f.wall_ns.is_some() {
                sparkline(&shares)
            } else {
                dash()
            });
            // Sorted by the time over the whole window.
            row.keys.push(Key::Num(shares.iter().sum::<f64>()));
        }
    }
    if trend.has_intervals() {
        let at = t.columns.len();
        t.insert_columns(at, ["Now".to_string(), "Trend".to_string()]);
    }
    let calls: u64 = r.functions.iter().map(|f| f.calls).sum();
    t.footer.push(format!(
        "{} functions, {} calls in {}; profiler overhead ≈ {} ({} of the run)",
        count(r.functions.len() as u64),
        count(calls),
        duration(r.elapsed_ns),
        duration(r.overhead_ns),
        percent(r.overhead_ns as f64, r.elapsed_ns as f64),
    ));
    if r.functions.iter().any(|f| f.sampled) {
        t.footer
            .push("*: timed on a sample of calls; totals scaled to all calls".into());
    }
    if trend.has_intervals() {
        t.footer.push(format!(
            "Now: wall time since the last refresh, as a share of it (over 100% when calls \
             overlap); Trend: the same over the last {} refreshes, scaled to the row's largest",
            WINDOW - 1
        ));
    }
    if r.functions.is_empty() {
        t.empty = Some("no measured function has been called yet".into());
    }
    t
}
