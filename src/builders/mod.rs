//! Snapshot → report: one builder per section (feature `hotpath`).
//!
//! [`report`] takes a snapshot of the profiler's numbers and turns it into a [`Report`]:
//! the function rows first (each section's per-function object filled in by that
//! section's builder), then each configured section's own part, in report order. A
//! section whose builder finds nothing to show (no `io!` operation yet, CPU measurement
//! off) is left out of `sections`, with a note when the reader should know why.
//!
//! Everything here runs as profiler bookkeeping: its allocations are not counted as the
//! program's.

mod alloc;
mod cpu;
mod ctx;
mod debug;
mod flow;
mod icount;
mod io;
mod locks;
mod service;
mod stacks;
mod threads;
mod timing;
mod tokio;
mod waits;

use hotpath_core::{SiteKind, Snapshot};

use crate::config::Config;
use crate::report::{Function, Report, Section, SCHEMA_VERSION};
use ctx::Ctx;
pub(crate) use ctx::Inputs;

// The report's data-flow and lock tables describe the recording side's warm-up.
const _: () = assert!(crate::report::SAMPLING_WARM_UP == hotpath_core::WARM_UP);

/// The report of the session so far.
pub(crate) fn report(inputs: &Inputs<'_>) -> Report {
    hotpath_core::internal(|| {
        let snap = hotpath_core::snapshot();
        let cfg = inputs.cfg;
        let ctx = Ctx {
            inputs,
            snap: &snap,
            percentiles: &cfg.percentiles,
        };
        let mut notes = inputs.notes.to_vec();
        notes.extend(snapshot_notes(&snap));
        let mut functions = timing::functions(&ctx);
        filter_functions(cfg, &mut functions, &mut notes);
        if !cfg.full_names {
            let full: Vec<&str> = functions.iter().map(|f| f.name.as_str()).collect();
            let short = crate::report::names::short_names(&full);
            for (f, s) in functions.iter_mut().zip(short) {
                f.short_name = Some(s);
            }
        }
        let events = |io: bool| {
            snap.sites
                .iter()
                .filter(|s| {
                    if io {
                        s.site.kind() == SiteKind::Io
                    } else {
                        s.site.kind().is_function()
                    }
                })
                .fold((0u64, 0u64), |(t, c), s| {
                    (t + s.timed, c + s.calls.saturating_sub(s.timed))
                })
        };
        let (timed_calls, counted_calls) = events(false);
        let (timed_io, counted_io) = events(true);
        let o = inputs.overhead;
        // Under a budget, a call it does not time keeps its frame: its own cost.
        let (timed_cost, counted_cost) = match inputs.budget {
            Some(b) => (b.costs.timed_ns, b.costs.untimed_ns),
            None => (o.timed_ns, o.counted_ns),
        };
        let calls_ns = timed_calls as f64 * timed_cost + counted_calls as f64 * counted_cost;
        let overhead_budget = inputs.budget.map(|b| crate::report::OverheadBudget {
            percent: b.percent,
            cpu_ns: crate::budget::process_cpu_ns().saturating_sub(b.cpu0),
            estimated_cost_ns: calls_ns as u64,
            timed_call_ns: (b.costs.timed_ns * 10.0).round() / 10.0,
            untimed_call_ns: (b.costs.untimed_ns * 10.0).round() / 10.0,
        });
        let overhead_ns =
            calls_ns + timed_io as f64 * o.io_timed_ns + counted_io as f64 * o.io_counted_ns;
        let tenth = |ns: f64| (ns * 10.0).round() / 10.0;
        let mut r = Report {
            schema_version: SCHEMA_VERSION,
            caller: cfg.caller.to_string(),
            label: cfg.report_label.clone(),
            elapsed_ns: inputs.elapsed_ns,
            sections: Vec::new(),
            percentiles: cfg.percentiles.clone(),
            overhead_per_call_ns: tenth(o.timed_ns),
            clock_floor_ns: Some(tenth(o.floor_ticks as f64 * snap.ns_per_tick)),
            overhead_ns: overhead_ns as u64,
            io_ops: (timed_io + counted_io > 0).then_some(timed_io + counted_io),
            overhead_per_io_op_ns: (timed_io + counted_io > 0).then(|| tenth(o.io_timed_ns)),
            clock: hotpath_core::clock::source().name().to_string(),
            time_sampling_rate: hotpath_core::sampling_rate(),
            overhead_budget,
            io_time_sampling_rate: None,
            notes: Vec::new(),
            alloc_total: None,
            cpu: None,
            icount: None,
            functions,
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
        for &section in &cfg.sections {
            let present = match section {
                Section::Timing => true,
                Section::Alloc => alloc::build(&ctx, &mut r, &mut notes),
                Section::Cpu => cpu::build(&ctx, &mut r, &mut notes),
                Section::Icount => icount::build(&ctx, &mut r),
                Section::Io => io::build(&ctx, &mut r),
                Section::Channels => flow::channels(&ctx, &mut r),
                Section::Streams => flow::streams(&ctx, &mut r),
                Section::Futures => flow::futures(&ctx, &mut r),
                Section::Threads => threads::build(&ctx, &mut r, &mut notes),
                Section::Stacks => stacks::build(&ctx, &mut r, &mut notes),
                Section::Waits => waits::build(&mut r),
                Section::Mutexes => locks::build_mutexes(&ctx, &mut r),
                Section::RwLocks => locks::build_rw_locks(&ctx, &mut r),
                Section::Debug => debug::build(&mut r, &mut notes),
                Section::Sql => service::build_sql(&ctx, &mut r, &mut notes),
                Section::Http => service::build_http(&ctx, &mut r),
                Section::Server => service::build_server(&ctx, &mut r),
                Section::Tokio => tokio::build(&mut r, &mut notes),
            };
            if present {
                r.sections.push(section);
            }
        }
        r.notes = notes;
        r
    })
}

/// Leaves out the rows `HOTPATH_FOCUS` and `HOTPATH_EXCLUDE_WRAPPER` ask to leave out,
/// with a note saying how many.
fn filter_functions(cfg: &Config, functions: &mut Vec<Function>, notes: &mut Vec<String>) {
    let before = functions.len();
    if let Some(focus) = &cfg.focus {
        functions.retain(|f| focus.keeps(&f.name, f.label.as_deref()));
        notes.push(format!(
            "HOTPATH_FOCUS={}: {} of {before} functions reported",
            focus.spec(),
            functions.len()
        ));
    }
    if cfg.exclude_wrapper {
        let n = functions.len();
        functions.retain(|f| f.name != cfg.caller);
        if functions.len() < n {
            notes.push(format!(
                "HOTPATH_EXCLUDE_WRAPPER: {} is not reported",
                cfg.caller
            ));
        }
    }
}

/// What the snapshot says the reader should know: limits hit, calls lost.
fn snapshot_notes(snap: &Snapshot) -> Vec<String> {
    let mut notes = Vec::new();
    if snap.sites_overflowed {
        let mut note = format!(
            "{} call sites beyond the limit of {}: their calls are counted and timed in \
             the rows named \"(more call sites: ...)\"",
            crate::report::format::count(snap.sites_beyond_limit),
            crate::report::format::count(hotpath_core::MAX_SITES as u64)
        );
        // The overflow rows of wrapped values' sites have no row in their sections.
        for s in &snap.sites {
            if s.calls == 0 || !s.site.is_overflow() {
                continue;
            }
            let what = match s.site.kind() {
                SiteKind::Function
                | SiteKind::AsyncFunction
                | SiteKind::Block
                | SiteKind::AsyncFunctionFuture
                | SiteKind::Span
                | SiteKind::Internal => continue,
                SiteKind::Io => "I/O operations",
                SiteKind::Lock => "lock acquisitions",
                SiteKind::Channel => "channel operations",
                SiteKind::Stream => "stream polls",
                SiteKind::Future => "future calls",
                SiteKind::Sql => "SQL queries",
                SiteKind::HttpClient => "HTTP requests",
                SiteKind::HttpServer => "server requests",
            };
            note.push_str(&format!(
                "; {} {what} of such sites are in no row of their section",
                crate::report::format::count(s.calls)
            ));
        }
        notes.push(note);
    }
    if snap.depth_overflowed {
        notes.push(format!(
            "{} calls ran deeper than {} nested measured levels: they are counted and \
             timed, and their self time is in the function at level {}",
            crate::report::format::count(snap.calls_beyond_depth),
            hotpath_core::MAX_DEPTH,
            hotpath_core::MAX_DEPTH
        ));
    }
    if snap.lost_calls > 0 {
        notes.push(format!(
            "{} calls ran while their thread was exiting and were not recorded",
            snap.lost_calls
        ));
    }
    notes
}
