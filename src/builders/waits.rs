//! `waits`: where each function's own time went (CPU, I/O, locks, channels, SQL, HTTP,
//! other), from the waits the wrappers charged to it as the innermost measured function.

use hotpath_core::{SiteKind, SiteStats};

use super::ctx::Ctx;
use crate::report::{Function, FunctionWaits, Report, Section};

/// A function's waits, when the section is configured and a call was timed; `f` is its
/// row with the CPU object already filled in.
pub(super) fn function(ctx: &Ctx<'_>, s: &SiteStats, f: &Function) -> Option<FunctionWaits> {
    if s.timed == 0 || !ctx.inputs.cfg.sections.contains(&Section::Waits) {
        return None;
    }
    // Own time: wall time less measured children. Async: first poll to Ready less the
    // children's time inside the polls (busy − self) and less the time it was suspended
    // in measured child futures it awaited to completion (their waits are theirs, and
    // shown in their rows); what is left of the suspended time is its own. Never less
    // than its own poll time, when overlapping children (`join!`) add up to more.
    let own = if matches!(s.site.kind(), SiteKind::AsyncFunction | SiteKind::Span) {
        s.total_ns
            .saturating_sub(s.busy_ns.saturating_sub(s.self_ns))
            .saturating_sub(s.awaited_ns)
            .max(s.self_ns.min(s.total_ns))
    } else {
        s.self_ns
    };
    let scaled = |v: u64| Ctx::scaled(s, v);
    let mut w = FunctionWaits {
        own_ns: scaled(own),
        cpu_ns: f.cpu.as_ref().map(|c| c.self_cpu_ns),
        io_ns: scaled(s.fn_io_ns),
        lock_ns: scaled(s.wait_lock_ns),
        channel_send_ns: scaled(s.wait_send_ns),
        channel_recv_ns: scaled(s.wait_recv_ns),
        sql_ns: scaled(s.wait_sql_ns),
        http_ns: scaled(s.wait_http_ns),
        other_ns: 0,
    };
    // The parts add up to the own time: CPU time spent inside a wait (a syscall's
    // copying inside an `io!` write, a spinning lock) is that wait's, and sampled CPU
    // time can exceed a short function's wall (10 ms per sample).
    let outside_waits = w.own_ns.saturating_sub(w.waited_ns());
    w.cpu_ns = w.cpu_ns.map(|c| c.min(outside_waits));
    w.other_ns = outside_waits.saturating_sub(w.cpu_ns.unwrap_or(0));
    Some(w)
}

/// Present when some function waited on something a wrapper timed; otherwise the
/// functions' `waits` objects are left out.
pub(super) fn build(r: &mut Report) -> bool {
    let any = r
        .functions
        .iter()
        .any(|f| f.waits.as_ref().is_some_and(|w| w.waited_ns() > 0));
    if !any {
        for f in &mut r.functions {
            f.waits = None;
        }
    }
    any
}
