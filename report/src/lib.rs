//! The report: its sections, model, JSON (schema version [`SCHEMA_VERSION`]; versions
//! from [`OLDEST_SCHEMA_VERSION`] are read too) and renderers.
//!
//! One pipeline for every kind of measurement: a snapshot of the profiler's numbers
//! becomes a [`Report`] (in the `hotpath` facade, one builder per [`Section`]), and
//! every renderer works from the report alone: the text tables
//! ([`render_table`], from the column model in [`columns`]), JSON, the live routes'
//! fragments ([`Report::fragment`]), Prometheus, and the CLI's console and diff.
//!
//! A crate of its own (re-exported by the `hotpath` facade as `hotpath::report`), with
//! no profiling runtime, so tools can read and render saved JSON reports.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod columns;
pub mod export;
pub mod format;
mod fragment;
mod model;
mod model_locks;
mod model_service;
pub mod names;
mod section;
mod table;

pub use fragment::{ApiError, Fragment, ProfilerStatus};
pub use model::{
    percentile_key, percentile_label, AllocTotal, CpuInfo, DebugEntry, Dist, Function,
    FunctionAlloc, FunctionCpu, FunctionIo, FunctionWaits, Histogram, HttpEntry, IoDirection,
    IoEntry, LockDist, LockHolder, LockMode, MutexEntry, Percentiles, ProcessMemory, Report,
    RunningCalls, RwLockEntry, ServerEntry, SqlEntry, StackPath, StatusClasses, ThreadRow,
    TimedSums, TokioGauge, TokioRuntime, TokioWorker, WallNs, OLDEST_SCHEMA_VERSION,
    SCHEMA_VERSION,
};
pub use model::{ChannelEntry, DistNs, FutureEntry, SendBlocked, StreamEntry};
pub use section::Section;

/// Events of a data-flow or lock site timed in full before its sampling rate applies
/// (the tables say so); the recording side's `hotpath_core::WARM_UP` (the facade asserts
/// they are equal).
pub const SAMPLING_WARM_UP: u64 = 256;
pub use table::{render as render_table, render_with as render_table_with, Limits};

/// Why a JSON report could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The text is not a JSON report.
    Json(serde_json::Error),
    /// Valid JSON without a `schema_version`: not something hotpath wrote.
    NotAReport,
    /// The report was written with another layout version.
    SchemaVersion {
        /// Version found in the file.
        found: u64,
    },
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Json(e) => write!(f, "not a hotpath JSON report: {e}"),
            ReadError::NotAReport => {
                write!(f, "not a hotpath JSON report: it has no schema_version")
            }
            ReadError::SchemaVersion { found } => write!(
                f,
                "report has schema_version {found}; this build reads versions \
                 {OLDEST_SCHEMA_VERSION} to {SCHEMA_VERSION} \
                 (re-create the report with a matching hotpath version)"
            ),
        }
    }
}

impl std::error::Error for ReadError {}

impl Report {
    /// Compact JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a report always serializes")
    }

    /// Indented JSON.
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report always serializes")
    }

    /// Reads a JSON report of schema version [`OLDEST_SCHEMA_VERSION`] to
    /// [`SCHEMA_VERSION`], refusing others.
    pub fn from_json(text: &str) -> Result<Report, ReadError> {
        read_versioned(text)
    }

    /// The report as text tables; `limit` caps the rows per section (0 = all).
    pub fn to_table(&self, limit: usize) -> String {
        render_table(self, limit)
    }
}

impl Fragment {
    /// Reads a route's answer, refusing other schema versions.
    pub fn from_json(text: &str) -> Result<Fragment, ReadError> {
        read_versioned(text)
    }
}

impl ProfilerStatus {
    /// Reads `/profiler_status`, refusing other schema versions.
    pub fn from_json(text: &str) -> Result<ProfilerStatus, ReadError> {
        read_versioned(text)
    }
}

/// Parses JSON with a `schema_version` key, refusing versions other than
/// [`OLDEST_SCHEMA_VERSION`]`..=`[`SCHEMA_VERSION`].
fn read_versioned<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, ReadError> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(ReadError::Json)?;
    let Some(found) = v.get("schema_version").and_then(|v| v.as_u64()) else {
        return Err(ReadError::NotAReport);
    };
    if !(OLDEST_SCHEMA_VERSION as u64..=SCHEMA_VERSION as u64).contains(&found) {
        return Err(ReadError::SchemaVersion { found });
    }
    serde_json::from_value(v).map_err(ReadError::Json)
}
