//! The exit report's data-flow sections: `channels`, `streams`, `futures`.

use super::common::{listed, wrapped};
use crate::columns;
use crate::format::count;
use crate::model::Report;

pub(crate) fn channels(r: &Report, limit: usize, out: &mut String) {
    let rows = columns::channel_rows(r);
    listed(
        out,
        limit,
        "channels: messages per channel, by messages sent",
        "",
        columns::channels(r),
        &rows,
    );
    wrapped(
        "Latency: from the send call to the receive (includes waiting for room); Blocked: time sends waited for room",
        out,
    );
    flow_sampling(r.channels_time_sampling_rate, "messages", "Latency", out);
    let errors: u64 = rows.iter().map(|(e, _)| e.send_errors).sum();
    let lagged: u64 = rows.iter().map(|(e, _)| e.lagged).sum();
    if errors + lagged > 0 {
        wrapped(
            &format!(
                "also: {} failed sends (channel closed), {} messages missed by lagging or coalescing receivers; per channel in the JSON report",
                count(errors),
                count(lagged)
            ),
            out,
        );
    }
}

pub(crate) fn streams(r: &Report, limit: usize, out: &mut String) {
    let rows = columns::stream_rows(r);
    listed(
        out,
        limit,
        "streams: items per stream, by items",
        "",
        columns::streams(r),
        &rows,
    );
    wrapped(
        "Busy: time inside the polls; First item: from an instance's first poll to its first item",
        out,
    );
    flow_sampling(r.streams_time_sampling_rate, "polls", "Busy", out);
}

pub(crate) fn futures(r: &Report, limit: usize, out: &mut String) {
    let rows = columns::future_rows(r);
    listed(
        out,
        limit,
        "futures: calls per future, by calls",
        "",
        columns::futures(r),
        &rows,
    );
    wrapped(
        "Lifetime: first poll to Ready or drop; Busy: time inside the polls of one call",
        out,
    );
    flow_sampling(
        r.futures_time_sampling_rate,
        "calls",
        "Lifetime and Busy",
        out,
    );
}

/// The line that says how a data-flow section's times were sampled (nothing when every
/// event was timed).
fn flow_sampling(rate: Option<f64>, what: &str, times: &str, out: &mut String) {
    match rate {
        Some(r) if r <= 0.0 => wrapped(&format!("count only: no {what} timed"), out),
        Some(r) if r < 1.0 => wrapped(
            &format!(
                "{times}: each site's first {} {what} timed, then 1 in {} (each standing for {}); counts are exact",
                crate::SAMPLING_WARM_UP,
                (1.0 / r).round(),
                (1.0 / r).round()
            ),
            out,
        ),
        _ => {}
    }
}
