//! `/metrics` families of the `channels`, `streams` and `futures` sections.

use prometheus::proto::MetricType;

use super::family::{unique, Family};
use hotpath_report::format::Twin;
use hotpath_report::Report;

/// Channels, streams and futures: at most `limit` entries of each (by messages sent,
/// items, calls), labelled by their told-apart names.
pub(super) fn flow(r: &Report, limit: usize, bounds: &[f64], out: &mut Vec<Family>) {
    let mut messages = Family::new(
        "hotpath_channel_messages_total",
        "Messages sent and received on each channel! entry.",
        MetricType::COUNTER,
    );
    let mut latency = Family::new(
        "hotpath_channel_latency_seconds",
        "From the send call to the receive, per timed message.",
        MetricType::HISTOGRAM,
    );
    let mut depth = Family::new(
        "hotpath_channel_max_depth",
        "Most messages queued at once in one instance of the channel! entry.",
        MetricType::GAUGE,
    );
    let mut blocked = Family::new(
        "hotpath_channel_send_blocked_seconds_total",
        "Time sends waited for room on a full channel (timed sends).",
        MetricType::COUNTER,
    );
    let channels = hotpath_report::columns::channel_rows(r);
    let names = unique(channels.iter().map(|(e, _)| Twin {
        name: e.display_name(),
        type_name: &e.type_name,
        file: &e.file,
        line: e.line,
    }));
    for ((e, _), name) in channels.iter().zip(&names).take(limit) {
        let name = name.as_str();
        messages.counter(&[("channel", name), ("direction", "sent")], e.sent as f64);
        messages.counter(
            &[("channel", name), ("direction", "received")],
            e.received as f64,
        );
        depth.gauge(&[("channel", name)], e.max_depth as f64);
        blocked.counter(&[("channel", name)], e.send_blocked.total_ns as f64 / 1e9);
        latency.durations(&[("channel", name)], e.latency_ns.as_ref(), bounds);
    }
    for f in [messages, latency, depth, blocked] {
        f.finish(out);
    }

    let mut items = Family::new(
        "hotpath_stream_items_total",
        "Items yielded by each stream! entry.",
        MetricType::COUNTER,
    );
    let mut polls = Family::new(
        "hotpath_stream_polls_total",
        "Polls of each stream! entry.",
        MetricType::COUNTER,
    );
    let streams = hotpath_report::columns::stream_rows(r);
    let names = unique(streams.iter().map(|(e, _)| Twin {
        name: e.display_name(),
        type_name: &e.type_name,
        file: &e.file,
        line: e.line,
    }));
    for ((e, _), name) in streams.iter().zip(&names).take(limit) {
        items.counter(&[("stream", name.as_str())], e.items as f64);
        polls.counter(&[("stream", name.as_str())], e.polls as f64);
    }
    for f in [items, polls] {
        f.finish(out);
    }

    let mut calls = Family::new(
        "hotpath_future_calls_total",
        "Futures of each future!, #[future_fn] or #[measure(future = true)], by outcome.",
        MetricType::COUNTER,
    );
    let mut lifetime = Family::new(
        "hotpath_future_lifetime_seconds",
        "From a timed future's first poll to Ready or its drop.",
        MetricType::HISTOGRAM,
    );
    let futures = hotpath_report::columns::future_rows(r);
    let names = unique(futures.iter().map(|(e, _)| Twin {
        name: e.display_name(),
        type_name: "",
        file: &e.file,
        line: e.line,
    }));
    for ((e, _), name) in futures.iter().zip(&names).take(limit) {
        let name = name.as_str();
        for (outcome, n) in [
            ("completed", e.completed),
            ("cancelled", e.cancelled),
            ("never_polled", e.never_polled),
        ] {
            calls.counter(&[("future", name), ("outcome", outcome)], n as f64);
        }
        lifetime.durations(&[("future", name)], e.lifetime_ns.as_ref(), bounds);
    }
    for f in [calls, lifetime] {
        f.finish(out);
    }
}
