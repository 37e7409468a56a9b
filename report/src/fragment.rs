//! What the metrics server's JSON routes answer, as data: the CLI reads these back.
//!
//! Every route but `/profiler_status` answers a [`Fragment`]: the keys of the exit
//! report (see `docs/report-schema.md`) that belong to one section, under the same names,
//! cut from the report by [`Report::fragment`].

#[cfg(feature = "read")]
use serde::Deserialize;
use serde::Serialize;

use super::model::{
    AllocTotal, ChannelEntry, CpuInfo, DebugEntry, Function, FutureEntry, HttpEntry, IoEntry,
    MutexEntry, ProcessMemory, Report, RwLockEntry, ServerEntry, SqlEntry, StackPath, StreamEntry,
    ThreadRow, TokioRuntime,
};
#[cfg(feature = "read")]
use super::section::known_sections;
use super::section::Section;

/// One section of the report so far: `GET /functions_timing`, `/functions_alloc`,
/// `/functions_cpu`, `/io`, `/channels`, `/streams`, `/futures`, `/threads`, `/stacks`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct Fragment {
    /// Layout version, [`super::SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The section: `timing`, `alloc`, `cpu`, `io` or `threads`.
    pub section: Section,
    /// The function that started profiling.
    pub caller: String,
    /// Wall time from the start of profiling to this answer, ns.
    pub elapsed_ns: u64,
    /// Percentiles of every distribution.
    pub percentiles: Vec<f64>,
    /// What the reader should know about the numbers (as in the report).
    pub notes: Vec<String>,
    /// Section `alloc`: allocations of the whole process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alloc_total: Option<AllocTotal>,
    /// Section `cpu`: how CPU time is measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuInfo>,
    /// Sections `timing`, `alloc`, `cpu`: the functions, with only this section's
    /// per-function object (`alloc`, `cpu`) filled in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub functions: Option<Vec<Function>>,
    /// Section `io`: fraction of operations timed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_time_sampling_rate: Option<f64>,
    /// Section `io`: the entries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io: Option<Vec<IoEntry>>,
    /// Section `channels`: fraction timed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels_time_sampling_rate: Option<f64>,
    /// Section `channels`: the channel entries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<Vec<ChannelEntry>>,
    /// Section `streams`: fraction timed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams_time_sampling_rate: Option<f64>,
    /// Section `streams`: the stream entries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams: Option<Vec<StreamEntry>>,
    /// Section `futures`: fraction timed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub futures_time_sampling_rate: Option<f64>,
    /// Section `futures`: the futures measured per call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub futures: Option<Vec<FutureEntry>>,
    /// Section `threads`: every thread seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<Vec<ThreadRow>>,
    /// Section `threads`: memory of the process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_memory: Option<ProcessMemory>,
    /// Section `mutexes`: fraction of acquisitions timed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutexes_time_sampling_rate: Option<f64>,
    /// Section `mutexes`: the `mutex!` sites.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutexes: Option<Vec<MutexEntry>>,
    /// Section `rw_locks`: fraction of acquisitions timed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rw_locks_time_sampling_rate: Option<f64>,
    /// Section `rw_locks`: the `rw_lock!` sites.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rw_locks: Option<Vec<RwLockEntry>>,
    /// Section `debug`: the debug values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debug: Option<Vec<DebugEntry>>,
    /// Section `stacks`: the calling-context tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stacks: Option<Vec<StackPath>>,
    /// Section `sql`: the queries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql: Option<Vec<SqlEntry>>,
    /// Section `http`: the client endpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<Vec<HttpEntry>>,
    /// Section `server`: the routes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<Vec<ServerEntry>>,
    /// Section `tokio`: the runtimes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokio: Option<Vec<TokioRuntime>>,
}

