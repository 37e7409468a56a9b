//! `/metrics` families of the `channels`, `streams` and `futures` sections.

use prometheus::proto::MetricType;

use super::{unique, Family};
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
    let names = unique(
        &channels
            .iter()
            .map(|(e, _)| Twin {
                name: e.display_name(),
                type_name: &e.type_name,
                file: &e.file,
                line: e.line,
            })
            .collect::<Vec<_>>(),
    );
    for ((e, _), name) in channels.iter().zip(&names).take(limit) {
        let name = name.as_str();
        messages.counter(&[("channel", name), ("direction", "sent")], e.sent as f64);
        messages.counter(
            &[("channel", name), ("direction", "received")],
            e.received as f64,
        );
        depth.gauge(&[("channel", name)], e.max_depth as f64);
        blocked.counter(&[("channel", name)], e.send_blocked.total_ns as f64 / 1e9);
        if let Some(d) = &e.latency_ns {
            if let Some(h) = &d.hist {
                latency.histogram(&[("channel", name)], h, d.min, d.max, bounds);
            }
        }
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
    let names = unique(
        &streams
            .iter()
            .map(|(e, _)| Twin {
                name: e.display_name(),
                type_name: &e.type_name,
                file: &e.file,
                line: e.line,
            })
            .collect::<Vec<_>>(),
    );
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
    let names = unique(
        &futures
            .iter()
            .map(|(e, _)| Twin {
                name: e.display_name(),
                type_name: "",
                file: &e.file,
                line: e.line,
            })
            .collect::<Vec<_>>(),
    );
    for ((e, _), name) in futures.iter().zip(&names).take(limit) {
        let name = name.as_str();
        for (outcome, n) in [
            ("completed", e.completed),
            ("cancelled", e.cancelled),
            ("never_polled", e.never_polled),
        ] {
            calls.counter(&[("future", name), ("outcome", outcome)], n as f64);
        }
        if let Some(d) = &e.lifetime_ns {
            if let Some(h) = &d.hist {
                lifetime.histogram(&[("future", name)], h, d.min, d.max, bounds);
            }
        }
    }
    for f in [calls, lifetime] {
        f.finish(out);
    }
}

#[cfg(test)]
mod tests {
    use hotpath_report::{
        ChannelEntry, DistNs, FutureEntry, Histogram, Percentiles, Report, SendBlocked, StreamEntry,
    };

    fn dist(v: u64, n: u64) -> DistNs {
        DistNs {
            count: n,
            total: v * n,
            mean: v,
            min: v,
            max: v,
            percentiles: Percentiles::default(),
            hist: Some(Histogram {
                sum: v * n,
                buckets: vec![(v, n)],
            }),
        }
    }

    fn channel(name: &str, sent: u64) -> ChannelEntry {
        ChannelEntry {
            name: name.into(),
            label: Some(name.into()),
            file: "src/main.rs".into(),
            line: sent as u32,
            type_name: "u64".into(),
            instances: 1,
            backend: "std".into(),
            kind: "bounded".into(),
            capacity: Some(8),
            sent,
            received: sent - 1,
            send_errors: 0,
            unread: 1,
            max_depth: 8,
            lagged: 0,
            send_blocked: SendBlocked {
                count: 2,
                total_ns: 3_000_000_000,
                max_ns: 2_000_000_000,
            },
            latency_ns: Some(dist(2_000, sent)),
        }
    }

    #[test]
    fn channel_stream_and_future_families_bounded_by_the_limit() {
        let r = Report {
            channels: Some(vec![
                channel("jobs", 30),
                channel("results", 20),
                channel("log", 10),
            ]),
            streams: Some(vec![StreamEntry {
                name: "rows".into(),
                label: Some("rows".into()),
                file: "src/db.rs".into(),
                line: 4,
                type_name: "Row".into(),
                instances: 2,
                items: 100,
                polls: 102,
                pending: 0,
                completed: 2,
                dropped: 0,
                first_item_ns: None,
                busy_ns: 1_000,
            }]),
            futures: Some(vec![FutureEntry {
                name: "app::fetch".into(),
                label: Some("fetch".into()),
                file: "src/net.rs".into(),
                line: 9,
                calls: 6,
                polls: 12,
                completed: 4,
                cancelled: 1,
                never_polled: 1,
                lifetime_ns: Some(dist(5_000_000, 5)),
                busy_ns: Some(dist(1_000, 5)),
            }]),
            ..Report::default()
        };
        super::super::protobuf::roundtrip::same_as_text(&r, 2);
        let text = super::super::encode(&r, 2);
        for line in [
            "hotpath_channel_messages_total{channel=\"jobs\",direction=\"sent\"} 30",
            "hotpath_channel_messages_total{channel=\"jobs\",direction=\"received\"} 29",
            "hotpath_channel_messages_total{channel=\"results\",direction=\"sent\"} 20",
            "hotpath_channel_max_depth{channel=\"jobs\"} 8",
            "hotpath_channel_send_blocked_seconds_total{channel=\"jobs\"} 3",
            "hotpath_channel_latency_seconds_count{channel=\"jobs\"} 30",
            "hotpath_stream_items_total{stream=\"rows\"} 100",
            "hotpath_stream_polls_total{stream=\"rows\"} 102",
            "hotpath_future_calls_total{future=\"fetch\",outcome=\"completed\"} 4",
            "hotpath_future_calls_total{future=\"fetch\",outcome=\"cancelled\"} 1",
            "hotpath_future_calls_total{future=\"fetch\",outcome=\"never_polled\"} 1",
            "hotpath_future_lifetime_seconds_count{future=\"fetch\"} 5",
        ] {
            assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
        }
        // The limit of 2 keeps the two channels with the most messages.
        assert!(!text.contains("channel=\"log\""), "{text}");
    }
}
