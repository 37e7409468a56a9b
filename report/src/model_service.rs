//! The report's service parts as data: SQL queries, HTTP client calls, HTTP server routes
//! and tokio runtimes (sections `sql`, `http`, `server`, `tokio`; see
//! `docs/report-schema.md`).

use hotpath_macros::SerializeFields;
#[cfg(feature = "read")]
use serde::Deserialize;

use super::model_dist::Dist;

/// One normalised query issued from one function: a row of the `sql` section.
#[derive(Clone, Debug, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct SqlEntry {
    /// The query with its literals, placeholders and `IN` lists folded to `?` and its
    /// whitespace collapsed; `<other>` for the queries past the entries limit.
    pub query: String,
    /// The innermost measured function that issued it (its label, else its path), or
    /// `null` when none was running.
    pub source: Option<String>,
    /// `sqlx` or `diesel`.
    pub backend: String,
    /// Queries run.
    pub calls: u64,
    /// Of those, the ones that failed; `null` for sqlx, whose query event does not say.
    pub errors: Option<u64>,
    /// Rows the queries returned, as sqlx counts them: the rows the driver read, which for
    /// a `fetch` stream dropped early may be more than the program took; `null` for
    /// diesel, which does not say.
    pub rows_returned: Option<u64>,
    /// Rows they inserted, updated or deleted; `null` for diesel.
    pub rows_affected: Option<u64>,
    /// Queries per call of the source function (N+1 queries show as N + 1); `null` without
    /// a source.
    pub per_source_call: Option<f64>,
    /// Their durations, ns. sqlx measures a query until its rows are consumed, so the time
    /// of a streamed `fetch` includes the program's own time between rows.
    pub duration_ns: Dist,
    /// Share of the session's wall time spent in these queries (0 to 1).
    pub share_of_wall: f64,
}

/// One HTTP client endpoint called from one function: a row of the `http` section.
#[derive(Clone, Debug, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct HttpEntry {
    /// `METHOD host:port/path` with ids folded to `{id}` (never the query string), or
    /// `METHOD label` for a labelled client.
    pub endpoint: String,
    /// The label given to `http!` or the middleware, or `null`.
    pub label: Option<String>,
    /// The innermost measured function that made the requests, or `null`.
    pub source: Option<String>,
    /// `reqwest` or `ureq`.
    pub client: String,
    /// Requests made.
    pub calls: u64,
    /// Requests that got no response (connection refused, timeout, ...).
    pub errors: u64,
    /// Responses by status class.
    #[serde(flatten)]
    pub status: StatusClasses,
    /// Time to the response head, ns (what a client middleware sees: the body is read
    /// after it returns).
    pub ttfb_ns: Dist,
    /// Responses read to the end of their body, with body timing
    /// (`http!(client, body = true)`); 0 without it.
    #[serde(default)]
    pub bodies: u64,
    /// Time from the request's start to the end of its response body, ns, over
    /// `bodies`; `null` when no body was timed to its end.
    #[serde(default)]
    pub body_ns: Option<Dist>,
}

/// Responses by status class.
#[derive(Clone, Debug, Default, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct StatusClasses {
    /// 1xx responses.
    pub status_1xx: u64,
    /// 2xx responses.
    pub status_2xx: u64,
    /// 3xx responses.
    pub status_3xx: u64,
    /// 4xx responses.
    pub status_4xx: u64,
    /// 5xx responses.
    pub status_5xx: u64,
}

impl StatusClasses {
    /// From `[1xx, 2xx, 3xx, 4xx, 5xx]`.
    pub fn from_array(s: [u64; 5]) -> StatusClasses {
        StatusClasses {
            status_1xx: s[0],
            status_2xx: s[1],
            status_3xx: s[2],
            status_4xx: s[3],
            status_5xx: s[4],
        }
    }
}

/// One route of the HTTP server: a row of the `server` section.
#[derive(Clone, Debug, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct ServerEntry {
    /// `METHOD /users/{id}`: the matched route (axum's `MatchedPath`), never the raw
    /// path; `METHOD <unmatched>` for requests no route matched.
    pub route: String,
    /// Requests answered.
    pub calls: u64,
    /// Responses by status class.
    #[serde(flatten)]
    pub status: StatusClasses,
    /// Requests whose handler failed or whose response body was dropped before its end
    /// (the client went away).
    pub aborted: u64,
    /// Requests started and not finished when the report was made.
    pub in_flight: u64,
    /// Time to the response head, ns.
    pub ttfb_ns: Dist,
    /// Time to the end of the response body, ns.
    pub total_ns: Dist,
}

/// One tokio runtime registered with `tokio_runtime!`: a row of the `tokio` section.
#[derive(Clone, Debug, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct TokioRuntime {
    /// The `label = ...` given, or `null`.
    pub label: Option<String>,
    /// `multi_thread` or `current_thread`.
    pub flavor: String,
    /// Worker threads.
    pub workers: u64,
    /// Time since the runtime was registered, ns: what busy shares are of.
    pub elapsed_ns: u64,
    /// Tasks alive, sampled on the threads monitor's tick and at the report.
    pub alive_tasks: TokioGauge,
    /// Tasks in the global (injection) queue, sampled likewise.
    pub global_queue_depth: TokioGauge,
    /// Each worker's busy time and parks since registration.
    pub worker_stats: Vec<TokioWorker>,
    /// Blocking-pool threads (`null`: needs `--cfg tokio_unstable`).
    pub blocking_threads: Option<u64>,
    /// Tasks spawned (`null`: needs `--cfg tokio_unstable`).
    pub spawned_tasks: Option<u64>,
    /// Whether the unstable metrics were read.
    pub unstable: bool,
}

impl TokioRuntime {
    /// Busy time summed over the workers, ns.
    pub fn busy_ns(&self) -> u64 {
        self.worker_stats.iter().map(|w| w.busy_ns).sum()
    }

    /// The label, or `flavor` when none was given.
    pub fn name(&self) -> &str {
        self.label.as_deref().unwrap_or(&self.flavor)
    }
}

/// A sampled gauge.
#[derive(Clone, Debug, Default, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct TokioGauge {
    /// The last sample.
    pub last: u64,
    /// The largest sample.
    pub max: u64,
    /// The mean of the samples.
    pub mean: f64,
    /// Samples taken.
    pub samples: u64,
}

/// One worker thread of a runtime.
#[derive(Clone, Debug, Default, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct TokioWorker {
    /// Worker index, from 0.
    pub index: u64,
    /// Time the worker spent running tasks, ns: tokio's counter, to which a worker adds a
    /// busy period when it parks (or every 61 scheduler ticks), so a worker still busy at
    /// the report shows its time up to its last park.
    pub busy_ns: u64,
    /// `busy_ns` over the runtime's `elapsed_ns` (0 to 1).
    pub busy_share: f64,
    /// Times the worker parked (went idle).
    pub parks: u64,
    /// Tasks polled (`null`: needs `--cfg tokio_unstable`).
    pub polls: Option<u64>,
    /// Tasks stolen from other workers (`null`: needs `--cfg tokio_unstable`).
    pub steals: Option<u64>,
    /// Mean poll duration, ns (`null`: needs `--cfg tokio_unstable`).
    pub mean_poll_ns: Option<u64>,
    /// Deepest local queue seen (`null`: needs `--cfg tokio_unstable`).
    pub local_queue_max: Option<u64>,
}
