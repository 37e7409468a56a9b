//! Which `HOTPATH_*` variables there are: the ones [`super::Config::apply_env`] applies,
//! the ones read elsewhere, the ones hotpath 0.30 reads that have no effect here (with
//! the reason), and the warning for a name set in the environment that nobody reads.
//!
//! Reading and applying the values is `env.rs`'s; this file holds the names only, so that
//! every name is in one table and no name is in two.

use crate::report::Section;

use super::warn;

/// Variables read outside [`super::Config::apply_env`]: by the core at start-up, the CPU meter,
/// the `hotpath` command, or the examples and tests of this repository.
const READ_ELSEWHERE: &[&str] = &[
    // core::clock::init
    "HOTPATH_CLOCK",
    // src/cpu.rs
    "HOTPATH_CPU_SAMPLER",
    "HOTPATH_CPU_CLOCK",
    "HOTPATH_CPU_SIMULATE",
    // `hotpath console` (the CLI), as in hotpath 0.30
    "HOTPATH_TUI_REFRESH_INTERVAL_MS",
    "HOTPATH_TUI_TAB",
    "HOTPATH_TUI_AUTO_EXPAND_LOGS",
    // src/export.rs: the CLI that writes `svg` and `pprof` exports at exit
    "HOTPATH_CLI",
    // core/src/lib.rs: distinct SQL, HTTP and server keys, and `iter = true` instances
    // of one io!, channel! or stream! site, before `<other>`
    "HOTPATH_ENTRIES_LIMIT",
    // src/criterion.rs: the routine's runs in criterion's test mode
    #[cfg(any(
        feature = "criterion-0-5",
        feature = "criterion-0-6",
        feature = "criterion-0-7",
        feature = "criterion-0-8"
    ))]
    "HOTPATH_CRITERION_ITERATIONS",
    // src/callgrind: where callgrind writes its dump (as --callgrind-out-file)
    #[cfg(feature = "hotpath-callgrind")]
    "HOTPATH_CALLGRIND_OUT_FILE",
];

