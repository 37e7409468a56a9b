//! `/metrics`: the report so far in the Prometheus text exposition format (0.0.4),
//! encoded by the `prometheus` crate, or, when the scraper asks for it (`Accept`, see
//! [`protobuf::wanted`]), in the protobuf format with native histograms ([`native`]).
//! Series and labels are listed in `docs/metrics.md`.
//!
//! Cardinality is bounded: at most `limit` functions (by total wall time), `limit` I/O
//! entries (by bytes), `limit` channels, streams and futures each, and `limit` threads
//! (by CPU time) are exported, whatever the program does.

use prometheus::proto::{
    Bucket, Counter, Gauge, Histogram, LabelPair, Metric, MetricFamily, MetricType,
};
use prometheus::TextEncoder;

mod flow;
mod locks;
mod native;
pub(crate) mod protobuf;
mod service;

use native::Native;

use hotpath_report::format::{twin_names, Twin};
use hotpath_report::{Histogram as Hist, Report, Section};

/// Upper bounds of the duration histograms, seconds: 1, 2.5 and 5 per decade from
/// 100 ns to 10 s.
fn duration_buckets() -> Vec<f64> {
    let mut v = Vec::new();
    for exp in -7..1 {
        for m in ["1", "2.5", "5"] {
            // Parsed from decimal text, so that each bound prints as written.
            v.push(format!("{m}e{exp}").parse().expect("a decimal number"));
        }
    }
    v.push(10.0);
    v
}

/// One metric family: the `prometheus` crate's model, which its text encoder writes,
/// and each histogram metric's native buckets, which only the protobuf format carries.
pub(crate) struct Family {
    mf: MetricFamily,
    metrics: Vec<Metric>,
    /// One per metric: the native buckets of a histogram, `None` for other metrics.
    native: Vec<Option<Native>>,
}

impl Family {
    fn new(name: &str, help: &str, kind: MetricType) -> Family {
        let mut mf = MetricFamily::default();
        mf.set_name(name.to_string());
        mf.set_help(help.to_string());
        mf.set_field_type(kind);
        Family {
            mf,
            metrics: Vec::new(),
            native: Vec::new(),
        }
    }

    fn labelled(labels: &[(&str, &str)]) -> Metric {
        let mut m = Metric::default();
        m.set_label(
            labels
                .iter()
                .map(|(k, v)| {
                    let mut l = LabelPair::default();
                    l.set_name(k.to_string());
                    l.set_value(v.to_string());
                    l
                })
                .collect(),
        );
        m
    }

    fn counter(&mut self, labels: &[(&str, &str)], v: f64) {
        let mut m = Family::labelled(labels);
        let mut c = Counter::default();
        c.set_value(v);
        m.set_counter(c);
        self.metrics.push(m);
        self.native.push(None);
    }

    fn gauge(&mut self, labels: &[(&str, &str)], v: f64) {
        let mut m = Family::labelled(labels);
        let mut g = Gauge::default();
        g.set_value(v);
        m.set_gauge(g);
        self.metrics.push(m);
        self.native.push(None);
    }

    /// A duration histogram from a report's distribution (`min` and `max` in ns).
    fn histogram(&mut self, labels: &[(&str, &str)], d: &Hist, min: u64, max: u64, bounds: &[f64]) {
        let mut h = Histogram::default();
        h.set_sample_count(d.count());
        h.set_sample_sum(d.sum as f64 / 1e9);
        h.set_bucket(
            bounds
                .iter()
                .map(|b| {
                    let mut bucket = Bucket::default();
                    bucket.set_upper_bound(*b);
                    bucket.set_cumulative_count(d.count_at_most(
                        (b * 1e9).round() as u64,
                        min,
                        max,
                    ));
                    bucket
                })
                .collect(),
        );
        let mut m = Family::labelled(labels);
        m.set_histogram(h);
        self.metrics.push(m);
        self.native.push(Some(Native::of(d)));
    }

    fn finish(self, out: &mut Vec<Family>) {
        if !self.metrics.is_empty() {
            out.push(self);
        }
    }

    /// The family as the `prometheus` crate's text encoder takes it.
    fn into_proto(mut self) -> MetricFamily {
        self.mf.set_metric(self.metrics);
        self.mf
    }
}

