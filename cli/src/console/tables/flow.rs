//! The console's data-flow tables: `Channels`, `Streams`, `Futures`.

use hotpath_report::columns;
use hotpath_report::{ProfilerStatus, Report, Section};

use super::{missing, Source, Table};

pub(super) fn channels(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::channels(r);
    let mut t = Table::new("channels: messages per channel", &cols, "Sent");
    let rows = columns::channel_rows(r);
    if !r.has(Section::Channels) || rows.is_empty() {
        t.empty = Some(missing(
            Section::Channels,
            status,
            "no hotpath::channel! has made a channel so far",
            "HOTPATH_REPORT leaves channels out",
        ));
        return t;
    }
    for (i, row) in rows.iter().enumerate() {
        let e = row.0;
        let id = format!("{}\0{}:{}\0{}", e.name, e.file, e.line, e.type_name);
        t.push(&cols, id, Source::Channel(i), row);
    }
    t.footer.push(
        "Latency: from the send call to the receive; Blocked: time sends waited for room".into(),
    );
    t
}

pub(super) fn streams(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::streams(r);
    let mut t = Table::new("streams: items per stream", &cols, "Items");
    let rows = columns::stream_rows(r);
    if !r.has(Section::Streams) || rows.is_empty() {
        t.empty = Some(missing(
            Section::Streams,
            status,
            "no hotpath::stream! has wrapped a stream so far",
            "HOTPATH_REPORT leaves streams out",
        ));
        return t;
    }
    for (i, row) in rows.iter().enumerate() {
        let e = row.0;
        let id = format!("{}\0{}:{}\0{}", e.name, e.file, e.line, e.type_name);
        t.push(&cols, id, Source::Stream(i), row);
    }
    t.footer
        .push("Busy: time inside the polls; First item: first poll to first item".into());
    t
}

pub(super) fn futures(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::futures(r);
    let mut t = Table::new("futures: calls per future", &cols, "Calls");
    let rows = columns::future_rows(r);
    if !r.has(Section::Futures) || rows.is_empty() {
        t.empty = Some(missing(
            Section::Futures,
            status,
            "no hotpath::future! or #[future_fn] future has finished so far",
            "HOTPATH_REPORT leaves futures out",
        ));
        return t;
    }
    for (i, row) in rows.iter().enumerate() {
        let e = row.0;
        let id = format!("{}\0{}:{}", e.name, e.file, e.line);
        t.push(&cols, id, Source::Future(i), row);
    }
    t.footer.push(
        "Lifetime: first poll to Ready or drop; Busy: time inside the polls of one call".into(),
    );
    t
}