/// Variables hotpath 0.30 reads that mean nothing here, and why.
const NO_EFFECT: &[(&str, &str)] = &[
    ("HOTPATH_ALLOC_CUMULATIVE", "the alloc section shows inclusive (Total bytes) and exclusive (Self bytes) allocations side by side"),
    ("HOTPATH_ALLOC_SELF", "the alloc section shows inclusive (Total bytes) and exclusive (Self bytes) allocations side by side"),
    ("HOTPATH_ALLOC_METRIC", "the alloc section shows both allocation counts and bytes"),
    ("HOTPATH_ALLOC_MAX_DEPTH", "allocations are attributed at every nesting level the scope stack tracks (512)"),
    ("HOTPATH_CPU_INCLUSIVE", "the cpu section shows inclusive (CPU) and self (Self CPU) time side by side"),
    ("HOTPATH_FUNCTIONS_NAME_DEPTH", "tables show the fewest trailing segments that tell functions apart (HOTPATH_FULL_NAMES=1 shows full paths)"),
    ("HOTPATH_DRAIN_INTERVAL_MS", "there is no drain thread: each thread aggregates in place and reports merge on demand"),
    ("HOTPATH_DRAIN_INTERVAL", "there is no drain thread: each thread aggregates in place and reports merge on demand"),
    ("HOTPATH_LOGS_LIMIT", "no per-call value logs are kept"),
    ("HOTPATH_MAX_LOG_LEN", "no per-call value logs are kept"),
    ("HOTPATH_DISABLE_HINTS", "the report prints no usage hints"),
    ("HOTPATH_SHOW_INTERNAL_THREADS", "the profiler's own threads are always listed, on the line under the threads table"),
    ("HOTPATH_USER_METADATA", "reports carry no user metadata"),
    ("HOTPATH_SAMPLY_BIN", "CPU time is measured in process, without samply"),
    ("HOTPATH_SAMPLY_WRAPPER_BIN", "CPU time is measured in process, without samply"),
    ("HOTPATH_KEEP_INLINE", "CPU time is measured in process, without samply"),
    ("HOTPATH_DISABLE_SAMPLY_LOAD", "CPU time is measured in process, without samply"),
    #[cfg(not(feature = "hotpath-callgrind"))]
    ("HOTPATH_CALLGRIND_OUT_FILE", "instructions are counted only with the feature hotpath-callgrind, under valgrind --tool=callgrind"),
    ("HOTPATH_MERGE_REPORT", "a report made under callgrind (feature hotpath-callgrind) has the calls and instructions itself, and hotpath diff compares two of them; times come from a run outside valgrind, a report of its own"),
    ("HOTPATH_PROMETHEUS_PORT", "Prometheus metrics are served at /metrics of the metrics server (HOTPATH_METRICS_PORT, feature hotpath-prometheus)"),
    ("HOTPATH_PROMETHEUS_HOST", "Prometheus metrics are served at /metrics of the metrics server (HOTPATH_METRICS_HOST)"),
    ("HOTPATH_PROMETHEUS_AUTH_TOKEN", "Prometheus metrics are served at /metrics of the metrics server (HOTPATH_METRICS_AUTH_TOKEN)"),
    ("HOTPATH_PROMETHEUS_FAST_BUCKETS", "duration histograms have fixed buckets from 100 ns to 10 s"),
    ("HOTPATH_PROMETHEUS_SLOW_BUCKETS", "duration histograms have fixed buckets from 100 ns to 10 s"),
    ("HOTPATH_UPLOAD", "reports are not uploaded anywhere"),
    ("HOTPATH_BENCHMARK", "reports are not uploaded anywhere"),
    ("HOTPATH_API_URL", "reports are not uploaded anywhere"),
    ("HOTPATH_API_TOKEN", "reports are not uploaded anywhere"),
    ("HOTPATH_UPLOAD_RESPONSE_PATH", "reports are not uploaded anywhere"),
    ("HOTPATH_POLICY_PATH", "reports are not uploaded anywhere; compare runs with `hotpath diff`"),
    ("HOTPATH_SOURCE_ROOT", "reports are not uploaded anywhere"),
    #[cfg(not(any(
        feature = "criterion-0-5",
        feature = "criterion-0-6",
        feature = "criterion-0-7",
        feature = "criterion-0-8"
    )))]
    (
        "HOTPATH_CRITERION_ITERATIONS",
        "the program was built without a criterion-0-* feature (hotpath::criterion)",
    ),
    ("HOTPATH_META_SHUTDOWN_MS", "there is no self-profiling build"),
    ("HOTPATH_SQL_RAW_LOGS", "SQL is kept only normalised (literals folded), never as raw text"),
    ("HOTPATH_ROUTE_SCOPE", "SQL queries and HTTP calls are attributed to the innermost measured function, not to the server route"),
    ("HOTPATH_TOKIO_RUNTIME_INTERVAL_MS", "tokio runtimes are sampled on the threads monitor's tick (HOTPATH_THREADS_INTERVAL_MS), with no thread of their own"),
];

/// Every variable [`super::Config::apply_env`] reads besides each section's
/// `HOTPATH_<NAME>_LIMIT` and `HOTPATH_<NAME>_TIME_SAMPLING_RATE` ([`Section::limit_env`],
/// [`Section::rate_env`]).
const APPLIED: &[&str] = &[
    "HOTPATH_OUTPUT_FORMAT",
    "HOTPATH_OUTPUT_PATH",
    "HOTPATH_LIMIT",
    "HOTPATH_SHUTDOWN_MS",
    "HOTPATH_TIME_SAMPLING_RATE",
    "HOTPATH_SAMPLING_SEED",
    "HOTPATH_OVERHEAD_BUDGET",
    "HOTPATH_REPORT",
    "HOTPATH_REPORT_LABEL",
    "HOTPATH_FOCUS",
    "HOTPATH_EXCLUDE_WRAPPER",
    "HOTPATH_REPORT_FORKS",
    "HOTPATH_FULL_NAMES",
    "HOTPATH_CPU_MODE",
    "HOTPATH_CPU_HZ",
    "HOTPATH_THREADS_INTERVAL_MS",
    "HOTPATH_METRICS_PORT",
    "HOTPATH_METRICS_SERVER_ON",
    "HOTPATH_METRICS_SERVER_OFF",
    "HOTPATH_METRICS_HOST",
    "HOTPATH_METRICS_AUTH_TOKEN",
    "HOTPATH_METRICS_ALLOWED_HOSTS",
    "HOTPATH_METRICS_LIMIT",
    "HOTPATH_STACKS",
    "HOTPATH_STACKS_NODES",
    "HOTPATH_TRACING",
    "HOTPATH_TRACE",
    "HOTPATH_TRACE_CAPACITY",
    "HOTPATH_EXPORT",
    "HOTPATH_EXPORT_TIMEOUT_MS",
    "HOTPATH_MCP_PORT",
    "HOTPATH_MCP_HOST",
    "HOTPATH_MCP_AUTH_TOKEN",
];

