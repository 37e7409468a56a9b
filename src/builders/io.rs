//! `io`: operations, bytes and latency per `io!` entry, and I/O per function.

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use hotpath_core::{CallSite, SiteKind, SiteStats};

use super::ctx::{place, Ctx};
use crate::report::{FunctionIo, Histogram, IoDirection, IoEntry, Report};

/// The I/O made while the function was the innermost measured one, if any.
pub(super) fn function(s: &SiteStats) -> Option<FunctionIo> {
    (s.fn_io_read + s.fn_io_write + s.fn_io_ns > 0).then_some(FunctionIo {
        read_bytes: s.fn_io_read,
        write_bytes: s.fn_io_write,
        io_ns: s.fn_io_ns,
    })
}

/// Every `io!` entry with at least one operation or error, by bytes; absent when none.
pub(super) fn build(ctx: &Ctx<'_>, r: &mut Report) -> bool {
    let by_site: HashMap<*const CallSite, &SiteStats> = ctx
        .snap
        .sites
        .iter()
        .filter(|s| s.site.kind() == SiteKind::Io)
        .map(|s| (s.site as *const _, s))
        .collect();
    let direction = |site: &'static CallSite| -> IoDirection {
        let Some(s) = by_site.get(&(site as *const _)) else {
            return IoDirection::default();
        };
        let timed = s.timed > 0;
        IoDirection {
            ops: s.calls,
            bytes: s.io_bytes,
            errors: s.io_errors,
            timed_ops: s.timed,
            total_ns: s.total_ns,
            mean_ns: timed.then(|| s.sum_ns / s.timed),
            rate_bytes_per_sec: (timed && s.total_ns > 0)
                .then(|| s.io_timed_bytes as f64 * 1e9 / s.total_ns as f64),
            percentiles: ctx.percentiles(|p| s.percentile_ns(p)),
            hist: timed.then(|| Histogram {
                sum: s.sum_ns,
                buckets: s.time.buckets(),
            }),
        }
    };
    let entries: Vec<IoEntry> = hotpath_io::entries()
        .into_iter()
        .map(|e| IoEntry {
            name: e.name.to_string(),
            file: e.file.to_string(),
            line: e.line,
            type_name: e.type_name.to_string(),
            instances: e.instances.load(Ordering::Relaxed),
            read: direction(e.read),
            write: direction(e.write),
            flush: direction(e.flush),
            shutdown: direction(e.shutdown),
            seek: direction(e.seek),
        })
        .filter(|e| e.directions().iter().any(|(_, d)| d.ops + d.errors > 0))
        .collect();
    place(
        entries,
        &|a, b| (b.read.bytes + b.write.bytes).cmp(&(a.read.bytes + a.write.bytes)),
        hotpath_io::sampling_rate(),
        &mut r.io_time_sampling_rate,
        &mut r.io,
    )
}
