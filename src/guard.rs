//! Starting and ending a profiling session by hand.

use std::path::Path;
use std::time::Duration;

use crate::Format;

/// Builder methods that set the session's configuration: `name(arg: Type) |cfg| body;`
/// becomes `pub fn name(mut self, arg: Type) -> Self`, which with the `hotpath` feature
/// runs `body` with `cfg` the builder's configuration, and without it only takes `arg`
/// (the same signature and docs in both builds).
macro_rules! setters {
    ($(
        $(#[$meta:meta])*
        $name:ident($arg:ident: $ty:ty) |$cfg:ident| $body:expr;
    )*) => {$(
        $(#[$meta])*
        #[cfg_attr(not(feature = "hotpath"), allow(unused_mut))]
        pub fn $name(mut self, $arg: $ty) -> Self {
            #[cfg(feature = "hotpath")]
            {
                let $cfg = &mut self.cfg;
                $body;
            }
            #[cfg(not(feature = "hotpath"))]
            let _ = $arg;
            self
        }
    )*};
}

/// The builder's row-limit and time-sampling-rate methods, one per section that has its
/// own (generated from the sections table with [`setters!`]).
mod section_methods;

/// Configures and starts a profiling session; the report is written when the returned
/// [`HotpathGuard`] drops. `#[hotpath::main]` uses this; call it directly when `main`
/// is not yours (a test harness, a library entry point).
///
/// ```
/// let _guard = hotpath::HotpathGuardBuilder::new("my_app::run")
///     .percentiles(&[50.0, 99.9])
///     .format(hotpath::Format::None)
///     .limit(20)
///     .build();
/// ```
///
/// Without the `hotpath` feature every method is a no-op and the guard is zero-sized.
#[must_use = "call .build() to start profiling"]
#[derive(Debug)]
pub struct HotpathGuardBuilder {
    #[cfg(feature = "hotpath")]
    pub(crate) cfg: crate::config::Config,
}

impl HotpathGuardBuilder {
    /// A session reported under `caller` (conventionally the path of the function that
    /// starts it).
    pub fn new(caller: &'static str) -> Self {
        #[cfg(not(feature = "hotpath"))]
        let _ = caller;
        HotpathGuardBuilder {
            #[cfg(feature = "hotpath")]
            cfg: crate::config::Config::new(caller),
        }
    }

    /// Accepted for hotpath 0.30 compatibility, where it decides whether SQL queries
    /// and HTTP calls made while a server request is handled are also counted per route;
    /// it has no effect here: they are attributed to the innermost measured function
    /// either way.
    pub fn route_scope(self, on: bool) -> Self {
        let _ = on;
        self
    }

    setters! {
        /// Percentile columns, each in `0..=100` (0 is the minimum, 100 the maximum); sorted,
        /// deduplicated, at most 10. Values out of range are dropped with a warning. Default
        /// `[50, 95, 99]`.
        percentiles(percentiles: &[f64]) |cfg| {
            let mut ps: Vec<f64> = Vec::new();
            for &p in percentiles {
                if (0.0..=100.0).contains(&p) {
                    ps.push(p);
                } else {
                    crate::config::warn(&format!("percentile {p} is outside 0..=100; left out"));
                }
            }
            ps.sort_by(f64::total_cmp);
            ps.dedup();
            if ps.len() > crate::config::MAX_PERCENTILES {
                crate::config::warn(&format!(
                    "{} percentiles given; showing the first {}",
                    ps.len(),
                    crate::config::MAX_PERCENTILES
                ));
                ps.truncate(crate::config::MAX_PERCENTILES);
            }
            if !ps.is_empty() {
                cfg.percentiles = ps;
            }
        };

        /// Report format (default [`Format::Table`]); `HOTPATH_OUTPUT_FORMAT` overrides it.
        format(format: Format) |cfg| cfg.format = format;

        /// Rows per report section, 0 for all (default 15); `HOTPATH_LIMIT` overrides it.
        /// The JSON report always holds every row.
        limit(limit: usize) |cfg| cfg.limit = limit;

        /// Writes the report to this file instead of stdout; `HOTPATH_OUTPUT_PATH` overrides it.
        output_path(path: impl AsRef<Path>) |cfg| {
            cfg.output_path = Some(path.as_ref().to_path_buf())
        };

        /// Writes the report and exits the process (status 0) after `after`, unless the guard
        /// dropped first; `HOTPATH_SHUTDOWN_MS` overrides it.
        timeout(after: Duration) |cfg| cfg.timeout = Some(after);

        /// Times only a fraction `rate` (0..=1) of calls; every call is still counted
        /// exactly and sampled rows are marked. 0 counts calls without timing them.
        /// `HOTPATH_TIME_SAMPLING_RATE` overrides it.
        time_sampling_rate(rate: f64) |cfg| set_rate(
            cfg,
            hotpath_core::state::Sampler::Calls,
            "time_sampling_rate",
            rate,
            "timing every call",
        );

        /// Holds the profiler's own per-call work within `percent` of the run's CPU time
        /// (`0` turns the budget off): every call is still counted exactly, and each
        /// function's calls are timed at a rate chosen at run time, hottest and cheapest
        /// first; a timed call stands for the calls it was picked among, and rows whose
        /// times are estimates are marked. Ignored (with a note) when a time sampling rate
        /// is set or the stacks are on. `HOTPATH_OVERHEAD_BUDGET` overrides it.
        overhead_budget(percent: f64) |cfg| {
            match crate::config::parse_budget(&percent.to_string()) {
                Some(b) => cfg.overhead_budget = b,
                None => crate::config::warn(&format!(
                    "overhead_budget({percent}) is not a percentage from 0 to 100; no budget"
                )),
            }
        };

        /// How CPU time is measured with `hotpath-cpu` (default [`CpuMode::Sampled`]);
        /// `HOTPATH_CPU_MODE` overrides it.
        ///
        /// [`CpuMode::Sampled`]: crate::CpuMode::Sampled
        cpu_mode(mode: crate::CpuMode) |cfg| cfg.cpu_mode = mode;

        /// CPU samples per second of each thread's CPU time in sampled mode (default 1000);
        /// `HOTPATH_CPU_HZ` overrides it.
        cpu_hz(hz: u32) |cfg| {
            if (1..=100_000).contains(&hz) {
                cfg.cpu_hz = hz;
            } else {
                crate::config::warn(&format!(
                    "cpu_hz {hz} is outside 1..=100000; using {}",
                    cfg.cpu_hz
                ));
            }
        };

        /// Sections to report: `all`, or names (`timing`, ...) separated by commas; `-name`
        /// removes one. `HOTPATH_REPORT` overrides it.
        report(spec: &str) |cfg| match crate::config::parse_sections(spec) {
            Some(s) => cfg.sections = s,
            None => crate::config::warn(&format!(
                "report sections {spec:?} not understood; reporting all"
            )),
        };

        /// Tables show each function's full path instead of its short name (the fewest
        /// trailing segments that tell it apart: `Parser::next`); `HOTPATH_FULL_NAMES`
        /// overrides it. JSON reports always carry the full name.
        full_names(on: bool) |cfg| cfg.full_names = on;

        /// Starts the metrics server on `port` (0: any free port, printed on stderr) while the
        /// session runs: the report so far as JSON routes (`/report`, `/functions_timing`, ...)
        /// and, with feature `hotpath-prometheus`, `/metrics`. `HOTPATH_METRICS_PORT`
        /// overrides it; off unless one of them asks for it.
        metrics_port(port: u16) |cfg| cfg.metrics_port = Some(port);

        /// Address the metrics server binds to (default `127.0.0.1`; `0.0.0.0` for every
        /// interface). `HOTPATH_METRICS_HOST` overrides it.
        metrics_host(host: &str) |cfg| cfg.metrics_host = host.to_string();

        /// Requires `Authorization: Bearer <token>` on every metrics request (401 without).
        /// `HOTPATH_METRICS_AUTH_TOKEN` overrides it.
        metrics_auth_token(token: &str) |cfg| cfg.metrics_token = Some(token.to_string());

        /// Which `tracing` spans `hotpath::tracing::layer()` measures (feature `tracing`):
        /// tracing's target filter syntax, e.g. `"info,my_crate=debug"`; the default is every
        /// span at `INFO` or above. A filter that does not parse is left out with a warning.
        /// `HOTPATH_TRACING` overrides it.
        #[cfg(feature = "tracing")]
        tracing_filter(filter: &str) |cfg| match crate::tracing::on::parse(filter) {
            Ok(t) => cfg.tracing_filter = Some(t),
            Err(e) => crate::config::warn(&format!(
                "tracing_filter({filter:?}) is not a filter ({e}); left out"
            )),
        };

        /// Keeps the calling-context tree: calls and wall time (and CPU with `hotpath-cpu`)
        /// per path of measured functions, the report's `stacks` section, for flame graphs
        /// (`hotpath export`). Times every call (a time sampling rate is ignored).
        /// `HOTPATH_STACKS` overrides it.
        stacks(on: bool) |cfg| cfg.stacks = on;

        /// Writes a Chrome/Perfetto trace of each thread's latest calls to this file when
        /// the session ends. `HOTPATH_TRACE` overrides it.
        trace(path: impl AsRef<Path>) |cfg| cfg.trace_path = Some(path.as_ref().to_path_buf());

        /// Calls per thread the trace keeps, the latest ones (default 65,536; at least 16);
        /// `HOTPATH_TRACE_CAPACITY` overrides it.
        trace_capacity(calls: u32) |cfg| cfg.trace_capacity = calls.clamp(16, 1 << 24);

        /// Starts the MCP server on `port` (0: any free port, printed on stderr) while the
        /// session runs: tools over the report so far for AI agents and other MCP clients, at
        /// `http://127.0.0.1:PORT/mcp` (streamable HTTP). Needs the feature `hotpath-mcp`;
        /// without it the session warns once and runs without the server.
        /// `HOTPATH_MCP_PORT` overrides it; off unless one of them asks for it.
        mcp_port(port: u16) |cfg| cfg.mcp_port = Some(port);

        /// Address the MCP server binds to (default `127.0.0.1`; `0.0.0.0` for every
        /// interface, then with [`Self::mcp_auth_token`]). `HOTPATH_MCP_HOST` overrides it.
        mcp_host(host: &str) |cfg| cfg.mcp_host = host.to_string();

        /// Requires `Authorization: Bearer <token>` on every MCP request (401 without); the
        /// token is visible ASCII without spaces, or the server is not started.
        /// `HOTPATH_MCP_AUTH_TOKEN` overrides it.
        mcp_auth_token(token: &str) |cfg| cfg.mcp_token = Some(token.to_string());
    }

    /// Starts the session. If one is already running, prints a warning and returns an
    /// inert guard: the first session is not disturbed.
    pub fn build(self) -> HotpathGuard {
        HotpathGuard {
            #[cfg(feature = "hotpath")]
            session: crate::runtime::Session::start(self.cfg),
        }
    }

    /// Starts the session, and writes the report and exits the process after `after`
    /// (hotpath 0.30's form of [`Self::timeout`]).
    pub fn build_with_shutdown(self, after: Duration) {
        std::mem::forget(self.timeout(after).build());
    }
}

/// A running profiling session; writes the report when dropped.
#[derive(Debug)]
pub struct HotpathGuard {
    #[cfg(feature = "hotpath")]
    session: Option<crate::runtime::Session>,
}

/// Dropping the guard ends the session and writes the report. The impl exists in both
/// feature states so that `drop(guard)` reads the same (and lints the same) either way.
impl Drop for HotpathGuard {
    fn drop(&mut self) {
        // The session (when there is one) writes the report in its own `Drop`.
    }
}

impl HotpathGuard {
    /// Whether this guard is profiling (false without the feature, or when another
    /// session was already running).
    pub fn is_active(&self) -> bool {
        #[cfg(feature = "hotpath")]
        {
            self.session.is_some()
        }
        #[cfg(not(feature = "hotpath"))]
        {
            false
        }
    }
}

/// Applies a builder method's sampling rate: outside `0..=1` it warns and the rate stays;
/// below the smallest usable rate it warns and counts without timing
/// ([`crate::config::usable_rate`]).
#[cfg(feature = "hotpath")]
pub(crate) fn set_rate(
    cfg: &mut crate::config::Config,
    kind: hotpath_core::state::Sampler,
    method: &str,
    rate: f64,
    outside: &str,
) {
    match crate::config::parse_rate(&rate.to_string()) {
        Some(r) => cfg.set_rate(
            kind,
            crate::config::usable_rate(&format!("{method}({rate:e})"), r),
        ),
        None => crate::config::warn(&format!("{method}({rate}) is outside 0..=1; {outside}")),
    }
}
