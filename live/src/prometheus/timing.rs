//! `/metrics` families of the functions: the `timing` section's, and the `alloc`, `cpu`
//! and I/O numbers of each function, written with them.

use prometheus::proto::MetricType;

use super::family::{unique, Family};
use hotpath_report::format::Twin;
use hotpath_report::Report;

/// The function families; returns the functions' label values.
pub(super) fn functions(
    r: &Report,
    limit: usize,
    bounds: &[f64],
    out: &mut Vec<Family>,
) -> Vec<String> {
    let shown = &r.functions[..r.functions.len().min(limit)];
    let mut calls = Family::new(
        "hotpath_function_calls_total",
        "Calls of each measured function (async: futures completed or dropped after a poll).",
        MetricType::COUNTER,
    );
    let mut duration = Family::new(
        "hotpath_function_duration_seconds",
        "Wall time of one timed call, inclusive of measured children.",
        MetricType::HISTOGRAM,
    );
    let mut wall = Family::new(
        "hotpath_function_wall_seconds_total",
        "Inclusive wall time of all calls (recursion counted once).",
        MetricType::COUNTER,
    );
    let mut self_ = Family::new(
        "hotpath_function_self_seconds_total",
        "Wall time not spent in measured children (async: poll time).",
        MetricType::COUNTER,
    );
    let mut allocs = Family::new(
        "hotpath_function_allocations_total",
        "Allocations made inside the function, inclusive (hotpath-alloc).",
        MetricType::COUNTER,
    );
    let mut alloc_bytes = Family::new(
        "hotpath_function_allocated_bytes_total",
        "Bytes allocated inside the function, inclusive (hotpath-alloc).",
        MetricType::COUNTER,
    );
    let mut freed_bytes = Family::new(
        "hotpath_function_freed_bytes_total",
        "Bytes freed inside the function, inclusive (hotpath-alloc).",
        MetricType::COUNTER,
    );
    let mut cpu = Family::new(
        "hotpath_function_cpu_seconds_total",
        "CPU time inside the function, inclusive (hotpath-cpu).",
        MetricType::COUNTER,
    );
    let mut io_bytes = Family::new(
        "hotpath_function_io_bytes_total",
        "Bytes moved by io! operations made while the function was the innermost measured one.",
        MetricType::COUNTER,
    );
    let mut io_time = Family::new(
        "hotpath_function_io_seconds_total",
        "Time inside those io! operations.",
        MetricType::COUNTER,
    );
    // Names made unique over every row, exported or not, so that a row moving in or
    // out of the top `limit` does not rename another.
    let names = unique(r.functions.iter().map(|f| Twin {
        name: f.full_display_name(),
        type_name: "",
        file: &f.file,
        line: f.line,
    }));
    for (f, name) in shown.iter().zip(&names) {
        let name = name.as_str();
        let l = [("function", name)];
        calls.counter(&l, f.calls as f64);
        // Counters must never decrease: the report scales sampled totals up to all
        // calls (an estimate that moves both ways), so these are the sums over the
        // timed calls (`timed_sums`, present when the row is sampled).
        if let Some(w) = &f.wall_ns {
            let t = f.timed_sums.as_ref();
            wall.counter(&l, t.map_or(w.total, |t| t.wall_total_ns) as f64 / 1e9);
            self_.counter(&l, t.map_or(w.self_, |t| t.wall_self_ns) as f64 / 1e9);
            duration.durations(&l, Some(w), bounds);
            if let Some(a) = &f.alloc {
                allocs.counter(&l, t.and_then(|t| t.alloc_count).unwrap_or(a.count) as f64);
                alloc_bytes.counter(&l, t.and_then(|t| t.alloc_bytes).unwrap_or(a.bytes) as f64);
                freed_bytes.counter(
                    &l,
                    t.and_then(|t| t.freed_bytes).unwrap_or(a.freed_bytes) as f64,
                );
            }
            if let Some(c) = &f.cpu {
                // Sampled mode counts every sample (exact, never scaled); exact mode
                // reads the clock on the timed calls.
                let ns = match (c.samples, t.and_then(|t| t.cpu_ns)) {
                    (None, Some(timed)) => timed,
                    _ => c.cpu_ns,
                };
                cpu.counter(&l, ns as f64 / 1e9);
            }
        }
        if let Some(i) = &f.io {
            io_bytes.counter(
                &[("function", name), ("direction", "read")],
                i.read_bytes as f64,
            );
            io_bytes.counter(
                &[("function", name), ("direction", "write")],
                i.write_bytes as f64,
            );
            io_time.counter(&l, i.io_ns as f64 / 1e9);
        }
    }
    for f in [
        calls,
        duration,
        wall,
        self_,
        allocs,
        alloc_bytes,
        freed_bytes,
        cpu,
        io_bytes,
        io_time,
    ] {
        f.finish(out);
    }
    names
}
