//! `mutexes` and `rw_locks`: acquisitions, contention, waits, holds and holders per
//! `mutex!` / `rw_lock!` site.

use std::collections::HashMap;

use hotpath_core::{CallSite, HolderStats, SiteStats};
use hotpath_lock::{LockKind, LockSite, Mode};

use super::ctx::{place, Ctx};
use crate::report::{Histogram, LockDist, LockHolder, LockMode, MutexEntry, Report, RwLockEntry};

/// The function a holder row names.
fn function_name(f: Option<&'static CallSite>) -> String {
    match f {
        Some(f) => f.label().unwrap_or_else(|| f.name()).to_string(),
        None => "(no measured function)".to_string(),
    }
}

struct Stats<'a> {
    by_site: HashMap<*const CallSite, &'a SiteStats>,
    holders: HashMap<*const CallSite, Vec<&'a HolderStats>>,
}

impl<'a> Stats<'a> {
    fn new(ctx: &'a Ctx<'_>) -> Self {
        let mut holders: HashMap<*const CallSite, Vec<&HolderStats>> = HashMap::new();
        for h in &ctx.snap.holders {
            holders.entry(h.site as *const _).or_default().push(h);
        }
        Stats {
            by_site: ctx
                .snap
                .sites
                .iter()
                .map(|s| (s.site as *const _, s))
                .collect(),
            holders,
        }
    }

    /// The numbers of one mode of `site`; `None` when it has none.
    fn mode(&self, ctx: &Ctx<'_>, site: &'static LockSite, mode: Mode) -> Option<LockMode> {
        let cs: *const CallSite = site.mode(mode);
        let s = self.by_site.get(&cs)?;
        let timed = s.timed > 0;
        let wait_ns = timed.then(|| {
            let (min, max) = s.wait.range();
            LockDist {
                total: s.wait_ns,
                mean: s.wait_ns / s.timed_weight.max(1),
                min,
                max,
                percentiles: ctx.percentiles(|p| s.wait.percentile(p)),
                hist: Some(Histogram {
                    sum: s.wait_ns,
                    buckets: s.wait.buckets(),
                }),
            }
        });
        let hold_ns = timed.then(|| LockDist {
            total: s.total_ns,
            mean: s.sum_ns / s.timed_weight.max(1),
            min: s.min_ns,
            max: s.max_ns,
            percentiles: ctx.percentiles(|p| s.percentile_ns(p)),
            hist: Some(Histogram {
                sum: s.sum_ns,
                buckets: s.time.buckets(),
            }),
        });
        let all: &[&HolderStats] = self.holders.get(&cs).map_or(&[], |v| v.as_slice());
        Some(LockMode {
            acquisitions: s.calls,
            contended: s.contended,
            try_failed: s.try_failed,
            timed: s.timed,
            // Fewer timed than made: the extremes and percentiles are a sample's.
            sampled: s.timed < s.calls,
            condvar_waits: s.condvar_waits,
            wait_ns,
            hold_ns,
            holders: holders(all, s),
        })
    }
}

/// Every function that made acquisitions of the mode (the snapshot lists the pairs by
/// hold, then wait, then acquisitions; as many as there are measured functions, so
/// bounded by call sites), then `<other>` for acquisitions no pair holds (a thread's pair
/// table full).
fn holders(all: &[&HolderStats], s: &SiteStats) -> Vec<LockHolder> {
    let mut rows: Vec<LockHolder> = all
        .iter()
        .map(|h| LockHolder {
            function: function_name(h.function),
            acquisitions: h.ops,
            contended: h.contended,
            wait_ns: h.wait_ns,
            hold_ns: h.hold_ns,
        })
        .collect();
    let sum = |f: fn(&LockHolder) -> u64| rows.iter().map(f).sum::<u64>();
    let other = LockHolder {
        function: "<other>".to_string(),
        acquisitions: s.calls.saturating_sub(sum(|h| h.acquisitions)),
        contended: s.contended.saturating_sub(sum(|h| h.contended)),
        wait_ns: s.wait_ns.saturating_sub(sum(|h| h.wait_ns)),
        hold_ns: s.total_ns.saturating_sub(sum(|h| h.hold_ns)),
    };
    if other.acquisitions > 0 {
        rows.push(other);
    }
    rows
}

fn total_hold(modes: &[&LockMode]) -> u64 {
    modes
        .iter()
        .map(|m| m.hold_ns.as_ref().map_or(0, |d| d.total))
        .sum()
}

/// The identity of a site as the entries show it.
fn identity(site: &'static LockSite) -> (String, Option<String>, String, u32, String, String) {
    (
        site.name(),
        site.label().map(str::to_string),
        site.file().to_string(),
        site.line(),
        site.backend().unwrap_or("unknown").to_string(),
        site.type_name().unwrap_or("").to_string(),
    )
}

/// Every `mutex!` site with an acquisition or a failed attempt, by total hold.
pub(super) fn build_mutexes(ctx: &Ctx<'_>, r: &mut Report) -> bool {
    let stats = Stats::new(ctx);
    let entries: Vec<MutexEntry> = hotpath_lock::sites()
        .into_iter()
        .filter(|s| s.kind() == LockKind::Mutex)
        .filter_map(|site| {
            let lock = stats.mode(ctx, site, Mode::Write)?;
            let (name, label, file, line, backend, type_name) = identity(site);
            Some(MutexEntry {
                name,
                label,
                file,
                line,
                backend,
                type_name,
                instances: site.instances(),
                lock,
            })
        })
        .collect();
    place(
        entries,
        &|a, b| total_hold(&[&b.lock]).cmp(&total_hold(&[&a.lock])),
        hotpath_core::op::Sampler::Mutexes.rate(),
        &mut r.mutexes_time_sampling_rate,
        &mut r.mutexes,
    )
}

/// Every `rw_lock!` site with an acquisition or a failed attempt, by total hold.
pub(super) fn build_rw_locks(ctx: &Ctx<'_>, r: &mut Report) -> bool {
    let stats = Stats::new(ctx);
    let entries: Vec<RwLockEntry> = hotpath_lock::sites()
        .into_iter()
        .filter(|s| s.kind() == LockKind::RwLock)
        .filter_map(|site| {
            let read = stats.mode(ctx, site, Mode::Read);
            let write = stats.mode(ctx, site, Mode::Write);
            let upgradable = stats.mode(ctx, site, Mode::Upgradable);
            if read.is_none() && write.is_none() && upgradable.is_none() {
                return None;
            }
            let (name, label, file, line, backend, type_name) = identity(site);
            Some(RwLockEntry {
                name,
                label,
                file,
                line,
                backend,
                type_name,
                instances: site.instances(),
                read: read.unwrap_or_default(),
                write: write.unwrap_or_default(),
                upgradable,
            })
        })
        .collect();
    let hold = |e: &RwLockEntry| {
        let modes: Vec<&LockMode> = e.modes().into_iter().map(|(_, m)| m).collect();
        total_hold(&modes)
    };
    place(
        entries,
        &|a, b| hold(b).cmp(&hold(a)),
        hotpath_core::op::Sampler::RwLocks.rate(),
        &mut r.rw_locks_time_sampling_rate,
        &mut r.rw_locks,
    )
}
