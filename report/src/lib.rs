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
#[cfg(feature = "diff")]
pub mod diff;
pub mod export;
pub mod format;
mod fragment;
mod model;
mod model_dist;
mod model_locks;
mod model_service;
pub mod names;
mod pretty;
#[cfg(feature = "read")]
mod read;
mod section;
mod ser;
mod table;

#[cfg(feature = "read")]
pub use fragment::Fragment;
pub use fragment::{ApiError, ProfilerStatus};
pub use model::{
    percentile_key, percentile_label, AllocTotal, CpuInfo, DebugEntry, Dist, Function,
    FunctionAlloc, FunctionCpu, FunctionIcount, FunctionIo, FunctionWaits, Histogram, HttpEntry,
    IcountInfo, IoDirection, IoEntry, LockDist, LockHolder, LockMode, MutexEntry, OverheadBudget,
    Percentiles, ProcessMemory, Report, RunningCalls, RwLockEntry, ServerEntry, SqlEntry,
    StackPath, StatusClasses, ThreadRow, TimedSums, TokioGauge, TokioRuntime, TokioWorker, WallNs,
    OLDEST_SCHEMA_VERSION, SCHEMA_VERSION,
};
pub use model::{ChannelEntry, DistNs, FutureEntry, SendBlocked, StreamEntry};
pub use section::{Group, Section};

/// Events of a data-flow or lock site timed in full before its sampling rate applies
/// (the tables say so); the recording side's `hotpath_core::WARM_UP` (the facade asserts
/// they are equal).
pub const SAMPLING_WARM_UP: u64 = 256;
pub use table::{render as render_table, render_with as render_table_with, section_table, Limits};

impl Report {
    /// Compact JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a report always serializes")
    }

    /// Indented JSON.
    pub fn to_json_pretty(&self) -> String {
        pretty::indent(&self.to_json())
    }

    /// The report as text tables; `limit` caps the rows per section (0 = all).
    pub fn to_table(&self, limit: usize) -> String {
        render_table(self, limit)
    }
}

#[cfg(feature = "read")]
pub use read::ReadError;
