//! What the metrics server's JSON routes answer: the CLI reads these back.
//!
//! Every route but `/profiler_status` answers a fragment: the keys of the exit report
//! (see `docs/report-schema.md`) that belong to one section, under the same names, cut
//! from the report by [`Report::fragment`] from the section's row of the sections table
//! ([`Section::rows_key`], [`Section::extra_keys`], [`Section::function_field`]), after a
//! header (`schema_version`, `section`, `caller`, `elapsed_ns`, `percentiles`, `notes`).
//! Readers get it back as a [`Fragment`] (feature `read`).

use hotpath_macros::SerializeFields;
#[cfg(feature = "read")]
use serde::Deserialize;
use serde_json::{Map, Value};

use super::model::Report;
#[cfg(feature = "read")]
use super::section::known_sections;
use super::section::Section;

/// The keys of a fragment's header, taken from the report as they are.
const HEADER: [&str; 5] = [
    "schema_version",
    "caller",
    "elapsed_ns",
    "percentiles",
    "notes",
];

impl Report {
    /// The part of the report that belongs to `section`, as its live route answers it:
    /// the header, the section's own keys (its rows, `[]` when it has none yet), and for
    /// a section with a per-function object the functions with only that object (only
    /// the functions that have one, for `io` and `waits`); `timing` lists the functions
    /// with none.
    pub fn fragment(&self, section: Section) -> Value {
        // Through the text, not `to_value`: the report's `Serialize` code is then the one
        // the exit report uses, not a second copy for `Value` in every profiled program.
        let Ok(Value::Object(mut all)) = serde_json::from_str(&self.to_json()) else {
            unreachable!("a report serializes to a JSON object")
        };
        let mut out = Map::new();
        for key in HEADER {
            if let Some(v) = all.remove(key) {
                out.insert(key.to_string(), v);
            }
        }
        out.insert("section".into(), Value::from(section.name()));
        for &key in section.extra_keys() {
            if let Some(v) = all.remove(key) {
                out.insert(key.to_string(), v);
            }
        }
        if section == Section::Timing || section.function_field().is_some() {
            let keep = section.function_field();
            let functions = all.remove("functions").unwrap_or(Value::Array(Vec::new()));
            out.insert(
                "functions".into(),
                function_parts(functions, keep, section.filters_functions()),
            );
        }
        if let Some(key) = section.rows_key().filter(|k| *k != "functions") {
            let rows = all.remove(key).unwrap_or(Value::Array(Vec::new()));
            out.insert(key.to_string(), rows);
        }
        Value::Object(out)
    }
}

/// The function rows with only `keep`'s per-function object (none: no section's), and
/// when `filter`, only the rows that have it.
fn function_parts(functions: Value, keep: Option<&str>, filter: bool) -> Value {
    let Value::Array(rows) = functions else {
        return functions;
    };
    let objects: Vec<&str> = Section::ALL
        .into_iter()
        .filter_map(Section::function_field)
        .filter(|f| Some(*f) != keep)
        .collect();
    let rows = rows
        .into_iter()
        .filter_map(|mut row| {
            let obj = row.as_object_mut()?;
            for key in &objects {
                obj.remove(*key);
            }
            let has = keep.is_some_and(|k| obj.get(k).is_some_and(|v| !v.is_null()));
            (!filter || has).then_some(row)
        })
        .collect();
    Value::Array(rows)
}

/// One section of the report so far, read back (feature `read`): `GET /functions_timing`,
/// `/io`, `/mutexes`, ...
#[cfg(feature = "read")]
#[derive(Clone, Debug, PartialEq)]
pub struct Fragment {
    /// Layout version, [`super::SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The section.
    pub section: Section,
    /// The function that started profiling.
    pub caller: String,
    /// Wall time from the start of profiling to this answer, ns.
    pub elapsed_ns: u64,
    /// Percentiles of every distribution.
    pub percentiles: Vec<f64>,
    /// What the reader should know about the numbers (as in the report).
    pub notes: Vec<String>,
    /// The section's keys read into a report that has nothing else: its rows (e.g.
    /// `part.io`), its other keys, and the functions when the section lists them.
    pub part: Report,
    /// The section's keys the answer had, beyond the header, in the order of the report.
    pub keys: Vec<String>,
}

