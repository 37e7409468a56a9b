//! Report configuration: what the macro arguments and builder methods set, and the
//! environment variables that override them at run time.

/// Format of the report printed when profiling ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// Aligned text tables (the default).
    #[default]
    Table,
    /// One line of JSON (schema v2, `docs/report-schema.md`).
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

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(feature = "hotpath")]
pub(crate) use on::*;

#[cfg(feature = "hotpath")]
mod on {
    use super::{CpuMode, Format};
    use crate::report::Section;
    use std::path::PathBuf;
    use std::time::Duration;

    /// Rows per section unless configured.
    pub(crate) const DEFAULT_LIMIT: usize = 15;
    /// Percentiles unless configured.
    pub(crate) const DEFAULT_PERCENTILES: [f64; 3] = [50.0, 95.0, 99.0];
    /// Most percentiles shown.
    pub(crate) const MAX_PERCENTILES: usize = 10;
    /// Whether this build can produce `section` (its feature is compiled in, or for
    /// `threads`, the target is Linux).
    pub(crate) fn compiled(section: Section) -> bool {
        match section {
            Section::Alloc => cfg!(feature = "hotpath-alloc"),
            Section::Cpu => cfg!(feature = "hotpath-cpu"),
            Section::Threads => cfg!(target_os = "linux"),
            Section::Timing
            | Section::Io
            | Section::Channels
            | Section::Streams
            | Section::Futures => true,
        }
    }

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
        pub functions_limit: Option<usize>,
        pub threads_limit: Option<usize>,
        pub io_limit: Option<usize>,
        pub channels_limit: Option<usize>,
        pub streams_limit: Option<usize>,
        pub futures_limit: Option<usize>,
        pub output_path: Option<PathBuf>,
        pub timeout: Option<Duration>,
        pub time_sampling_rate: f64,
        pub io_time_sampling_rate: f64,
        /// Channels, streams, futures (`Sampler::{Channels, Streams, Futures}`).
        pub flow_time_sampling_rates: [f64; 3],
        pub sections: Vec<Section>,
        pub cpu_mode: CpuMode,
        pub cpu_hz: u32,
        pub threads_interval: Duration,
        /// Port of the metrics server; `None`: no server. 0: any free port.
        pub metrics_port: Option<u16>,
        pub metrics_host: String,
        pub metrics_token: Option<String>,
        /// Most functions, I/O entries and threads in `/metrics`.
        pub metrics_limit: usize,
    }

    impl Config {
        pub(crate) fn new(caller: &'static str) -> Self {
            Config {
                caller,
                percentiles: DEFAULT_PERCENTILES.to_vec(),
                format: Format::Table,
                limit: DEFAULT_LIMIT,
                functions_limit: None,
                threads_limit: None,
                io_limit: None,
                channels_limit: None,
                streams_limit: None,
                futures_limit: None,
                output_path: None,
                timeout: None,
                time_sampling_rate: 1.0,
                io_time_sampling_rate: 1.0,
                flow_time_sampling_rates: [1.0; 3],
                sections: all_sections(),
                cpu_mode: CpuMode::Sampled,
                cpu_hz: 1000,
                threads_interval: Duration::from_millis(100),
                metrics_port: None,
                metrics_host: "127.0.0.1".into(),
                metrics_token: None,
                metrics_limit: 200,
            }
        }

        /// Applies `HOTPATH_*` variables; each invalid one warns once and is ignored.
        pub(crate) fn apply_env(&mut self) {
            if let Some(f) = env(
                "HOTPATH_OUTPUT_FORMAT",
                Format::ACCEPTED,
                self.format.as_str(),
                Format::parse,
            ) {
                self.format = f;
            }
            let current = self
                .output_path
                .as_ref()
                .map_or("stdout".to_string(), |p| p.display().to_string());
            if let Some(p) = env(
                "HOTPATH_OUTPUT_PATH",
                "a non-empty file path",
                &current,
                |s| (!s.is_empty()).then(|| PathBuf::from(s)),
            ) {
                self.output_path = Some(p);
            }
            if let Some(l) = env(
                "HOTPATH_LIMIT",
                "a non-negative integer (0 = all rows)",
                &self.limit.to_string(),
                |s| s.parse::<usize>().ok(),
            ) {
                self.limit = l;
            }
            let current = self
                .timeout
                .map_or("none".to_string(), |d| d.as_millis().to_string());
            if let Some(ms) = env(
                "HOTPATH_SHUTDOWN_MS",
                "a positive integer of milliseconds",
                &current,
                |s| s.parse::<u64>().ok().filter(|ms| *ms > 0),
            ) {
                self.timeout = Some(Duration::from_millis(ms));
            }
            let current = self.time_sampling_rate.to_string();
            if let Some(r) = env(
                "HOTPATH_TIME_SAMPLING_RATE",
                "a number from 0 to 1 (0 = count only)",
                &current,
                parse_rate,
            ) {
                self.time_sampling_rate = r;
            }
            let current = self
                .sections
                .iter()
                .map(|s| s.name())
                .collect::<Vec<_>>()
                .join(",");
            if let Some(s) = env(
                "HOTPATH_REPORT",
                "`all` or section names from timing",
                &current,
                parse_sections,
            ) {
                self.sections = s;
            }
            let _ = env("HOTPATH_CLOCK", "tsc, monotonic", "tsc", |s| {
                matches!(s, "tsc" | "monotonic").then_some(())
            });
            if let Some(m) = env(
                "HOTPATH_CPU_MODE",
                CpuMode::ACCEPTED,
                self.cpu_mode.as_str(),
                CpuMode::parse,
            ) {
                self.cpu_mode = m;
            }
            let current = self.io_time_sampling_rate.to_string();
            if let Some(r) = env(
                "HOTPATH_IO_TIME_SAMPLING_RATE",
                "a number from 0 to 1 (0 = count only)",
                &current,
                parse_rate,
            ) {
                self.io_time_sampling_rate = r;
            }
            for (i, name) in [
                "HOTPATH_CHANNELS_TIME_SAMPLING_RATE",
                "HOTPATH_STREAMS_TIME_SAMPLING_RATE",
                "HOTPATH_FUTURES_TIME_SAMPLING_RATE",
            ]
            .into_iter()
            .enumerate()
            {
                let current = self.flow_time_sampling_rates[i].to_string();
                if let Some(r) = env(
                    name,
                    "a number from 0 to 1 (0 = count only)",
                    &current,
                    parse_rate,
                ) {
                    self.flow_time_sampling_rates[i] = r;
                }
            }
            if let Some(hz) = env(
                "HOTPATH_CPU_HZ",
                "an integer from 1 to 100000",
                &self.cpu_hz.to_string(),
                |s| {
                    s.parse::<u32>()
                        .ok()
                        .filter(|hz| (1..=100_000).contains(hz))
                },
            ) {
                self.cpu_hz = hz;
            }
            let current = self.threads_interval.as_millis().to_string();
            if let Some(ms) = env(
                "HOTPATH_THREADS_INTERVAL_MS",
                "an integer of milliseconds, at least 10",
                &current,
                |s| s.parse::<u64>().ok().filter(|ms| *ms >= 10),
            ) {
                self.threads_interval = Duration::from_millis(ms);
            }
            let current = self
                .metrics_port
                .map_or("off".to_string(), |p| p.to_string());
            if let Some(port) = env(
                "HOTPATH_METRICS_PORT",
                "a port number from 0 to 65535 (0 = any free port)",
                &current,
                |s| s.parse::<u16>().ok(),
            ) {
                self.metrics_port = Some(port);
            }
            if let Some(off) = env(
                "HOTPATH_METRICS_SERVER_OFF",
                "1, true, 0 or false",
                "0",
                |s| match s {
                    "1" | "true" => Some(true),
                    "0" | "false" => Some(false),
                    _ => None,
                },
            ) {
                if off {
                    self.metrics_port = None;
                }
            }
            if let Some(host) = env(
                "HOTPATH_METRICS_HOST",
                "an IP address or host name, e.g. 127.0.0.1 or 0.0.0.0",
                &self.metrics_host.clone(),
                |s| (!s.is_empty() && !s.contains(char::is_whitespace)).then(|| s.to_string()),
            ) {
                self.metrics_host = host;
            }
            // Not through `env`: its warning would print the value.
            if let Some(raw) = std::env::var_os("HOTPATH_METRICS_AUTH_TOKEN") {
                match raw
                    .to_str()
                    .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_graphic()))
                {
                    Some(token) => self.metrics_token = Some(token.to_string()),
                    None => {
                        warn(
                            "HOTPATH_METRICS_AUTH_TOKEN is not valid (accepted: a non-empty \
                             token of visible ASCII characters, no spaces); the metrics \
                             server is not started, so that it is never open without it",
                        );
                        self.metrics_port = None;
                        self.metrics_token = None;
                    }
                }
            }
            if let Some(l) = env(
                "HOTPATH_METRICS_LIMIT",
                "a positive integer",
                &self.metrics_limit.to_string(),
                |s| s.parse::<usize>().ok().filter(|l| *l > 0),
            ) {
                self.metrics_limit = l;
            }
        }

        pub(crate) fn functions_limit(&self) -> usize {
            self.functions_limit.unwrap_or(self.limit)
        }

        /// Sections whose rows have a cap of their own.
        pub(crate) fn section_limits(&self) -> Vec<(Section, usize)> {
            [
                (Section::Channels, self.channels_limit),
                (Section::Streams, self.streams_limit),
                (Section::Futures, self.futures_limit),
            ]
            .into_iter()
            .map(|(s, l)| (s, l.unwrap_or(self.limit)))
            .collect()
        }
    }

    pub(crate) fn parse_rate(s: &str) -> Option<f64> {
        s.parse::<f64>().ok().filter(|r| (0.0..=1.0).contains(r))
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

    /// Reads an override; an invalid value warns once on stderr and is ignored.
    fn env<T>(
        name: &str,
        accepted: &str,
        current: &str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Option<T> {
        let raw = std::env::var_os(name)?;
        let value = raw.to_string_lossy();
        match raw.to_str().and_then(|s| parse(s.trim())) {
            Some(v) => Some(v),
            None => {
                warn(&format!(
                    "{name}={value:?} is not valid (accepted: {accepted}); using {current}"
                ));
                None
            }
        }
    }

    /// One line on stderr, prefixed `[hotpath]`.
    pub(crate) fn warn(msg: &str) {
        use std::io::Write;
        let _ = writeln!(std::io::stderr().lock(), "[hotpath] warning: {msg}");
    }
}
