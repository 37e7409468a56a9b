//! `alloc`: allocations per function, and the process's allocations (feature
//! `hotpath-alloc`; without it the section is never present).

use hotpath_core::SiteStats;

use super::ctx::Ctx;
use crate::report::{FunctionAlloc, Report};

/// A function's allocations over its timed calls, scaled to all calls.
#[cfg(feature = "hotpath-alloc")]
pub(super) fn function(ctx: &Ctx<'_>, s: &SiteStats) -> Option<FunctionAlloc> {
    if s.timed == 0 {
        return None;
    }
    let a = &s.alloc;
    let bytes = Ctx::scaled(s, a.bytes);
    let freed = Ctx::scaled(s, a.freed);
    Some(FunctionAlloc {
        count: Ctx::scaled(s, a.allocs),
        bytes,
        self_count: Ctx::scaled(s, a.self_allocs),
        self_bytes: Ctx::scaled(s, a.self_bytes),
        freed_bytes: freed,
        retained_bytes: bytes as i64 - freed as i64,
        per_call_count: (a.allocs_sum as f64 / s.timed as f64 * 100.0).round() / 100.0,
        per_call_bytes: a.bytes_sum / s.timed,
        percentiles: ctx.percentiles(|p| a.bytes_percentile(p)),
        hist: Some(crate::report::Histogram {
            sum: a.bytes_sum,
            buckets: a.dist.buckets(),
        }),
    })
}

#[cfg(not(feature = "hotpath-alloc"))]
pub(super) fn function(_: &Ctx<'_>, _: &SiteStats) -> Option<FunctionAlloc> {
    None
}

/// Allocations, bytes and freed bytes of the timed calls, unscaled.
#[cfg(feature = "hotpath-alloc")]
pub(super) fn timed_sums(s: &SiteStats) -> [Option<u64>; 3] {
    [
        Some(s.alloc.allocs),
        Some(s.alloc.bytes),
        Some(s.alloc.freed),
    ]
}

#[cfg(not(feature = "hotpath-alloc"))]
pub(super) fn timed_sums(_: &SiteStats) -> [Option<u64>; 3] {
    [None; 3]
}

/// The process totals and the part outside measured functions; a note instead of a
/// section of zeros when the tracking allocator is not installed.
#[cfg(feature = "hotpath-alloc")]
pub(super) fn build(ctx: &Ctx<'_>, r: &mut Report, notes: &mut Vec<String>) -> bool {
    if !hotpath_alloc::installed() {
        notes.push(
            "hotpath-alloc is on but no allocation was counted: install the tracking allocator \
             (#[hotpath::main] does unless `allocator = none`; or declare \
             `#[global_allocator] static A: hotpath::alloc::Tracking = ...`)"
                .into(),
        );
        return false;
    }
    let p = hotpath_alloc::session_totals();
    let a = ctx.snap.attributed.alloc;
    r.alloc_total = Some(crate::report::AllocTotal {
        count: p.allocs,
        bytes: p.bytes,
        freed_bytes: p.freed,
        unattributed_count: p.allocs.saturating_sub(a.allocs),
        unattributed_bytes: p.bytes.saturating_sub(a.bytes),
        unattributed_freed_bytes: p.freed.saturating_sub(a.freed),
    });
    true
}

#[cfg(not(feature = "hotpath-alloc"))]
pub(super) fn build(_: &Ctx<'_>, _: &mut Report, _: &mut Vec<String>) -> bool {
    false
}