/// Warns once about each `HOTPATH_*` variable set that has no effect here, or that no
/// version of hotpath reads (with the closest known name).
pub(crate) fn check_names() {
    let mut names: Vec<String> = std::env::vars_os()
        .filter_map(|(k, _)| k.into_string().ok())
        .filter(|k| k.starts_with("HOTPATH_"))
        .collect();
    names.sort();
    for name in names {
        if let Some(why) = unread(&name) {
            warn(&why);
        }
    }
}

/// Every variable [`super::Config::apply_env`] reads: [`APPLIED`] and each section's limit and
/// rate.
fn applied() -> impl Iterator<Item = &'static str> {
    APPLIED.iter().copied().chain(
        Section::ALL
            .into_iter()
            .flat_map(|s| [s.limit_env(), s.rate_env()])
            .flatten(),
    )
}

/// The warning for a variable that is set, or `None` when it is read.
fn unread(name: &str) -> Option<String> {
    if applied().any(|a| a == name) || READ_ELSEWHERE.contains(&name) {
        return None;
    }
    if let Some((_, why)) = NO_EFFECT.iter().find(|(n, _)| *n == name) {
        return Some(format!("{name} has no effect: {why}"));
    }
    let known = applied()
        .chain(READ_ELSEWHERE.iter().copied())
        .chain(NO_EFFECT.iter().map(|(n, _)| *n));
    let closest = known
        .map(|k| (distance(name, k), k))
        .min()
        .filter(|(d, _)| *d <= 3);
    Some(match closest {
        Some((_, k)) => format!("{name} is not a hotpath variable (did you mean {k}?); ignored"),
        None => format!("{name} is not a hotpath variable; ignored"),
    })
}

/// Levenshtein distance, for suggestions.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `APPLIED` is what `unread` stays quiet about; each name on it must really be read
    /// by the code that applies variables, or a user setting it would hear nothing and
    /// get nothing.
    #[test]
    fn every_applied_variable_is_read_by_apply_env() {
        let source = include_str!("env.rs");
        let start = source.find("\nimpl Config {").expect("impl Config");
        let end = start
            + source[start..]
                .find("\n}\n")
                .expect("the end of impl Config");
        let applying = &source[start..end];
        for name in APPLIED {
            assert!(
                applying.contains(&format!("\"{name}\"")),
                "{name} is listed as applied, but apply_env never reads it"
            );
        }
    }

    #[test]
    fn every_variable_is_read_or_explained_and_typos_get_a_suggestion() {
        for (name, _) in NO_EFFECT {
            let w = unread(name).unwrap();
            assert!(w.starts_with(&format!("{name} has no effect: ")), "{w}");
        }
        assert_eq!(
            unread("HOTPATH_OUTPUT_FROMAT").as_deref(),
            Some(
                "HOTPATH_OUTPUT_FROMAT is not a hotpath variable (did you mean \
                 HOTPATH_OUTPUT_FORMAT?); ignored"
            )
        );
        assert_eq!(
            unread("HOTPATH_NOTHING_LIKE_IT").as_deref(),
            Some("HOTPATH_NOTHING_LIKE_IT is not a hotpath variable; ignored")
        );
        // Each section's limit and rate variables are read.
        for name in ["HOTPATH_SQL_LIMIT", "HOTPATH_MUTEXES_TIME_SAMPLING_RATE"] {
            assert_eq!(unread(name), None, "{name}");
        }
        // Where callgrind writes its dump: read with hotpath-callgrind, explained without.
        assert_eq!(
            unread("HOTPATH_CALLGRIND_OUT_FILE").is_none(),
            cfg!(feature = "hotpath-callgrind")
        );
        // No name is in two lists.
        let mut all: Vec<&str> = applied()
            .chain(READ_ELSEWHERE.iter().copied())
            .chain(NO_EFFECT.iter().map(|(n, _)| *n))
            .collect();
        let n = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}
