//! `/metrics`: the report so far in the Prometheus text exposition format (0.0.4),
//! encoded by the `prometheus` crate, or, when the scraper asks for it (`Accept`, see
//! [`protobuf::wanted`]), in the protobuf format with native histograms ([`native`]).
//! Series and labels are listed in `docs/metrics.md`.
//!
//! Cardinality is bounded: at most `limit` functions (by total wall time), `limit` I/O
//! entries (by bytes), `limit` channels, streams and futures each, and `limit` threads
//! (by CPU time) are exported, whatever the program does.

//!
//! Layers, each using only the ones before it: [`native`] (native histogram buckets);
//! `family` (a metric family as the encoders fill it); one encoder per section or group
//! of sections (`timing`, `io`, `flow`, `locks`, `service`, `process`); [`protobuf`]
//! (the protobuf writer of families); this module (which section has which encoder, the
//! whole exposition). The tests that read a whole exposition are above it (`tests.rs`,
//! with `tests/roundtrip.rs`, the protobuf format read back).

use prometheus::proto::{MetricFamily, MetricType};
use prometheus::TextEncoder;

mod family;
mod flow;
mod io;
mod locks;
mod native;
mod process;
pub(crate) mod protobuf;
mod service;
mod timing;

use family::{duration_buckets, Family};

use hotpath_report::{Report, Section};

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
            c.function_names = timing::functions(c.r, c.limit, &c.bounds, out);
        }),
        // hotpath_function_{allocations,allocated_bytes,freed_bytes}_total,
        // hotpath_function_cpu_seconds_total, hotpath_function_io_*: families of the
        // functions, written with them.
        Section::Alloc | Section::Cpu => Encoder::With(Section::Timing),
        Section::Waits => Encoder::Own(|c, out| locks::waits(c.r, c.limit, &c.function_names, out)),
        Section::Io => Encoder::Own(|c, out| io::io(c.r, c.limit, &c.bounds, out)),
        Section::Channels => Encoder::Own(|c, out| flow::flow(c.r, c.limit, &c.bounds, out)),
        Section::Streams | Section::Futures => Encoder::With(Section::Channels),
        Section::Mutexes => Encoder::Own(|c, out| locks::locks(c.r, c.limit, &c.bounds, out)),
        Section::RwLocks => Encoder::With(Section::Mutexes),
        Section::Debug => Encoder::Own(|c, out| locks::debug(c.r, c.limit, out)),
        Section::Sql => Encoder::Own(|c, out| service::sql(c.r, c.limit, &c.bounds, out)),
        Section::Http => Encoder::Own(|c, out| service::http(c.r, c.limit, &c.bounds, out)),
        Section::Server => Encoder::Own(|c, out| service::server(c.r, c.limit, &c.bounds, out)),
        Section::Tokio => Encoder::Own(|c, out| service::tokio(c.r, out)),
        Section::Threads => Encoder::Own(|c, out| process::process(c.r, c.limit, out)),
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
    Family::single(
        "hotpath_uptime_seconds",
        "Time since profiling started.",
        MetricType::GAUGE,
        r.elapsed_ns as f64 / 1e9,
        &mut out,
    );

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

#[cfg(test)]
pub(crate) mod tests;
