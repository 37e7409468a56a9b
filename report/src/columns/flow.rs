//! Columns of the data-flow tables: `channels`, `streams`, `futures`.

use super::common::{dist_columns, named, Cell, Column, Columns, Show};
use crate::format::{duration, per_call, Twin};
use crate::model::{ChannelEntry, FutureEntry, Report, StreamEntry};

/// A channel entry with the name that tells it apart from entries of the same name.
pub type ChannelRow<'a> = (&'a ChannelEntry, String);

/// The rows of the channels table: every entry of `r` with its name (see
/// [`twin_names`](crate::format::twin_names)).
pub fn channel_rows(r: &Report) -> Vec<ChannelRow<'_>> {
    named(r.channels.as_deref().unwrap_or(&[]), |e| Twin {
        name: e.display_name(),
        type_name: &e.type_name,
        file: &e.file,
        line: e.line,
    })
}

/// `bounded[10]`, `unbounded`, `oneshot`, `broadcast[16]`, `watch`.
pub fn channel_kind(e: &ChannelEntry) -> String {
    match (e.kind.as_str(), e.capacity) {
        ("bounded" | "broadcast", Some(c)) => format!("{}[{c}]", e.kind),
        (k, _) => k.to_string(),
    }
}

/// The first column of a data-flow table: an entry's name as its row tells it apart (with
/// the place shortened), sorted by the entry's own name.
fn entry_column<'a, E: 'a>(title: &str, display: fn(&E) -> &str) -> Column<'a, (&'a E, String)> {
    Column::left(title.to_string(), move |(e, name): &(&E, String)| {
        Cell::text(crate::format::short_place(name), display(e))
    })
}

/// `channels`: messages per channel entry.
pub fn channels<'a>(r: &Report) -> Columns<'a, ChannelRow<'a>> {
    let mut c: Columns<'a, ChannelRow<'a>> = vec![
        entry_column("Channel", ChannelEntry::display_name),
        Column::right("Backend", |(e, _): &ChannelRow<'_>| {
            Cell::text(e.backend.clone(), e.backend.clone())
        })
        .text(),
        Column::right("Kind", |(e, _): &ChannelRow<'_>| {
            Cell::text(channel_kind(e), channel_kind(e))
        })
        .text(),
        Column::right("Inst", |(e, _): &ChannelRow<'_>| Cell::count(e.instances)),
        Column::right("Sent", |(e, _): &ChannelRow<'_>| Cell::count(e.sent)),
        Column::right("Recv", |(e, _): &ChannelRow<'_>| Cell::count(e.received)),
        Column::right("Unread", |(e, _): &ChannelRow<'_>| Cell::count(e.unread)),
        Column::right("Max depth", |(e, _): &ChannelRow<'_>| {
            Cell::count(e.max_depth)
        }),
        Column::right("Blocked sends", |(e, _): &ChannelRow<'_>| {
            Cell::count(e.send_blocked.count)
        }),
        Column::right("Blocked", |(e, _): &ChannelRow<'_>| {
            let b = &e.send_blocked;
            Cell::opt((b.count > 0).then_some(b.total_ns), duration)
        }),
    ];
    c.extend(dist_columns(
        r,
        "Latency avg",
        "",
        |(e, _): &ChannelRow<'_>| e.latency_ns.as_ref(),
        duration,
    ));
    c.push(
        Column::right("Errors", |(e, _): &ChannelRow<'_>| {
            Cell::count(e.send_errors)
        })
        .only(Show::Console),
    );
    c
}

/// A stream entry with the name that tells it apart.
pub type StreamRow<'a> = (&'a StreamEntry, String);

/// The rows of the streams table.
pub fn stream_rows(r: &Report) -> Vec<StreamRow<'_>> {
    named(r.streams.as_deref().unwrap_or(&[]), |e| Twin {
        name: e.display_name(),
        type_name: &e.type_name,
        file: &e.file,
        line: e.line,
    })
}

/// `streams`: items and polls per stream entry.
pub fn streams<'a>(r: &Report) -> Columns<'a, StreamRow<'a>> {
    let mut c: Columns<'a, StreamRow<'a>> = vec![
        entry_column("Stream", StreamEntry::display_name),
        Column::right("Inst", |(e, _): &StreamRow<'_>| Cell::count(e.instances)),
        Column::right("Done", |(e, _): &StreamRow<'_>| Cell::count(e.completed)),
        Column::right("Dropped", |(e, _): &StreamRow<'_>| Cell::count(e.dropped)),
        Column::right("Items", |(e, _): &StreamRow<'_>| Cell::count(e.items)),
        Column::right("Polls", |(e, _): &StreamRow<'_>| Cell::count(e.polls)),
        Column::right("Pending", |(e, _): &StreamRow<'_>| Cell::count(e.pending)),
        Column::right("Busy", |(e, _): &StreamRow<'_>| Cell::duration(e.busy_ns)),
    ];
    c.extend(dist_columns(
        r,
        "First item avg",
        "",
        |(e, _): &StreamRow<'_>| e.first_item_ns.as_ref(),
        duration,
    ));
    c
}

/// A futures-section row with the name that tells it apart.
pub type FutureRow<'a> = (&'a FutureEntry, String);

/// The rows of the futures table.
pub fn future_rows(r: &Report) -> Vec<FutureRow<'_>> {
    named(r.futures.as_deref().unwrap_or(&[]), |e| Twin {
        name: e.display_name(),
        type_name: "",
        file: &e.file,
        line: e.line,
    })
}

/// `futures`: calls, outcomes, lifetime and busy time per future.
pub fn futures<'a>(r: &Report) -> Columns<'a, FutureRow<'a>> {
    let mut c: Columns<'a, FutureRow<'a>> = vec![
        entry_column("Future", FutureEntry::display_name),
        Column::right("Calls", |(e, _): &FutureRow<'_>| Cell::count(e.calls)),
        Column::right("Done", |(e, _): &FutureRow<'_>| Cell::count(e.completed)),
        Column::right("Cancelled", |(e, _): &FutureRow<'_>| {
            Cell::count(e.cancelled)
        }),
        Column::right("Never polled", |(e, _): &FutureRow<'_>| {
            Cell::count(e.never_polled)
        }),
        Column::right("Polls/call", |(e, _): &FutureRow<'_>| {
            let timed = e.lifetime_ns.as_ref().map_or(0, |d| d.count);
            if timed == 0 {
                Cell::missing()
            } else {
                let v = e.polls as f64 / timed as f64;
                Cell::num(per_call(v), v)
            }
        }),
    ];
    c.extend(dist_columns(
        r,
        "Lifetime avg",
        "",
        |(e, _): &FutureRow<'_>| e.lifetime_ns.as_ref(),
        duration,
    ));
    c.push(Column::right("Busy avg", |(e, _): &FutureRow<'_>| {
        Cell::opt(e.busy_ns.as_ref().map(|d| d.mean), duration)
    }));
    c
}
