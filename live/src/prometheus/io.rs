//! `/metrics` families of the `io` section.

use prometheus::proto::MetricType;

use super::family::{unique, Family};
use hotpath_report::format::Twin;
use hotpath_report::{Histogram as Hist, Report};

/// I/O entries: at most `limit` (by bytes), per direction.
pub(super) fn io(r: &Report, limit: usize, bounds: &[f64], out: &mut Vec<Family>) {
    let entries = r.io.as_deref().unwrap_or(&[]);
    let shown = &entries[..entries.len().min(limit)];
    let mut ops = Family::new(
        "hotpath_io_operations_total",
        "Completed io! operations (WouldBlock, Interrupted and Pending are not operations).",
        MetricType::COUNTER,
    );
    let mut bytes = Family::new(
        "hotpath_io_bytes_total",
        "Bytes actually transferred by io! operations.",
        MetricType::COUNTER,
    );
    let mut errors = Family::new(
        "hotpath_io_errors_total",
        "io! operations that failed.",
        MetricType::COUNTER,
    );
    let mut duration = Family::new(
        "hotpath_io_operation_duration_seconds",
        "Duration of one timed io! operation (async: first poll to Ready).",
        MetricType::HISTOGRAM,
    );
    let mut instances = Family::new(
        "hotpath_io_instances_total",
        "Wrappers created at the io! site for this type.",
        MetricType::COUNTER,
    );
    let names = unique(entries.iter().map(|e| Twin {
        name: &e.name,
        type_name: &e.type_name,
        file: &e.file,
        line: e.line,
    }));
    for (e, name) in shown.iter().zip(&names) {
        let name = name.as_str();
        instances.counter(&[("io", name)], e.instances as f64);
        for (dir, d) in e.directions() {
            if d.ops + d.errors == 0 {
                continue;
            }
            let l = [("io", name), ("direction", dir)];
            ops.counter(&l, d.ops as f64);
            bytes.counter(&l, d.bytes as f64);
            errors.counter(&l, d.errors as f64);
            if let Some(h) = d.hist.as_ref().filter(|_| d.timed_ops > 0) {
                let (min, max) = hist_range(h);
                duration.histogram(&l, h, min, max, bounds);
            }
        }
    }
    for f in [ops, bytes, errors, duration, instances] {
        f.finish(out);
    }
}

/// The extremes of an I/O direction's durations: its histogram's first and last values
/// (which are clamped to the exact minimum and maximum).
fn hist_range(h: &Hist) -> (u64, u64) {
    let first = h.buckets.first().map_or(0, |b| b.0);
    let last = h.buckets.last().map_or(0, |b| b.0);
    (first, last)
}