/// `GET /profiler_status`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct ProfilerStatus {
    /// Layout version, [`super::SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Version of the hotpath crate in the program.
    pub version: String,
    /// Process id of the program.
    pub pid: u32,
    /// The function that started profiling.
    pub caller: String,
    /// Time since profiling started, ns.
    pub uptime_ns: u64,
    /// Sections the program collects: `timing`, `alloc`, `cpu`, `io`, `threads`.
    #[serde(deserialize_with = "known_sections")]
    pub sections: Vec<Section>,
    /// Cargo features of hotpath compiled in: `hotpath`, `hotpath-alloc`, `hotpath-cpu`,
    /// `hotpath-prometheus`, `hotpath-mcp`, `tokio`, `futures-io`.
    pub features: Vec<String>,
    /// How CPU time is measured (`sampled` or `exact`), when it is.
    pub cpu_mode: Option<String>,
    /// What measures it, e.g. `timer_create(CLOCK_THREAD_CPUTIME_ID)`.
    pub cpu_source: Option<String>,
    /// Clock of the durations: `tsc` or `monotonic`.
    pub clock: String,
    /// Fraction of calls timed.
    pub time_sampling_rate: f64,
}

/// The body of every error answer (4xx).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct ApiError {
    /// What went wrong, for a person.
    pub error: String,
    /// For a section that is not compiled in: the Cargo feature that adds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feature: Option<String>,
}

impl Report {
    /// The part of the report that belongs to `section`, as its live route answers it:
    /// the section's own keys, and the functions with only that section's per-function
    /// object (`alloc`, `cpu`, `io`) filled in.
    pub fn fragment(&self, section: Section) -> Fragment {
        let mut fragment = Fragment {
            schema_version: self.schema_version,
            section,
            caller: self.caller.clone(),
            elapsed_ns: self.elapsed_ns,
            percentiles: self.percentiles.clone(),
            notes: self.notes.clone(),
            alloc_total: None,
            cpu: None,
            functions: None,
            io_time_sampling_rate: None,
            io: None,
            channels_time_sampling_rate: None,
            channels: None,
            streams_time_sampling_rate: None,
            streams: None,
            futures_time_sampling_rate: None,
            futures: None,
            threads: None,
            process_memory: None,
            mutexes_time_sampling_rate: None,
            mutexes: None,
            rw_locks_time_sampling_rate: None,
            rw_locks: None,
            debug: None,
            stacks: None,
            sql: None,
            http: None,
            server: None,
            tokio: None,
        };
        // The functions with only `keep`'s per-function object.
        let functions = |keep: Option<Section>| {
            let mut v = self.functions.clone();
            for f in &mut v {
                if keep != Some(Section::Alloc) {
                    f.alloc = None;
                }
                if keep != Some(Section::Cpu) {
                    f.cpu = None;
                }
                if keep != Some(Section::Io) {
                    f.io = None;
                }
                if keep != Some(Section::Waits) {
                    f.waits = None;
                }
            }
            v
        };
        match section {
            Section::Timing => fragment.functions = Some(functions(None)),
            Section::Sql => fragment.sql = Some(self.sql.clone().unwrap_or_default()),
            Section::Http => fragment.http = Some(self.http.clone().unwrap_or_default()),
            Section::Server => fragment.server = Some(self.server.clone().unwrap_or_default()),
            Section::Tokio => fragment.tokio = Some(self.tokio.clone().unwrap_or_default()),
            Section::Alloc => {
                fragment.alloc_total = self.alloc_total.clone();
                fragment.functions = Some(functions(Some(Section::Alloc)));
            }
            Section::Cpu => {
                fragment.cpu = self.cpu.clone();
                fragment.functions = Some(functions(Some(Section::Cpu)));
            }
            Section::Io => {
                fragment.io_time_sampling_rate = self.io_time_sampling_rate;
                fragment.io = Some(self.io.clone().unwrap_or_default());
                fragment.functions = Some(
                    functions(Some(Section::Io))
                        .into_iter()
                        .filter(|f| f.io.is_some())
                        .collect(),
                );
            }
            Section::Channels => {
                fragment.channels_time_sampling_rate = self.channels_time_sampling_rate;
                fragment.channels = Some(self.channels.clone().unwrap_or_default());
            }
            Section::Streams => {
                fragment.streams_time_sampling_rate = self.streams_time_sampling_rate;
                fragment.streams = Some(self.streams.clone().unwrap_or_default());
            }
            Section::Futures => {
                fragment.futures_time_sampling_rate = self.futures_time_sampling_rate;
                fragment.futures = Some(self.futures.clone().unwrap_or_default());
            }
            Section::Threads => {
                fragment.threads = Some(self.threads.clone().unwrap_or_default());
                fragment.process_memory = self.process_memory.clone();
            }
            Section::Waits => {
                fragment.functions = Some(
                    functions(Some(Section::Waits))
                        .into_iter()
                        .filter(|f| f.waits.is_some())
                        .collect(),
                );
            }
            Section::Mutexes => {
                fragment.mutexes_time_sampling_rate = self.mutexes_time_sampling_rate;
                fragment.mutexes = Some(self.mutexes.clone().unwrap_or_default());
            }
            Section::RwLocks => {
                fragment.rw_locks_time_sampling_rate = self.rw_locks_time_sampling_rate;
                fragment.rw_locks = Some(self.rw_locks.clone().unwrap_or_default());
            }
            Section::Debug => fragment.debug = Some(self.debug.clone().unwrap_or_default()),
            Section::Stacks => fragment.stacks = Some(self.stacks.clone().unwrap_or_default()),
        }
        fragment
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Dist, FunctionWaits, StatusClasses, TokioGauge};