/// Label values for rows, told apart as the tables tell them apart ([`twin_names`]),
/// and made unique: Prometheus refuses a scrape with two series of the same labels.
fn unique(rows: &[Twin<'_>]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(rows.len());
    for v in twin_names(rows) {
        let mut v2 = v.clone();
        let mut k = 2;
        while out.contains(&v2) {
            v2 = format!("{v} #{k}");
            k += 1;
        }
        out.push(v2);
    }
    out
}

/// What the encoders of the sections share.
pub(crate) struct Ctx<'a> {
    r: &'a Report,
    /// Most functions, entries and threads per family.
    limit: usize,
    /// The duration histograms' bucket bounds, seconds.
    bounds: Vec<f64>,
    /// The functions' label values, once the timing section's encoder has run.
    function_names: Vec<String>,
}

/// How a section reaches `/metrics`. Every section is listed: a new one does not compile
/// until it says how (or why not).
pub(crate) enum Encoder {
    /// Its own families, written by this function.
    Own(fn(&mut Ctx<'_>, &mut Vec<Family>)),
    /// Its numbers are families (or labels) another section's encoder writes.
    With(Section),
    /// Not exported, and why.
    None(&'static str),
}

/// The encoder of `section`.
pub(crate) fn encoder(section: Section) -> Encoder {
    match section {
        Section::Timing => Encoder::Own(|c, out| {
            c.function_names = functions(c.r, c.limit, &c.bounds, out);
        }),
        // hotpath_function_{allocations,allocated_bytes,freed_bytes}_total,
        // hotpath_function_cpu_seconds_total, hotpath_function_io_*: families of the
        // functions, written with them.
        Section::Alloc | Section::Cpu => Encoder::With(Section::Timing),
        Section::Waits => Encoder::Own(|c, out| locks::waits(c.r, c.limit, &c.function_names, out)),
        Section::Io => Encoder::Own(|c, out| io(c.r, c.limit, &c.bounds, out)),
        Section::Channels => Encoder::Own(|c, out| flow::flow(c.r, c.limit, &c.bounds, out)),
        Section::Streams | Section::Futures => Encoder::With(Section::Channels),
        Section::Mutexes => Encoder::Own(|c, out| locks::locks(c.r, c.limit, &c.bounds, out)),
        Section::RwLocks => Encoder::With(Section::Mutexes),
        Section::Debug => Encoder::Own(|c, out| locks::debug(c.r, c.limit, out)),
        Section::Sql => Encoder::Own(|c, out| service::sql(c.r, c.limit, &c.bounds, out)),
        Section::Http => Encoder::Own(|c, out| service::http(c.r, c.limit, &c.bounds, out)),
        Section::Server => Encoder::Own(|c, out| service::server(c.r, c.limit, &c.bounds, out)),
        Section::Tokio => Encoder::Own(|c, out| service::tokio(c.r, out)),
        Section::Threads => Encoder::Own(|c, out| process(c.r, c.limit, out)),
        Section::Icount => Encoder::None(
            "instructions are counted only under valgrind, and read once at the end of the \
             session: a live report has none to export",
        ),
        Section::Stacks => Encoder::None(
            "one series per calling path would grow with the program's paths, not its call \
             sites; the tree is served at /stacks and exported by `hotpath export`",
        ),
    }
}

/// How a section reaches `/metrics`, for a conformance test that walks every section.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Coverage {
    /// Its own families: their names, as encoded from the report given.
    Families(Vec<String>),
    /// Its numbers are written by this section's encoder.
    With(Section),
    /// Not exported, and why.
    None(&'static str),
}

/// How `section` of `r` reaches `/metrics`.
#[doc(hidden)]
pub fn coverage(r: &Report, section: Section) -> Coverage {
    match encoder(section) {
        Encoder::Own(encode) => {
            let mut ctx = Ctx {
                r,
                limit: usize::MAX,
                bounds: duration_buckets(),
                function_names: Vec::new(),
            };
            // The functions' label values first, as in the whole exposition.
            if let Encoder::Own(timing) = encoder(Section::Timing) {
                timing(&mut ctx, &mut Vec::new());
            }
            let mut out = Vec::new();
            encode(&mut ctx, &mut out);
            Coverage::Families(out.iter().map(|f| f.mf.name().to_string()).collect())
        }
        Encoder::With(s) => Coverage::With(s),
        Encoder::None(why) => Coverage::None(why),
    }
}

/// The whole exposition in the text format.
pub(crate) fn encode(r: &Report, limit: usize) -> String {
    let out: Vec<MetricFamily> = families(r, limit)
        .into_iter()
        .map(Family::into_proto)
        .collect();
    let mut text = String::new();
    if let Err(e) = TextEncoder::new().encode_utf8(&out, &mut text) {
        text = format!("# hotpath could not encode the metrics: {e}\n");
    }
    text
}

/// The whole exposition in the protobuf format ([`protobuf::CONTENT_TYPE`]): the same
/// families, histograms with native buckets as well.
pub(crate) fn encode_protobuf(r: &Report, limit: usize) -> Vec<u8> {
    protobuf::encode(&families(r, limit))
}

/// Every family of the exposition, in order.
fn families(r: &Report, limit: usize) -> Vec<Family> {
    let bounds = duration_buckets();
    let mut out = Vec::new();

    let mut info = Family::new(
        "hotpath_info",
        "The profiled program: hotpath version, the function that started profiling, how CPU \
         time is measured (sampled, exact, off) and the fraction of calls timed.",
        MetricType::GAUGE,
    );
    let cpu_mode = r.cpu.as_ref().map_or("off", |c| c.mode.as_str());
    let sampling = r.time_sampling_rate.to_string();
    info.gauge(
        &[
            ("version", env!("CARGO_PKG_VERSION")),
            ("caller", r.caller.as_str()),
            ("cpu_mode", cpu_mode),
            ("time_sampling_rate", sampling.as_str()),
        ],
        1.0,
    );
    info.finish(&mut out);
    let mut up = Family::new(
        "hotpath_uptime_seconds",
        "Time since profiling started.",
        MetricType::GAUGE,
    );
    up.gauge(&[], r.elapsed_ns as f64 / 1e9);
    up.finish(&mut out);

    let mut ctx = Ctx {
        r,
        limit,
        bounds,
        function_names: Vec::new(),
    };
    for section in Section::ALL {
        if let Encoder::Own(encode) = encoder(section) {
            encode(&mut ctx, &mut out);
        }
    }
    out
}

/// The function families; returns the functions' label values.
fn functions(r: &Report, limit: usize, bounds: &[f64], out: &mut Vec<Family>) -> Vec<String> {
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
    let twins: Vec<Twin<'_>> = r
        .functions
        .iter()
        .map(|f| Twin {
            name: f.full_display_name(),
            type_name: "",
            file: &f.file,
            line: f.line,
        })
        .collect();
    let names = unique(&twins);
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
            if let Some(h) = &w.hist {
                duration.histogram(&l, h, w.min, w.max, bounds);
            }
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

fn io(r: &Report, limit: usize, bounds: &[f64], out: &mut Vec<Family>) {
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
    let twins: Vec<Twin<'_>> = entries
        .iter()
        .map(|e| Twin {
            name: &e.name,
            type_name: &e.type_name,
            file: &e.file,
            line: e.line,
        })
        .collect();
    let names = unique(&twins);
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

fn process(r: &Report, limit: usize, out: &mut Vec<Family>) {
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

/// The extremes of an I/O direction's durations: its histogram's first and last values
/// (which are clamped to the exact minimum and maximum).
fn hist_range(h: &Hist) -> (u64, u64) {
    let first = h.buckets.first().map_or(0, |b| b.0);
    let last = h.buckets.last().map_or(0, |b| b.0);
    (first, last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_are_unique() {
        let t = |name, file, line, type_name| Twin {
            name,
            type_name,
            file,
            line,
        };
        let rows = [
            t("parse", "src/a.rs", 10, ""),
            t("parse", "src/b.rs", 20, ""),
            t("load", "src/a.rs", 30, ""),
            t("x", "src/a.rs", 40, "File"),
            t("x", "src/a.rs", 40, "File"),
            // A name that another row's told-apart name equals.
            t("x (#1)", "src/a.rs", 50, ""),
        ];
        assert_eq!(
            unique(&rows),
            [
                "parse (a.rs:10)",
                "parse (b.rs:20)",
                "load",
                "x (#1)",
                "x (#2)",
                "x (#1) #2"
            ]
        );
    }

    #[test]
    fn buckets_rise_from_100ns_to_10s() {
        let b = duration_buckets();
        assert_eq!(b.len(), 25);
        assert!((b[0] - 1e-7).abs() < 1e-12);
        assert_eq!(*b.last().unwrap(), 10.0);
        assert!(b.windows(2).all(|w| w[0] < w[1]));
    }
}
