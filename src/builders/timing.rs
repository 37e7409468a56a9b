//! `timing`: the function rows, wall time per function. Every other section's
//! per-function object is filled in here, by that section's builder, from the same
//! call site.

use hotpath_core::{CallSite, SiteKind, SiteStats};

use super::ctx::Ctx;
use crate::report::{Function, Histogram, RunningCalls, TimedSums, WallNs};

/// One row per measured function or block with a call, sorted by total wall time.
pub(super) fn functions(ctx: &Ctx<'_>) -> Vec<Function> {
    let mut functions: Vec<(Option<*const CallSite>, Function)> = ctx
        .snap
        .sites
        .iter()
        .filter(|s| s.site.kind().is_function())
        .map(|s| (Some(s.site as *const CallSite), function(ctx, s)))
        .collect();
    for r in ctx
        .snap
        .running
        .iter()
        .filter(|r| r.site.kind().is_function())
    {
        let running = RunningCalls {
            calls: r.calls,
            total_ns: r.total_ns,
            self_ns: r.self_ns,
        };
        let site = r.site as *const CallSite;
        match functions.iter_mut().find(|(s, _)| *s == Some(site)) {
            Some((_, f)) => f.running = Some(running),
            // Not one call has returned yet (typically `main`): a row of its own.
            None => functions.push((
                Some(site),
                Function {
                    name: r.site.name().to_string(),
                    label: r.site.label().map(str::to_string),
                    file: r.site.file().to_string(),
                    line: r.site.line(),
                    is_async: r.site.kind().is_async(),
                    span: r.site.kind() == SiteKind::Span,
                    running: Some(running),
                    ..Function::default()
                },
            )),
        }
    }
    let mut functions: Vec<Function> = functions.into_iter().map(|(_, f)| f).collect();
    crate::report::format::sort_vec(&mut functions, &|a, b| {
        b.total_with_running()
            .cmp(&a.total_with_running())
            .then(b.calls.cmp(&a.calls))
            .then(a.name.cmp(&b.name))
    });
    functions
}

fn function(ctx: &Ctx<'_>, s: &SiteStats) -> Function {
    let is_async = matches!(
        s.site.kind(),
        SiteKind::AsyncFunction | SiteKind::AsyncFunctionFuture | SiteKind::Span
    );
    let sampled = s.timed < s.calls;
    let wall_ns = (s.timed > 0).then(|| WallNs {
        total: Ctx::weighted(s, s.total_ns),
        self_: Ctx::weighted(s, s.self_ns).min(Ctx::weighted(s, s.total_ns)),
        mean: s.sum_ns / s.timed_weight.max(1),
        min: s.min_ns,
        max: s.max_ns,
        percentiles: ctx.percentiles(|p| s.percentile_ns(p)),
        hist: Some(Histogram {
            sum: s.sum_ns,
            buckets: s.time.buckets(),
        }),
    });
    let wall_total = wall_ns.as_ref().map_or(0, |w| w.total);
    let mut f = Function {
        name: s.site.name().to_string(),
        short_name: None,
        label: s.site.label().map(str::to_string),
        file: s.site.file().to_string(),
        line: s.site.line(),
        calls: s.calls,
        timed_calls: s.timed,
        is_async,
        span: s.site.kind() == SiteKind::Span,
        sampled,
        effective_rate: ctx
            .inputs
            .budget
            .map(|_| s.timed as f64 / s.calls.max(1) as f64),
        polls: is_async.then_some(s.polls),
        busy_ns: is_async.then_some(s.busy_ns),
        cancelled: is_async.then_some(s.cancelled),
        alloc: super::alloc::function(ctx, s),
        cpu: super::cpu::function(ctx, s, wall_total),
        icount: super::icount::function(ctx, s),
        io: super::io::function(s),
        waits: None,
        timed_sums: None,
        running: None,
        wall_ns,
    };
    f.waits = super::waits::function(ctx, s, &f);
    if sampled && s.timed > 0 {
        let [alloc_count, alloc_bytes, freed_bytes] = super::alloc::timed_sums(s);
        f.timed_sums = Some(TimedSums {
            wall_total_ns: s.total_ns,
            wall_self_ns: s.self_ns,
            alloc_count,
            alloc_bytes,
            freed_bytes,
            cpu_ns: super::cpu::timed_cpu_ns(ctx, s),
        });
    }
    f
}
