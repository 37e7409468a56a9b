//! What every section builder reads: the session's inputs and the snapshot.

use hotpath_core::{SiteStats, Snapshot};

use crate::config::Config;

/// What a report is made from besides the snapshot: the session's configuration and
/// the state of its meters.
pub(crate) struct Inputs<'a> {
    /// The session's configuration.
    pub cfg: &'a Config,
    /// Wall time since the session started, ns.
    pub elapsed_ns: u64,
    /// What the profiler's events cost and the clock's floor (measured at start-up).
    pub overhead: &'a crate::overhead::Overhead,
    /// Notes the session made before this report.
    pub notes: &'a [String],
    /// CPU measurement, when it runs.
    #[cfg(feature = "hotpath-cpu")]
    pub cpu: Option<&'a crate::cpu::CpuRun>,
    /// The threads monitor, when it runs.
    pub threads: Option<&'a crate::threads::Monitor>,
    /// The overhead budget, when one holds.
    pub budget: Option<crate::budget::Run>,
    /// Callgrind's counts, read at the end of the session (`None`: a report made before).
    #[cfg(feature = "hotpath-callgrind")]
    pub icount: Option<&'a crate::callgrind::Outcome>,
}

/// What every section builder reads.
pub(crate) struct Ctx<'a> {
    pub inputs: &'a Inputs<'a>,
    pub snap: &'a Snapshot,
    pub percentiles: &'a [f64],
}

impl Ctx<'_> {
    /// A sum of the timed calls' times of `s`, each weighted by the calls it stands for
    /// (under an overhead budget), scaled to all its calls: by calls over the weights'
    /// sum (without weights, calls over timed calls, as [`Ctx::scaled`]).
    pub fn weighted(s: &SiteStats, v: u64) -> u64 {
        if s.timed > 0 && s.timed_weight != s.calls {
            (v as f64 * s.calls as f64 / s.timed_weight.max(1) as f64).round() as u64
        } else {
            v
        }
    }

    /// A value measured on the timed calls of `s`, scaled to all its calls.
    pub fn scaled(s: &SiteStats, v: u64) -> u64 {
        if s.timed > 0 && s.timed < s.calls {
            (v as f64 * s.calls as f64 / s.timed as f64).round() as u64
        } else {
            v
        }
    }

    /// The configured percentiles of a distribution.
    pub fn percentiles(&self, value_at: impl Fn(f64) -> Option<u64>) -> crate::report::Percentiles {
        crate::report::Percentiles(
            self.percentiles
                .iter()
                .filter_map(|p| Some((*p, value_at(*p)?)))
                .collect(),
        )
    }
}

/// Puts a section's rows in the report, sorted by `order`, with `rate`, the fraction of
/// its events timed, beside them; `false` (nothing put) when there is no row.
pub(crate) fn place<T>(
    mut rows: Vec<T>,
    order: &dyn Fn(&T, &T) -> std::cmp::Ordering,
    rate: f64,
    rate_field: &mut Option<f64>,
    rows_field: &mut Option<Vec<T>>,
) -> bool {
    if rows.is_empty() {
        return false;
    }
    crate::report::format::sort_vec(&mut rows, order);
    *rate_field = Some(rate);
    *rows_field = Some(rows);
    true
}
