//! The console's I/O tables: `Streams` (the `io!` entries) and `By function`.

use hotpath_report::columns;
use hotpath_report::format::percent;
use hotpath_report::{ProfilerStatus, Report, Section};

use super::{function_id, missing, Source, Table};

pub(super) fn io_streams(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::io_overview();
    let mut t = Table::new("io: operations per stream", &cols, "Bytes");
    let rows = columns::io_rows(r);
    if !r.has(Section::Io) || rows.is_empty() {
        t.empty = Some(missing(
            Section::Io,
            status,
            "no hotpath::io! wrapper has completed an operation so far",
            "HOTPATH_REPORT leaves io out",
        ));
        return t;
    }
    for (i, row) in rows.iter().enumerate() {
        let e = row.0;
        let id = format!("{}\0{}:{}\0{}", e.name, e.file, e.line, e.type_name);
        t.push(&cols, id, Source::Io(i), row);
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

pub(super) fn io_functions(r: &Report, status: Option<&ProfilerStatus>) -> Table {
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
            missing(
                Section::Io,
                status,
                "no hotpath::io! wrapper has completed an operation so far",
                "HOTPATH_REPORT leaves io out",
            )
        });
    }
    t
}
