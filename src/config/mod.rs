//! Report configuration: what the macro arguments and builder methods set, and the
//! environment variables that override them at run time.

/// Format of the report printed when profiling ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// Aligned text tables (the default).
    #[default]
    Table,
    /// One line of JSON (`docs/report-schema.md`).
    Json,
    /// Indented JSON.
    JsonPretty,
    /// No report (live endpoints only).
    None,
}

impl Format {
    /// Accepted spellings, for messages.
    pub const ACCEPTED: &'static str = "table, json, json-pretty, none";

    /// Parses `table`, `json`, `json-pretty` or `none` (any case).
    pub fn parse(s: &str) -> Option<Format> {
        match s.trim().to_ascii_lowercase().as_str() {
            "table" => Some(Format::Table),
            "json" => Some(Format::Json),
            "json-pretty" | "jsonpretty" => Some(Format::JsonPretty),
            "none" => Some(Format::None),
            _ => None,
        }
    }

    /// The spelling [`Format::parse`] accepts.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Json => "json",
            Format::JsonPretty => "json-pretty",
            Format::None => "none",
        }
    }
}

/// How CPU time is measured (feature `hotpath-cpu`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CpuMode {
    /// A per-thread CPU-time signal (1 kHz by default) credits samples to the functions on
    /// the stack: no per-call cost.
    #[default]
    Sampled,
    /// The thread CPU clock and context switches are read at every scope entry and exit:
    /// per-call CPU time, percentiles and switches, for a few hundred ns per read.
    Exact,
    /// No CPU measurement.
    Off,
}

impl CpuMode {
    /// Accepted spellings, for messages.
    pub const ACCEPTED: &'static str = "sampled, exact, off";

    /// Parses `sampled`, `exact` or `off` (any case).
    pub fn parse(s: &str) -> Option<CpuMode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "sampled" => Some(CpuMode::Sampled),
            "exact" => Some(CpuMode::Exact),
            "off" => Some(CpuMode::Off),
            _ => None,
        }
    }

    /// The spelling [`CpuMode::parse`] accepts.
    pub fn as_str(self) -> &'static str {
        match self {
            CpuMode::Sampled => "sampled",
            CpuMode::Exact => "exact",
            CpuMode::Off => "off",
        }
    }
}

/// Which signal source samples CPU time (`HOTPATH_CPU_SAMPLER`).
#[cfg_attr(not(feature = "hotpath"), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CpuSampler {
    /// perf_event `task-clock` overflow signals.
    Perf,
    /// `timer_create(CLOCK_THREAD_CPUTIME_ID)`.
    Timer,
}

#[cfg_attr(not(feature = "hotpath"), allow(dead_code))]
impl CpuSampler {
    /// `perf` or `timer` (any case).
    pub(crate) fn parse(s: &str) -> Option<CpuSampler> {
        match s.trim().to_ascii_lowercase().as_str() {
            "perf" => Some(CpuSampler::Perf),
            "timer" => Some(CpuSampler::Timer),
            _ => None,
        }
    }
}

/// Which clock exact CPU mode reads (`HOTPATH_CPU_CLOCK`).
#[cfg_attr(not(feature = "hotpath"), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CpuClock {
    /// A perf_event `task-clock` counter.
    Perf,
    /// `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`.
    Thread,
}

