//! `/metrics` families of the `threads` section: the whole process (allocations, CPU
//! time, memory) and each thread's CPU time.

use prometheus::proto::MetricType;

use super::family::Family;
use hotpath_report::Report;

/// The process and at most `limit` threads (by CPU time).
pub(super) fn process(r: &Report, limit: usize, out: &mut Vec<Family>) {
    if let Some(a) = &r.alloc_total {
        let mut count = Family::new(
            "hotpath_process_allocations_total",
            "Allocations of the whole process since profiling started (hotpath-alloc).",
            MetricType::COUNTER,
        );
        count.counter(&[], a.count as f64);
        count.finish(out);
        let mut bytes = Family::new(
            "hotpath_process_allocated_bytes_total",
            "Bytes allocated by the whole process since profiling started (hotpath-alloc).",
            MetricType::COUNTER,
        );
        bytes.counter(&[], a.bytes as f64);
        bytes.finish(out);
        let mut freed = Family::new(
            "hotpath_process_freed_bytes_total",
            "Bytes freed by the whole process since profiling started (hotpath-alloc).",
            MetricType::COUNTER,
        );
        freed.counter(&[], a.freed_bytes as f64);
        freed.finish(out);
    }
    if let Some(c) = &r.cpu {
        let mut cpu = Family::new(
            "hotpath_process_cpu_seconds_total",
            "CPU time of the whole process since profiling started (hotpath-cpu).",
            MetricType::COUNTER,
        );
        cpu.counter(&[], c.process_cpu_ns as f64 / 1e9);
        cpu.finish(out);
    }
    if let Some(m) = &r.process_memory {
        let mut rss = Family::new(
            "hotpath_process_resident_memory_bytes",
            "Resident set size of the process.",
            MetricType::GAUGE,
        );
        rss.gauge(&[], m.rss_bytes as f64);
        rss.finish(out);
        let mut peak = Family::new(
            "hotpath_process_peak_resident_memory_bytes",
            "Highest resident set size of the process.",
            MetricType::GAUGE,
        );
        peak.gauge(&[], m.peak_rss_bytes as f64);
        peak.finish(out);
    }
    if let Some(threads) = &r.threads {
        let mut live = Family::new(
            "hotpath_threads",
            "Threads of the process now (the profiler's included).",
            MetricType::GAUGE,
        );
        live.gauge(
            &[],
            threads.iter().filter(|t| t.state != "exited").count() as f64,
        );
        live.finish(out);
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
