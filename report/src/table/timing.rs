//! The exit report's `timing` section and the lines that explain its columns.

use std::fmt::Write as _;

use super::common::{listed_functions, wrapped};
use crate::columns;
use crate::format::duration;
use crate::model::{percentile_label, Function, Report};

pub(crate) fn timing(r: &Report, limit: usize, out: &mut String) {
    let n = listed_functions(
        out,
        limit,
        "timing: wall time per function, by total",
        columns::timing(r),
        &r.functions,
        None,
        |f| f,
    );
    let shown_rows = &r.functions[..n];
    if shown_rows.iter().any(|f| f.is_async && !f.span) {
        let _ = writeln!(
            out,
            "(async): Total is wall time from first poll to Ready; Self is poll time minus measured children"
        );
    }
    if shown_rows.iter().any(|f| f.span) {
        let _ = writeln!(
            out,
            "(span): a tracing span; Total is wall time from creation to close; Self is time entered minus measured children"
        );
    }
    if shown_rows.iter().any(|f| f.sampled) {
        let _ = writeln!(
            out,
            "*: times measured on a sample of calls; totals scaled to all calls"
        );
    }
    if shown_rows
        .iter()
        .any(|f| f.wall_ns.is_none() && f.running.is_none())
    {
        let _ = writeln!(out, "-: calls counted, none timed (time sampling rate 0)");
    }
    if shown_rows
        .iter()
        .any(|f| columns::overlapped(f, r.elapsed_ns))
    {
        let _ = writeln!(
            out,
            "×N in % Total: the calls overlapped (threads or tasks) to more than the run; \
             N of them ran at a time on average"
        );
    }
    if shown_rows.iter().any(|f| f.running.is_some()) {
        let _ = writeln!(
            out,
            "(running): a call had not returned; Total and Self include its time so far, \
             Calls and Avg count finished calls"
        );
    }
    timing_legend(r, shown_rows, out);
}

/// What the timing columns mean where they can surprise: what a per-call time includes,
/// the root's Self, a heavy tail.
fn timing_legend(r: &Report, rows: &[Function], out: &mut String) {
    if let Some(floor) = r.clock_floor_ns {
        wrapped(
            &format!(
                "Avg, P{}: per call, including about {} ns of the profiler's own clock reads \
                 (shorter shows as <{} ns); percentiles within 3.1 %",
                r.percentiles
                    .iter()
                    .map(|p| percentile_label(*p))
                    .collect::<Vec<_>>()
                    .join("/P"),
                floor.ceil() as u64,
                floor.ceil() as u64,
            ),
            out,
        );
    }
    // The outermost row's Self is often most of it: the work of unmeasured code.
    if let Some(root) = rows
        .first()
        .and_then(|f| f.wall_ns.as_ref().map(|w| (f, w)))
    {
        let (f, w) = root;
        if w.total > 0 && w.self_ * 10 >= w.total && rows.len() > 1 {
            wrapped(
                &format!(
                    "Self: time not in measured children; {}'s {} is its own work and that \
                     of the unmeasured functions it calls",
                    f.display_name(),
                    duration(w.self_)
                ),
                out,
            );
        }
    }
    if let Some(p95) = r.percentiles.iter().copied().find(|p| *p == 95.0) {
        let tails = rows
            .iter()
            .filter_map(|f| f.wall_ns.as_ref())
            .filter(|w| w.percentiles.get(p95).is_some_and(|v| w.mean > 2 * v))
            .count();
        if tails > 0 {
            wrapped(
                &format!(
                    "Avg over twice P95 on {tails} row{}: a few calls took far longer than \
                     most (a heavy tail; P99 and the JSON max show how long)",
                    if tails == 1 { "" } else { "s" }
                ),
                out,
            );
        }
    }
}
