//! `HOTPATH_*` environment variables: reading each one this crate applies, and applying
//! it to the [`Config`]; `vars.rs` has the tables of names (applied, read elsewhere, of
//! no effect here) and warns about the others.
//!
//! Every variable set in the environment gets exactly one of: applied, refused with a
//! warning naming it and the accepted values (the configured value stays), or a warning
//! saying why it has no effect here. None is ignored silently.

use std::path::PathBuf;
use std::time::Duration;

use hotpath_core::state::Sampler;

use crate::report::Section;

use super::{
    parse_rate, parse_sections, usable_rate, warn, Config, CpuClock, CpuMode, CpuSampler, Focus,
    Format,
};

/// The port hotpath 0.30's metrics server listens on by default.
const DEFAULT_METRICS_PORT: u16 = 6770;

/// Reads an override; an invalid value warns once on stderr and is ignored.
fn env<T>(
    name: &str,
    accepted: &str,
    current: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Option<T> {
    // The generic part is the parse only: this runs once per variable, and each of its
    // ~40 uses compiled the reading and the warning again into every profiled program.
    let raw = var(name)?;
    let parsed = raw.to_str().and_then(|s| parse(s.trim()));
    if parsed.is_none() {
        invalid(name, &raw, accepted, current);
    }
    parsed
}

/// `HOTPATH_CRITERION_ITERATIONS`: how many times each benchmark routine runs in
/// criterion's test mode (`hotpath::criterion`); an invalid value warns and is ignored.
#[cfg(any(
    feature = "criterion-0-5",
    feature = "criterion-0-6",
    feature = "criterion-0-7",
    feature = "criterion-0-8"
))]
pub(crate) fn criterion_iterations() -> Option<u64> {
    env(
        "HOTPATH_CRITERION_ITERATIONS",
        "a positive integer",
        "criterion's one run per routine",
        |s| s.parse::<u64>().ok().filter(|n| *n > 0),
    )
}

#[inline(never)]
fn var(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name)
}

#[inline(never)]
fn invalid(name: &str, raw: &std::ffi::OsStr, accepted: &str, current: &str) {
    let value = raw.to_string_lossy();
    warn(&format!(
        "{name}={value:?} is not valid (accepted: {accepted}); using {current}"
    ));
}

