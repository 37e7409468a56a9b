//! `channels`, `streams`, `futures`: one row per `channel!` / `stream!` entry (call site
//! and message type, or one instance with `iter = true`) and per futures-section site.

use std::collections::HashMap;
use std::sync::atomic::Ordering::Relaxed;

use hotpath_core::{CallSite, Distribution, SiteKind, SiteStats};
use hotpath_flow::What;

use super::ctx::{place, Ctx};
use crate::report::{
    ChannelEntry, DistNs, FutureEntry, Histogram, Report, SendBlocked, StreamEntry,
};

/// A distribution of durations whose values add up to `total` ns; `None` when empty.
/// The distribution `d`, whose values add up to `sum`; `total` is `sum` but for the
/// futures of a site whose calls nest (recursion), where it counts the outermost calls.
fn dist(ctx: &Ctx<'_>, d: &Distribution, total: u64, sum: u64) -> Option<DistNs> {
    let count = d.count();
    if count == 0 {
        return None;
    }
    let (min, max) = d.range();
    Some(DistNs {
        count,
        total,
        mean: sum / count,
        min,
        max,
        percentiles: ctx.percentiles(|p| d.percentile(p)),
        hist: Some(Histogram {
            sum,
            buckets: d.buckets(),
        }),
    })
}

fn by_site<'a>(ctx: &'a Ctx<'_>, kind: SiteKind) -> HashMap<*const CallSite, &'a SiteStats> {
    ctx.snap
        .sites
        .iter()
        .filter(|s| s.site.kind() == kind)
        .map(|s| (s.site as *const CallSite, s))
        .collect()
}

/// Every channel entry, by messages sent; absent when no `channel!` made a channel.
pub(super) fn channels(ctx: &Ctx<'_>, r: &mut Report) -> bool {
    let stats = by_site(ctx, SiteKind::Channel);
    let rows: Vec<ChannelEntry> = hotpath_flow::entries()
        .into_iter()
        .filter(|e| e.what == What::Channel)
        .map(|e| {
            let s = stats.get(&(e.site as *const CallSite));
            let f = s.map(|s| &s.flow);
            let capacity = e.capacity.load(Relaxed);
            ChannelEntry {
                name: e.name.to_string(),
                label: e.label.map(str::to_string),
                file: e.file.to_string(),
                line: e.line,
                type_name: e.type_name.to_string(),
                instances: e.instances.load(Relaxed),
                backend: e.backend.to_string(),
                kind: e.kind.to_string(),
                capacity: (capacity != u64::MAX).then_some(capacity),
                sent: f.map_or(0, |f| f.sent),
                received: s.map_or(0, |s| s.calls),
                send_errors: f.map_or(0, |f| f.send_errors),
                unread: f.map_or(0, |f| f.unread),
                max_depth: f.map_or(0, |f| f.max_depth),
                lagged: f.map_or(0, |f| f.lagged),
                send_blocked: f.map_or_else(SendBlocked::default, |f| SendBlocked {
                    count: f.blocked,
                    total_ns: f.blocked_ns,
                    max_ns: f.blocked_max_ns,
                }),
                latency_ns: s.and_then(|s| dist(ctx, &s.time, s.sum_ns, s.sum_ns)),
            }
        })
        .collect();
    place(
        rows,
        &|a, b| b.sent.cmp(&a.sent).then(b.received.cmp(&a.received)),
        hotpath_core::op::Sampler::Channels.rate(),
        &mut r.channels_time_sampling_rate,
        &mut r.channels,
    )
}

/// Every stream entry, by items; absent when no `stream!` wrapped a stream.
pub(super) fn streams(ctx: &Ctx<'_>, r: &mut Report) -> bool {
    let stats = by_site(ctx, SiteKind::Stream);
    let rows: Vec<StreamEntry> = hotpath_flow::entries()
        .into_iter()
        .filter(|e| e.what == What::Stream)
        .map(|e| {
            let s = stats.get(&(e.site as *const CallSite));
            let f = s.map(|s| &s.flow);
            let polls = s.map_or(0, |s| s.polls);
            // Sampled polls were added with their weight: already an estimate of all.
            let busy_ns = s.map_or(0, |s| s.busy_ns);
            StreamEntry {
                name: e.name.to_string(),
                label: e.label.map(str::to_string),
                file: e.file.to_string(),
                line: e.line,
                type_name: e.type_name.to_string(),
                instances: e.instances.load(Relaxed),
                items: f.map_or(0, |f| f.items),
                polls,
                pending: f.map_or(0, |f| f.pending),
                completed: f.map_or(0, |f| f.completed),
                dropped: f.map_or(0, |f| f.dropped),
                first_item_ns: s.and_then(|s| dist(ctx, &s.time, s.sum_ns, s.sum_ns)),
                busy_ns,
            }
        })
        .collect();
    place(
        rows,
        &|a, b| b.items.cmp(&a.items).then(b.polls.cmp(&a.polls)),
        hotpath_core::op::Sampler::Streams.rate(),
        &mut r.streams_time_sampling_rate,
        &mut r.streams,
    )
}

/// Every futures-section site with a finished call, by calls.
pub(super) fn futures(ctx: &Ctx<'_>, r: &mut Report) -> bool {
    let rows: Vec<FutureEntry> = ctx
        .snap
        .sites
        .iter()
        .filter(|s| s.site.kind().in_futures())
        .map(|s| {
            let never_polled = s.flow.never_polled;
            FutureEntry {
                name: s.site.name().to_string(),
                label: s.site.label().map(str::to_string),
                file: s.site.file().to_string(),
                line: s.site.line(),
                calls: s.calls,
                polls: s.polls,
                completed: s.calls.saturating_sub(s.cancelled + never_polled),
                cancelled: s.cancelled,
                never_polled,
                // A future polled inside a call of its own site (recursion) counts once
                // in the totals, in the outermost call, as a function's wall time does.
                lifetime_ns: dist(ctx, &s.time, s.total_ns, s.sum_ns),
                busy_ns: dist(ctx, &s.flow.busy, s.busy_ns, s.busy_sum_ns),
            }
        })
        .collect();
    place(
        rows,
        &|a, b| b.calls.cmp(&a.calls).then(a.name.cmp(&b.name)),
        hotpath_core::op::Sampler::Futures.rate(),
        &mut r.futures_time_sampling_rate,
        &mut r.futures,
    )
}
