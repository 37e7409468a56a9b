//! The console's I/O tables: `Streams` (the `io!` entries) and `By function`.

use hotpath_report::columns;
use hotpath_report::format::percent;
use hotpath_report::{ProfilerStatus, Report, Section};

use super::common::{function_id, not_yet, site_id, Source, Table};

pub(crate) fn io_streams(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::io_overview();
    let mut t = Table::new("io: operations per stream", &cols, "Bytes");
    let added = t.fill(
        &cols,
        &columns::io_rows(r),
        r.has(Section::Io),
        |i, (e, _)| {
            (
                site_id(&e.name, &e.file, e.line, &e.type_name),
                Source::Io(i),
            )
        },
        || no_io(status),
    );
    if !added {
        return t;
    }
    t.footer.push(
        "Rate, Avg: reads and writes together, timed ones only; Enter shows each direction".into(),
    );
    if let Some(rate) = r.io_time_sampling_rate.filter(|r| *r < 1.0) {
        t.footer.push(format!(
            "{} of operations timed, every one counted",
            percent(rate, 1.0)
        ));
    }
    t
}

pub(crate) fn io_functions(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::io_functions();
    let mut t = Table::new(
        "io by function: made while it was the innermost measured function",
        &cols,
        "Time in I/O",
    );
    for (i, f) in r.functions.iter().enumerate() {
        let Some(io) = &f.io else { continue };
        t.push(&cols, function_id(f), Source::Function(i), &(f, io));
    }
    if t.rows.is_empty() {
        t.empty = Some(if r.has(Section::Io) {
            "no I/O was made inside a measured function so far".into()
        } else {
            no_io(status)
        });
    }
    t
}

/// Why there is no `io` section.
fn no_io(status: Option<&ProfilerStatus>) -> String {
    not_yet(
        Section::Io,
        status,
        "no hotpath::io! wrapper has completed an operation so far",
    )
}