#[cfg_attr(not(feature = "hotpath"), allow(dead_code))]
impl CpuClock {
    /// `perf` or `thread` (any case).
    pub(crate) fn parse(s: &str) -> Option<CpuClock> {
        match s.trim().to_ascii_lowercase().as_str() {
            "perf" => Some(CpuClock::Perf),
            "thread" => Some(CpuClock::Thread),
            _ => None,
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(feature = "hotpath")]
pub(crate) use on::*;

#[cfg(feature = "hotpath")]
pub(crate) mod env;
#[cfg(feature = "hotpath")]
mod vars;

#[cfg(feature = "hotpath")]
mod on {
    use super::{CpuClock, CpuMode, CpuSampler, Format};
    use crate::report::Section;
    use hotpath_core::state::Sampler;
    use std::path::PathBuf;
    use std::time::Duration;

    /// Rows per section unless configured.
    pub(crate) const DEFAULT_LIMIT: usize = 15;
    /// Percentiles unless configured.
    pub(crate) const DEFAULT_PERCENTILES: [f64; 3] = [50.0, 95.0, 99.0];
    /// Most percentiles shown.
    pub(crate) const MAX_PERCENTILES: usize = 10;
    pub(crate) use crate::sections::compiled;

    /// Every section this build can produce, in report order.
    pub(crate) fn all_sections() -> Vec<Section> {
        Section::ALL.into_iter().filter(|s| compiled(*s)).collect()
    }

    #[derive(Clone, Debug)]
    pub(crate) struct Config {
        pub caller: &'static str,
        pub percentiles: Vec<f64>,
        pub format: Format,
        pub limit: usize,
        /// Each section's own row limit, by [`Section`] (set only for sections with a
        /// limit of their own: [`Section::limit_key`]).
        pub limits: [Option<usize>; Section::COUNT],
        pub output_path: Option<PathBuf>,
        pub timeout: Option<Duration>,
        /// Fraction of events timed, per [`Sampler`] kind.
        pub rates: [f64; Sampler::COUNT],
        /// Whether a kind's rate was set by its own setter or variable; once the
        /// functions' rate is set, the lock kinds follow it until theirs is, as in
        /// hotpath 0.30.
        pub rates_set: [bool; Sampler::COUNT],
        /// `HOTPATH_SAMPLING_SEED`: the seed of every thread's sampling countdowns (for
        /// tests: the same events on a thread are timed the same way in every run); `None`
        /// leaves the core's default (each thread its own).
        pub sampling_seed: Option<u64>,
        /// `HOTPATH_OVERHEAD_BUDGET`: the share of the run's CPU time, in percent, the
        /// profiler's own per-call work may take; each function's timing rate is chosen
        /// to hold it (`src/budget.rs`). `None`: every call timed (or the set rate).
        pub overhead_budget: Option<f64>,
        pub sections: Vec<Section>,
        /// `HOTPATH_REPORT_LABEL`: shown in the report's header.
        pub report_label: Option<String>,
        /// Inserted into the file names of the report, the trace and the exports once the
        /// variables are applied (`out.json` → `out.<tag>.json`): a session of its own per
        /// criterion benchmark id (`hotpath::criterion`).
        pub file_tag: Option<String>,
        /// `HOTPATH_FOCUS`: only functions whose name matches are reported.
        pub focus: Option<Focus>,
        /// `HOTPATH_EXCLUDE_WRAPPER`: the function that started profiling gets no row.
        pub exclude_wrapper: bool,
        /// `HOTPATH_REPORT_FORKS`: a forked child that ends the session writes its own
        /// report (to `<output path>.<pid>`, or stdout).
        pub report_forks: bool,
        /// `HOTPATH_FULL_NAMES`: tables show full paths instead of short names.
        pub full_names: bool,
        pub cpu_mode: CpuMode,
        pub cpu_hz: u32,
        /// `HOTPATH_CPU_SAMPLER`: the sampling signal's source, if forced.
        #[cfg_attr(not(feature = "hotpath-cpu"), allow(dead_code))]
        pub cpu_sampler: Option<CpuSampler>,
        /// `HOTPATH_CPU_CLOCK`: exact mode's clock, if forced.
        #[cfg_attr(not(feature = "hotpath-cpu"), allow(dead_code))]
        pub cpu_clock: Option<CpuClock>,
        pub threads_interval: Duration,
        /// Port of the metrics server; `None`: no server. 0: any free port.
        pub metrics_port: Option<u16>,
        pub metrics_host: String,
        pub metrics_token: Option<String>,
        /// `HOTPATH_METRICS_ALLOWED_HOSTS`: host names the server answers besides IP
        /// addresses, `localhost` and `metrics_host`.
        pub metrics_allowed_hosts: Vec<String>,
        /// Most functions, I/O entries and threads in `/metrics`.
        pub metrics_limit: usize,
        /// Keep the calling-context tree (section `stacks`).
        pub stacks: bool,
        /// Paths per thread in the tree.
        pub stacks_nodes: u32,
        /// Write a Chrome trace of the latest calls here at the end.
        pub trace_path: Option<PathBuf>,
        /// Calls per thread the trace keeps.
        pub trace_capacity: u32,
        /// Exports written at the end: `HOTPATH_EXPORT`.
        pub exports: Vec<crate::export::Export>,
        /// How long the exit waits for the CLI writing an SVG or pprof export:
        /// `HOTPATH_EXPORT_TIMEOUT_MS`.
        pub export_timeout: Duration,
        /// Port of the MCP server (feature `hotpath-mcp`); `None`: no server. 0: any free
        /// port.
        pub mcp_port: Option<u16>,
        pub mcp_host: String,
        pub mcp_token: Option<String>,
        /// The spans `hotpath::tracing::layer()` measures (`HOTPATH_TRACING`); `None`:
        /// every span at `INFO` or above.
        #[cfg(feature = "tracing")]
        pub tracing_filter: Option<tracing_subscriber::filter::Targets>,
    }

    /// A value of `HOTPATH_OVERHEAD_BUDGET` or of the builder's `overhead_budget`: a
    /// percentage in `(0, 100]`, `Some(None)` for `0` or `off` (no budget), `None` when
    /// it is neither.
    pub(crate) fn parse_budget(s: &str) -> Option<Option<f64>> {
        let s = s.trim().trim_end_matches('%').trim();
        if s.eq_ignore_ascii_case("off") {
            return Some(None);
        }
        let v: f64 = s.parse().ok()?;
        if v == 0.0 {
            Some(None)
        } else if v > 0.0 && v <= 100.0 {
            Some(Some(v))
        } else {
            None
        }
    }

    impl Config {
        pub(crate) fn new(caller: &'static str) -> Self {
            Config {
                caller,
                percentiles: DEFAULT_PERCENTILES.to_vec(),
                format: Format::Table,
                limit: DEFAULT_LIMIT,
                limits: [None; Section::COUNT],
                output_path: None,
                timeout: None,
                rates: Sampler::ALL.map(Sampler::default_rate),
                rates_set: [false; Sampler::COUNT],
                sampling_seed: None,
                overhead_budget: None,
                sections: all_sections(),
                report_label: None,
                file_tag: None,
                focus: None,
                exclude_wrapper: false,
                report_forks: false,
                full_names: false,
                cpu_mode: CpuMode::Sampled,
                cpu_hz: 1000,
                cpu_sampler: None,
                cpu_clock: None,
                threads_interval: Duration::from_millis(100),
                metrics_port: None,
                metrics_host: "127.0.0.1".into(),
                metrics_token: None,
                metrics_allowed_hosts: Vec::new(),
                metrics_limit: 200,
                stacks: false,
                stacks_nodes: hotpath_core::stacks::DEFAULT_NODES,
                trace_path: None,
                trace_capacity: hotpath_core::trace::DEFAULT_CAPACITY,
                exports: Vec::new(),
                export_timeout: Duration::from_secs(30),
                mcp_port: None,
                mcp_host: "127.0.0.1".into(),
                mcp_token: None,
                #[cfg(feature = "tracing")]
                tracing_filter: None,
            }
        }

        /// Rows per section in the text report: the limit of the section's limit owner
        /// ([`Section::limit_owner`]: `functions_limit` for the function sections) when
        /// set, `limit` otherwise.
        pub(crate) fn limits(&self) -> crate::report::Limits {
            let mut l = crate::report::Limits::all(self.limit);
            for s in Section::ALL {
                if let Some(n) = s.limit_owner().and_then(|o| self.limits[o as usize]) {
                    l = l.with(s, n);
                }
            }
            l
        }

        /// The fraction of `kind`'s events timed.
        pub(crate) fn rate(&self, kind: Sampler) -> f64 {
            match kind {
                Sampler::Mutexes | Sampler::RwLocks
                    if !self.rates_set[kind as usize]
                        && self.rates_set[Sampler::Calls as usize] =>
                {
                    self.rates[Sampler::Calls as usize]
                }
                _ => self.rates[kind as usize],
            }
        }

        /// Sets the fraction of `kind`'s events timed (0..=1, checked by the caller).
        pub(crate) fn set_rate(&mut self, kind: Sampler, rate: f64) {
            self.rates[kind as usize] = rate;
            self.rates_set[kind as usize] = true;
        }

        /// Forgets the rates set for the lock kinds, so that they follow the functions'
        /// rate again (`HOTPATH_TIME_SAMPLING_RATE` overrides the builder's lock rates).
        pub(crate) fn unset_lock_rates(&mut self) {
            for kind in [Sampler::Mutexes, Sampler::RwLocks] {
                self.rates_set[kind as usize] = false;
            }
        }

        /// Inserts [`Config::file_tag`] into every file name the session writes.
        pub(crate) fn apply_file_tag(&mut self) {
            let Some(tag) = &self.file_tag else {
                return;
            };
            let paths = self
                .output_path
                .iter_mut()
                .chain(self.trace_path.iter_mut())
                .chain(self.exports.iter_mut().map(|e| &mut e.path));
            for path in paths {
                *path = tagged(path, tag);
            }
        }
    }

    /// `dir/out.json` → `dir/out.<tag>.json`; a name without extension gets `.<tag>`
    /// appended (`out` → `out.<tag>`).
    pub(crate) fn tagged(path: &std::path::Path, tag: &str) -> PathBuf {
        let mut name = path.file_stem().unwrap_or_default().to_os_string();
        name.push(".");
        name.push(tag);
        if let Some(ext) = path.extension() {
            name.push(".");
            name.push(ext);
        }
        path.with_file_name(name)
    }

    /// `HOTPATH_FOCUS`: a text to find in function names, or a `/regex/`.
    #[derive(Clone, Debug)]
    pub(crate) enum Focus {
        /// Names containing this text.
        Text(String),
        /// Names the regular expression matches.
        Regex(regex_lite::Regex),
    }

    impl Focus {
        /// `/re/` is a regular expression; anything else a text to find. `None` for an
        /// empty text or an invalid expression.
        pub(crate) fn parse(s: &str) -> Option<Focus> {
            match s.strip_prefix('/').and_then(|r| r.strip_suffix('/')) {
                Some(re) => regex_lite::Regex::new(re).ok().map(Focus::Regex),
                None => (!s.is_empty()).then(|| Focus::Text(s.to_string())),
            }
        }

        /// Whether a function named `name` (or labelled `label`) is kept.
        pub(crate) fn keeps(&self, name: &str, label: Option<&str>) -> bool {
            let hit = |s: &str| match self {
                Focus::Text(t) => s.contains(t.as_str()),
                Focus::Regex(r) => r.is_match(s),
            };
            hit(name) || label.is_some_and(hit)
        }

        /// How it was given.
        pub(crate) fn spec(&self) -> String {
            match self {
                Focus::Text(t) => t.clone(),
                Focus::Regex(r) => format!("/{}/", r.as_str()),
            }
        }
    }

    pub(crate) fn parse_rate(s: &str) -> Option<f64> {
        s.parse::<f64>().ok().filter(|r| (0.0..=1.0).contains(r))
    }

    /// Smallest sampling rate that can mean anything: one call timed in 10^12 (at a few
    /// ns per call, one in hours of calls). Below it a rate is indistinguishable from 0.
    pub(crate) const MIN_RATE: f64 = 1e-12;

    /// A valid rate (`0..=1`) as it is applied: a positive rate below [`MIN_RATE`] warns
    /// once, naming `what` (the variable or builder method that set it), and counts
    /// without timing (0).
    pub(crate) fn usable_rate(what: &str, rate: f64) -> f64 {
        if rate > 0.0 && rate < MIN_RATE {
            warn(&format!(
                "{what} is below {MIN_RATE:e}, the smallest sampling rate that times any \
                 call in practice; using 0 (every call counted, none timed)"
            ));
            0.0
        } else {
            rate
        }
    }

    /// `all`, or section names separated by commas; `-name` removes one. The names of
    /// hotpath 0.30 (`functions-timing`, ...) are understood. Sections this build does
    /// not produce are left out silently; unknown names make the spec invalid.
    pub(crate) fn parse_sections(spec: &str) -> Option<Vec<Section>> {
        let (mut include, mut exclude) = (Vec::new(), Vec::new());
        let mut all = false;
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (neg, name) = part.strip_prefix('-').map_or((false, part), |n| (true, n));
            if !neg && matches!(name, "all" | "auto") {
                all = true;
                continue;
            }
            let name = Section::parse(name)?;
            if neg {
                exclude.push(name);
            } else {
                include.push(name);
            }
        }
        all |= include.is_empty();
        Some(
            all_sections()
                .into_iter()
                .filter(|s| (all || include.contains(s)) && !exclude.contains(s))
                .collect(),
        )
    }

    pub(crate) use hotpath_core::warn;
}