/// An IP address (v4 or v6), or a host name: dot-separated labels of ASCII letters,
/// digits and `-`, none empty or longer than 63 bytes, 253 bytes at most.
pub(crate) fn valid_host(s: &str) -> bool {
    if s.parse::<std::net::IpAddr>().is_ok() {
        return true;
    }
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

/// `1`/`true`/`0`/`false`.
fn flag(s: &str) -> Option<bool> {
    match s {
        "1" | "true" => Some(true),
        "0" | "false" => Some(false),
        _ => None,
    }
}

/// Reads a `1`/`true`/`0`/`false` variable into `on`.
fn switch(name: &str, on: &mut bool) {
    let current = if *on { "1" } else { "0" };
    if let Some(v) = env(name, "1, true, 0 or false", current, flag) {
        *on = v;
    }
}

impl Config {
    /// Applies `HOTPATH_*` variables; each invalid one warns once and is ignored. Then
    /// warns about the ones that have no effect here and the ones nobody reads.
    pub(crate) fn apply_env(&mut self) {
        self.apply_output();
        self.apply_rates();
        self.apply_sections();
        self.apply_cpu_and_threads();
        self.apply_metrics();
        self.apply_stacks();
        self.apply_mcp();
        self.apply_tracing();
        super::vars::check_names();
    }

    fn apply_output(&mut self) {
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
        // Not through `env`: a path need not be UTF-8.
        if let Some(raw) = std::env::var_os("HOTPATH_OUTPUT_PATH") {
            if raw.is_empty() {
                warn(&format!(
                    "HOTPATH_OUTPUT_PATH=\"\" is not valid (accepted: a non-empty file path); \
                     using {current}"
                ));
            } else {
                self.output_path = Some(PathBuf::from(raw));
            }
        }
        let rows = "a non-negative integer (0 = all rows)";
        if let Some(l) = env("HOTPATH_LIMIT", rows, &self.limit.to_string(), |s| {
            s.parse::<usize>().ok()
        }) {
            self.limit = l;
        }
        for section in Section::ALL {
            let Some(name) = section.limit_env() else {
                continue;
            };
            let field = &mut self.limits[section as usize];
            let current = field.map_or("HOTPATH_LIMIT".to_string(), |l| l.to_string());
            if let Some(l) = env(name, rows, &current, |s| s.parse::<usize>().ok()) {
                *field = Some(l);
            }
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
        if let Some(label) = env("HOTPATH_REPORT_LABEL", "a non-empty text", "none", |s| {
            (!s.is_empty()).then(|| s.to_string())
        }) {
            self.report_label = Some(label);
        }
        if let Some(focus) = env(
            "HOTPATH_FOCUS",
            "a text to find in function names, or /regex/",
            "all functions",
            Focus::parse,
        ) {
            self.focus = Some(focus);
        }
        switch("HOTPATH_EXCLUDE_WRAPPER", &mut self.exclude_wrapper);
        switch("HOTPATH_REPORT_FORKS", &mut self.report_forks);
        switch("HOTPATH_FULL_NAMES", &mut self.full_names);
    }

    fn apply_rates(&mut self) {
        let accepted = "a number from 0 to 1 (0 = count only)";
        // The generic name first, so that hotpath 0.30's specific one
        // (HOTPATH_FUNCTIONS_TIME_SAMPLING_RATE, the timing section's) overrides it; then
        // each section's in report order.
        let sections = Section::ALL
            .into_iter()
            .filter_map(|s| Some((s.rate_env()?, crate::sections::sampler(s)?)));
        for (name, kind) in
            std::iter::once(("HOTPATH_TIME_SAMPLING_RATE", Sampler::Calls)).chain(sections)
        {
            let current = self.rate(kind).to_string();
            if let Some(r) = env(name, accepted, &current, parse_rate) {
                let raw = std::env::var(name).unwrap_or_default();
                self.set_rate(kind, usable_rate(&format!("{name}={:?}", raw.trim()), r));
                if kind == Sampler::Calls {
                    // As in hotpath 0.30: the functions' variable overrides the builder's
                    // lock rates too; the locks' own variables (read after) override it.
                    self.unset_lock_rates();
                }
            }
        }
        if let Some(seed) = env(
            "HOTPATH_SAMPLING_SEED",
            "an integer from 0 to 18446744073709551615 (0 = each thread its own seed)",
            "each thread its own seed",
            |s| s.parse::<u64>().ok(),
        ) {
            self.sampling_seed = Some(seed);
        }
        let current = self
            .overhead_budget
            .map_or("off".to_string(), |b| b.to_string());
        if let Some(b) = env(
            "HOTPATH_OVERHEAD_BUDGET",
            "a percentage above 0 and at most 100, or 0 or off",
            &current,
            super::parse_budget,
        ) {
            self.overhead_budget = b;
        }
    }

    fn apply_sections(&mut self) {
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
    }

    fn apply_cpu_and_threads(&mut self) {
        // Applied by the core's clock (which may start before the session), parsed by
        // the same function there; validated here so that a wrong value is said aloud.
        let _ = env(
            "HOTPATH_CLOCK",
            "tsc, monotonic",
            "tsc if invariant, else monotonic",
            hotpath_core::clock::parse_choice,
        );
        if let Some(s) = env(
            "HOTPATH_CPU_SAMPLER",
            "perf, timer",
            "perf; timer on a virtual CPU",
            CpuSampler::parse,
        ) {
            self.cpu_sampler = Some(s);
        }
        if let Some(c) = env(
            "HOTPATH_CPU_CLOCK",
            "perf, thread",
            "perf if perf_event is allowed, else thread",
            CpuClock::parse,
        ) {
            self.cpu_clock = Some(c);
        }
        let _ = env(
            "HOTPATH_CPU_SIMULATE",
            "perf-denied, no-pmu, or both separated by a comma",
            "none",
            |s| {
                s.split(',')
                    .map(str::trim)
                    .all(|p| matches!(p, "perf-denied" | "no-pmu"))
                    .then_some(())
            },
        );
        if let Some(m) = env(
            "HOTPATH_CPU_MODE",
            CpuMode::ACCEPTED,
            self.cpu_mode.as_str(),
            CpuMode::parse,
        ) {
            self.cpu_mode = m;
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
    }

    fn apply_metrics(&mut self) {
        port("HOTPATH_METRICS_PORT", &mut self.metrics_port);
        if let Some(on) = env(
            "HOTPATH_METRICS_SERVER_ON",
            "1, true, 0 or false",
            "0",
            flag,
        ) {
            if on && self.metrics_port.is_none() {
                self.metrics_port = Some(DEFAULT_METRICS_PORT);
            }
        }
        if let Some(off) = env(
            "HOTPATH_METRICS_SERVER_OFF",
            "1, true, 0 or false",
            "0",
            flag,
        ) {
            if off {
                self.metrics_port = None;
            }
        }
        host("HOTPATH_METRICS_HOST", &mut self.metrics_host);
        if let Some(hosts) = env(
            "HOTPATH_METRICS_ALLOWED_HOSTS",
            "host names separated by commas, e.g. metrics.internal,box.lan",
            "IP addresses, localhost and HOTPATH_METRICS_HOST only",
            |s| {
                let names: Vec<String> = s
                    .split(',')
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .map(str::to_string)
                    .collect();
                (!names.is_empty() && names.iter().all(|n| valid_host(n))).then_some(names)
            },
        ) {
            self.metrics_allowed_hosts = hosts;
        }
        token(
            "HOTPATH_METRICS_AUTH_TOKEN",
            "metrics server",
            &mut self.metrics_port,
            &mut self.metrics_token,
        );
        if let Some(l) = env(
            "HOTPATH_METRICS_LIMIT",
            "a positive integer",
            &self.metrics_limit.to_string(),
            |s| s.parse::<usize>().ok().filter(|l| *l > 0),
        ) {
            self.metrics_limit = l;
        }
    }

    /// `HOTPATH_TRACING`: the spans `hotpath::tracing::layer()` measures.
    fn apply_tracing(&mut self) {
        #[cfg(feature = "tracing")]
        {
            let current = self
                .tracing_filter
                .as_ref()
                .map_or("info".to_string(), |t| t.to_string());
            if let Some(t) = env(
                "HOTPATH_TRACING",
                "tracing's target filter, e.g. info,my_crate=debug",
                &current,
                |s| crate::tracing::on::parse(s).ok(),
            ) {
                self.tracing_filter = Some(t);
            }
        }
        #[cfg(not(feature = "tracing"))]
        if var("HOTPATH_TRACING").is_some() {
            warn("HOTPATH_TRACING is set but hotpath was built without its `tracing` feature: no span is measured");
        }
    }

    fn apply_stacks(&mut self) {
        switch("HOTPATH_STACKS", &mut self.stacks);
        if let Some(n) = env(
            "HOTPATH_STACKS_NODES",
            "an integer from 16 to 4194304",
            &self.stacks_nodes.to_string(),
            |s| {
                s.parse::<u32>()
                    .ok()
                    .filter(|n| (16..=hotpath_core::stacks::MAX_NODES).contains(n))
            },
        ) {
            self.stacks_nodes = n;
        }
        let current = self
            .trace_path
            .as_ref()
            .map_or("off".to_string(), |p| p.display().to_string());
        if let Some(p) = env("HOTPATH_TRACE", "a non-empty file path", &current, |s| {
            (!s.is_empty()).then(|| PathBuf::from(s))
        }) {
            self.trace_path = Some(p);
        }
        if let Some(n) = env(
            "HOTPATH_TRACE_CAPACITY",
            "an integer from 16 to 16777216",
            &self.trace_capacity.to_string(),
            |s| s.parse::<u32>().ok().filter(|n| (16..=1 << 24).contains(n)),
        ) {
            self.trace_capacity = n;
        }
        if let Some(e) = env(
            "HOTPATH_EXPORT",
            crate::export::ACCEPTED,
            "none",
            crate::export::parse_list,
        ) {
            self.exports = e;
        }
        if let Some(ms) = env(
            "HOTPATH_EXPORT_TIMEOUT_MS",
            "a positive integer of milliseconds",
            &self.export_timeout.as_millis().to_string(),
            |s| s.parse::<u64>().ok().filter(|ms| *ms > 0),
        ) {
            self.export_timeout = Duration::from_millis(ms);
        }
    }

    fn apply_mcp(&mut self) {
        port("HOTPATH_MCP_PORT", &mut self.mcp_port);
        host("HOTPATH_MCP_HOST", &mut self.mcp_host);
        token(
            "HOTPATH_MCP_AUTH_TOKEN",
            "MCP server",
            &mut self.mcp_port,
            &mut self.mcp_token,
        );
    }
}

/// Reads the port of a server from `name` (`None`: the server is off).
fn port(name: &str, port: &mut Option<u16>) {
    let current = port.map_or("off".to_string(), |p| p.to_string());
    if let Some(p) = env(
        name,
        "a port number from 0 to 65535 (0 = any free port)",
        &current,
        |s| s.parse::<u16>().ok(),
    ) {
        *port = Some(p);
    }
}

/// Reads the address a server binds from `name`.
fn host(name: &str, host: &mut String) {
    if let Some(h) = env(
        name,
        "an IP address or host name, e.g. 127.0.0.1 or 0.0.0.0",
        host,
        |s| valid_host(s).then(|| s.to_string()),
    ) {
        *host = h;
    }
}

/// Whether `token` can be sent in an `Authorization: Bearer` header: visible ASCII, no
/// spaces, not empty.
pub(crate) fn valid_token(token: &str) -> bool {
    !token.is_empty() && token.bytes().all(|b| b.is_ascii_graphic())
}

/// Reads the bearer token of a server from `name`. Not through [`env`]: its warning
/// would print the value. An invalid token turns the server off (with a warning), so that
/// it is never open without one.
fn token(name: &str, server: &str, port: &mut Option<u16>, token: &mut Option<String>) {
    let Some(raw) = std::env::var_os(name) else {
        return;
    };
    match raw.to_str().filter(|s| valid_token(s)) {
        Some(t) => *token = Some(t.to_string()),
        None => {
            warn(&format!(
                "{name} is not valid (accepted: a non-empty token of visible ASCII \
                 characters, no spaces); the {server} is not started, so that it is never \
                 open without it"
            ));
            *port = None;
            *token = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_addresses_or_names() {
        for ok in [
            "127.0.0.1",
            "0.0.0.0",
            "::1",
            "localhost",
            "metrics-1.example.org",
        ] {
            assert!(valid_host(ok), "{ok}");
        }
        for bad in [
            "",
            "bad host",
            "a..b",
            "-a.b",
            "host_name",
            "[::1]",
            "h\u{e9}te",
        ] {
            assert!(!valid_host(bad), "{bad}");
        }
    }
}