/// `GET /profiler_status`.
#[derive(Clone, Debug, PartialEq, SerializeFields)]
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
    /// Sections the program collects (configured, and measurable in this run).
    #[serde(deserialize_with = "known_sections")]
    pub sections: Vec<Section>,
    /// Cargo features of hotpath compiled in: `hotpath`, `hotpath-alloc`, `hotpath-cpu`,
    /// `hotpath-live`, `hotpath-prometheus`, the integrations (`tokio`, `sqlx`, ...).
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
#[derive(Clone, Debug, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct ApiError {
    /// What went wrong, for a person.
    pub error: String,
    /// For a section that is not compiled in and that one Cargo feature adds: that
    /// feature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feature: Option<String>,
    /// For a section that is not compiled in: the Cargo features of which any one adds
    /// it (`sqlx`, `diesel`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub features: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        Dist, Function, FunctionWaits, HttpEntry, ServerEntry, SqlEntry, StatusClasses, TokioGauge,
        TokioRuntime,
    };

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

    /// The top-level keys of `section`'s fragment, sorted.
    fn keys(r: &Report, section: Section) -> Vec<String> {
        let mut k: Vec<String> = r
            .fragment(section)
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        k.sort();
        k
    }

    fn with_header(own: &[&str]) -> Vec<String> {
        let mut k: Vec<String> = HEADER
            .iter()
            .chain(&["section"])
            .chain(own)
            .map(|s| s.to_string())
            .collect();
        k.sort();
        k
    }

    #[test]
    fn service_fragments_carry_their_rows_only() {
        let r = report();
        for (s, key) in [
            (Section::Sql, "sql"),
            (Section::Http, "http"),
            (Section::Server, "server"),
            (Section::Tokio, "tokio"),
        ] {
            assert_eq!(keys(&r, s), with_header(&[key]), "{s}");
            assert_eq!(
                r.fragment(s)[key],
                serde_json::to_value(&r).unwrap()[key],
                "{s}"
            );
        }
        // The time the function waited on SQL and HTTP is in the waits fragment, with
        // no other per-function object.
        assert_eq!(keys(&r, Section::Waits), with_header(&["functions"]));
        let f = r.fragment(Section::Waits);
        let w = &f["functions"][0]["waits"];
        assert_eq!(
            (w["sql_ns"].as_u64(), w["http_ns"].as_u64()),
            (Some(7), Some(9))
        );
    }

    #[test]
    fn every_section_has_its_keys_and_an_empty_one_answers_no_rows() {
        let empty = Report::default();
        for s in Section::ALL {
            let k = keys(&empty, s);
            assert!(k.contains(&"section".to_string()), "{s}");
            if let Some(rows) = s.rows_key() {
                assert_eq!(empty.fragment(s)[rows], serde_json::json!([]), "{s}");
            }
        }
    }

    #[cfg(feature = "read")]
    #[test]
    fn a_service_fragment_reads_back_equal() {
        let r = report();
        for s in [Section::Sql, Section::Http, Section::Server, Section::Tokio] {
            let json = serde_json::to_string(&r.fragment(s)).unwrap();
            let f = Fragment::from_json(&json).unwrap();
            assert_eq!((f.section, f.caller.as_str()), (s, "app::main"));
            assert_eq!(f.keys, [s.rows_key().unwrap()]);
            let part = serde_json::to_value(&f.part).unwrap();
            assert_eq!(
                part[s.rows_key().unwrap()],
                serde_json::to_value(&r).unwrap()[s.rows_key().unwrap()],
                "{json}"
            );
        }
    }
}
