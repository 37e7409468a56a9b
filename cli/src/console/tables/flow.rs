//! The console's data-flow tables: `Channels`, `Streams`, `Futures`.

use hotpath_report::columns;
use hotpath_report::{ProfilerStatus, Report, Section};

use super::common::{not_yet, site_id, Source, Table};

pub(crate) fn channels(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::channels(r);
    let mut t = Table::new("channels: messages per channel", &cols, "Sent");
    let added = t.fill(
        &cols,
        &columns::channel_rows(r),
        r.has(Section::Channels),
        |i, (e, _)| {
            let id = site_id(&e.name, &e.file, e.line, &e.type_name);
            (id, Source::Channel(i))
        },
        || {
            not_yet(
                Section::Channels,
                status,
                "no hotpath::channel! has made a channel so far",
            )
        },
    );
    if added {
        t.footer.push(
            "Latency: from the send call to the receive; Blocked: time sends waited for room"
                .into(),
        );
    }
    t
}

pub(crate) fn streams(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::streams(r);
    let mut t = Table::new("streams: items per stream", &cols, "Items");
    let added = t.fill(
        &cols,
        &columns::stream_rows(r),
        r.has(Section::Streams),
        |i, (e, _)| {
            let id = site_id(&e.name, &e.file, e.line, &e.type_name);
            (id, Source::Stream(i))
        },
        || {
            not_yet(
                Section::Streams,
                status,
                "no hotpath::stream! has wrapped a stream so far",
            )
        },
    );
    if added {
        t.footer
            .push("Busy: time inside the polls; First item: first poll to first item".into());
    }
    t
}

pub(crate) fn futures(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::futures(r);
    let mut t = Table::new("futures: calls per future", &cols, "Calls");
    let added = t.fill(
        &cols,
        &columns::future_rows(r),
        r.has(Section::Futures),
        |i, (e, _)| {
            (
                format!("{}\0{}:{}", e.name, e.file, e.line),
                Source::Future(i),
            )
        },
        || {
            not_yet(
                Section::Futures,
                status,
                "no hotpath::future! or #[future_fn] future has finished so far",
            )
        },
    );
    if added {
        t.footer.push(
            "Lifetime: first poll to Ready or drop; Busy: time inside the polls of one call".into(),
        );
    }
    t
}
