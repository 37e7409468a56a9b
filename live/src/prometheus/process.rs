//! `/metrics` families of the `threads` section: the whole process (allocations, CPU
//! time, memory) and each thread's CPU time.

use prometheus::proto::MetricType;

use super::family::Family;
use hotpath_report::Report;

/// The process and at most `limit` threads (by CPU time).
pub(super) fn process(r: &Report, limit: usize, out: &mut Vec<Family>) {
    // One unlabelled series each: name, help, type, value.
    let mut single: Vec<(&str, &str, MetricType, f64)> = Vec::new();
    if let Some(a) = &r.alloc_total {
        single.extend([
            (
                "hotpath_process_allocations_total",
                "Allocations of the whole process since profiling started (hotpath-alloc).",
                MetricType::COUNTER,
                a.count as f64,
            ),
            (
                "hotpath_process_allocated_bytes_total",
                "Bytes allocated by the whole process since profiling started (hotpath-alloc).",
                MetricType::COUNTER,
                a.bytes as f64,
            ),
            (
                "hotpath_process_freed_bytes_total",
                "Bytes freed by the whole process since profiling started (hotpath-alloc).",
                MetricType::COUNTER,
                a.freed_bytes as f64,
            ),
        ]);
    }
    if let Some(c) = &r.cpu {
        single.push((
            "hotpath_process_cpu_seconds_total",
            "CPU time of the whole process since profiling started (hotpath-cpu).",
            MetricType::COUNTER,
            c.process_cpu_ns as f64 / 1e9,
        ));
    }
    if let Some(m) = &r.process_memory {
        single.extend([
            (
                "hotpath_process_resident_memory_bytes",
                "Resident set size of the process.",
                MetricType::GAUGE,
                m.rss_bytes as f64,
            ),
            (
                "hotpath_process_peak_resident_memory_bytes",
                "Highest resident set size of the process.",
                MetricType::GAUGE,
                m.peak_rss_bytes as f64,
            ),
        ]);
    }
    let threads = r.threads.as_deref();
    if let Some(threads) = threads {
        single.push((
            "hotpath_threads",
            "Threads of the process now (the profiler's included).",
            MetricType::GAUGE,
            threads.iter().filter(|t| t.state != "exited").count() as f64,
        ));
    }
    for (name, help, kind, v) in single {
        Family::single(name, help, kind, v, out);
    }
    if let Some(threads) = threads {
        let mut cpu = Family::new(
            "hotpath_thread_cpu_seconds_total",
            "CPU time of each thread (by CPU time; exited threads included).",
            MetricType::COUNTER,
        );
        for t in threads.iter().take(limit) {
            let thread = format!("{}:{}", t.name, t.tid);
            cpu.counter(
                &[("thread", thread.as_str()), ("mode", "user")],
                t.user_ns as f64 / 1e9,
            );
            cpu.counter(
                &[("thread", thread.as_str()), ("mode", "system")],
                t.system_ns as f64 / 1e9,
            );
        }
        cpu.finish(out);
    }
}