    /// A report with one row in each service section and a function that waited on
    /// SQL and HTTP.
    fn report() -> Report {
        Report {
            schema_version: crate::SCHEMA_VERSION,
            caller: "app::main".into(),
            elapsed_ns: 1_000,
            functions: vec![Function {
                name: "app::handler".into(),
                calls: 2,
                waits: Some(FunctionWaits {
                    sql_ns: 7,
                    http_ns: 9,
                    ..Default::default()
                }),
                ..Default::default()
            }],
            sql: Some(vec![SqlEntry {
                query: "SELECT ?".into(),
                source: Some("app::handler".into()),
                backend: "sqlx".into(),
                calls: 2,
                errors: None,
                rows_returned: Some(2),
                rows_affected: Some(0),
                per_source_call: Some(1.0),
                duration_ns: Dist::default(),
                share_of_wall: 0.0,
            }]),
            http: Some(vec![HttpEntry {
                endpoint: "GET 127.0.0.1:{port}/users/{id}".into(),
                label: None,
                source: Some("app::handler".into()),
                client: "reqwest".into(),
                calls: 2,
                errors: 0,
                status: StatusClasses::from_array([0, 2, 0, 0, 0]),
                ttfb_ns: Dist::default(),
                bodies: 0,
                body_ns: None,
            }]),
            server: Some(vec![ServerEntry {
                route: "GET /users/{id}".into(),
                calls: 2,
                status: StatusClasses::from_array([0, 2, 0, 0, 0]),
                aborted: 0,
                in_flight: 0,
                ttfb_ns: Dist::default(),
                total_ns: Dist::default(),
            }]),
            tokio: Some(vec![TokioRuntime {
                label: None,
                flavor: "current_thread".into(),
                workers: 1,
                elapsed_ns: 1_000,
                alive_tasks: TokioGauge::default(),
                global_queue_depth: TokioGauge::default(),
                worker_stats: vec![],
                blocking_threads: None,
                spawned_tasks: None,
                unstable: false,
            }]),
            ..Report::default()
        }
    }

    #[test]
    fn service_fragments_carry_their_rows_only() {
        let r = report();
        let f = r.fragment(Section::Sql);
        assert_eq!(f.sql, r.sql);
        assert_eq!(
            (f.http, f.server, f.tokio, f.functions),
            (None, None, None, None)
        );
        let f = r.fragment(Section::Http);
        assert_eq!(f.http, r.http);
        assert_eq!((f.sql, f.server, f.tokio), (None, None, None));
        let f = r.fragment(Section::Server);
        assert_eq!(f.server, r.server);
        assert_eq!((f.sql, f.http, f.tokio), (None, None, None));
        let f = r.fragment(Section::Tokio);
        assert_eq!(f.tokio, r.tokio);
        assert_eq!((f.sql, f.http, f.server), (None, None, None));
        // The time the function waited on SQL and HTTP is in the waits fragment.
        let f = r.fragment(Section::Waits);
        let w = f.functions.unwrap()[0].waits.clone().unwrap();
        assert_eq!((w.sql_ns, w.http_ns), (7, 9));
        assert!(f.sql.is_none());
    }

    #[test]
    fn a_service_fragment_reads_back_equal() {
        let r = report();
        for s in [Section::Sql, Section::Http, Section::Server, Section::Tokio] {
            let f = r.fragment(s);
            let json = serde_json::to_string(&f).unwrap();
            assert_eq!(Fragment::from_json(&json).unwrap(), f, "{json}");
        }
    }
}
