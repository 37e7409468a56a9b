//! Columns of the `io` tables: reads, writes, the console's overview and per-direction
//! pane, and `io by function`.

use super::common::{
    functions_by, name_column, named, percentile_columns, wall, Cell, Column, Columns, Key, Show,
};
use crate::format::{duration, percent, rate, Twin};
use crate::model::{Function, FunctionIo, IoDirection, IoEntry, Report};

/// An I/O entry with the name that tells it apart from entries of the same name.
pub type IoRow<'a> = (&'a IoEntry, String);

/// The rows of the I/O tables: every entry of `r` with its name (see
/// [`twin_names`](crate::format::twin_names)).
pub fn io_rows(r: &Report) -> Vec<IoRow<'_>> {
    named(r.io.as_deref().unwrap_or(&[]), |e| Twin {
        name: &e.name,
        type_name: &e.type_name,
        file: &e.file,
        line: e.line,
    })
}

/// Statistics of one direction of an entry: operations, bytes, rate, mean, percentiles.
fn direction_columns<'a, R: 'a>(
    r: &Report,
    ops: &str,
    d: impl Fn(&R) -> &IoDirection + Copy + 'a,
) -> Columns<'a, R> {
    let mut c: Columns<'a, R> = vec![
        Column::right(ops.to_string(), move |x| Cell::count(d(x).ops)),
        Column::right("Bytes", move |x| Cell::bytes(d(x).bytes)),
        Column::right("Rate", move |x| {
            let v = d(x).rate_bytes_per_sec;
            v.map_or_else(Cell::missing, |v| Cell::num(rate(v), v))
        }),
        Column::right("Avg", move |x| Cell::opt(d(x).mean_ns, duration)),
    ];
    c.extend(percentile_columns(
        r,
        "",
        move |x| Some(&d(x).percentiles),
        duration,
    ));
    c
}

fn io_name_columns<'a>() -> Columns<'a, IoRow<'a>> {
    vec![
        Column::left("Io", |(e, name): &IoRow<'_>| {
            Cell::text(name.clone(), e.name.clone())
        }),
        Column::right("Inst", |(e, _): &IoRow<'_>| Cell::count(e.instances)),
    ]
}

/// Whether an entry has reads to show.
pub fn io_reads_any(e: &IoEntry) -> bool {
    e.read.ops + e.read.errors > 0
}

/// Whether an entry has writes, flushes or shutdown errors to show.
pub fn io_writes_any(e: &IoEntry) -> bool {
    e.write.ops + e.flush.ops + e.write.errors + e.flush.errors + e.shutdown.errors > 0
}

/// The exit report's table of reads per I/O entry.
pub fn io_reads<'a>(r: &Report) -> Columns<'a, IoRow<'a>> {
    let mut c = io_name_columns();
    c.extend(direction_columns(r, "Reads", |(e, _): &IoRow<'_>| &e.read));
    c.push(Column::right("Errors", |(e, _): &IoRow<'_>| {
        Cell::count(e.read.errors)
    }));
    c
}

/// The exit report's table of writes per I/O entry (flushes and their errors with them).
pub fn io_writes<'a>(r: &Report) -> Columns<'a, IoRow<'a>> {
    let mut c = io_name_columns();
    c.extend(direction_columns(r, "Writes", |(e, _): &IoRow<'_>| {
        &e.write
    }));
    c.push(Column::right("Flushes", |(e, _): &IoRow<'_>| {
        Cell::count(e.flush.ops)
    }));
    c.push(Column::right("Errors", |(e, _): &IoRow<'_>| {
        Cell::count(e.write.errors + e.flush.errors + e.shutdown.errors)
    }));
    c
}

/// One direction of one entry: a row of the per-direction table (the console's inspect
/// pane of an entry).
pub type DirectionRow<'a> = (&'static str, &'a IoDirection);

/// Every statistic of one direction, a row per direction.
pub fn io_directions<'a>(r: &Report) -> Columns<'a, DirectionRow<'a>> {
    let mut c: Columns<'a, DirectionRow<'a>> = vec![
        Column::left("", |(name, _): &DirectionRow<'_>| Cell::text(*name, *name)),
        Column::right("Ops", |(_, d): &DirectionRow<'_>| Cell::count(d.ops)),
        Column::right("Bytes", |(_, d): &DirectionRow<'_>| Cell::bytes(d.bytes)),
        Column::right("Errors", |(_, d): &DirectionRow<'_>| Cell::count(d.errors)),
        Column::right("Timed", |(_, d): &DirectionRow<'_>| {
            Cell::count(d.timed_ops)
        }),
        Column::right("Time", |(_, d): &DirectionRow<'_>| {
            Cell::duration(d.total_ns)
        }),
        Column::right("Mean", |(_, d): &DirectionRow<'_>| {
            Cell::opt(d.mean_ns, duration)
        }),
    ];
    c.extend(percentile_columns(
        r,
        "",
        |(_, d): &DirectionRow<'_>| Some(&d.percentiles),
        duration,
    ));
    c.push(Column::right("Rate", |(_, d): &DirectionRow<'_>| {
        d.rate_bytes_per_sec
            .map_or_else(Cell::missing, |v| Cell::num(rate(v), v))
    }));
    c
}

/// Bytes moved by the timed operations of a direction (rate × time inside them).
fn timed_bytes(d: &IoDirection) -> f64 {
    d.rate_bytes_per_sec.unwrap_or(0.0) * d.total_ns as f64 / 1e9
}

/// Failed operations of an entry, every direction.
pub fn io_errors(e: &IoEntry) -> u64 {
    e.directions().iter().map(|(_, d)| d.errors).sum()
}

/// The console's overview of the I/O entries: reads and writes side by side.
pub fn io_overview<'a>() -> Columns<'a, IoRow<'a>> {
    let mut c = io_name_columns();
    c.extend([
        Column::right("Reads", |(e, _): &IoRow<'_>| Cell::count(e.read.ops)),
        Column::right("Read", |(e, _): &IoRow<'_>| Cell::bytes(e.read.bytes)),
        Column::right("Writes", |(e, _): &IoRow<'_>| Cell::count(e.write.ops)),
        Column::right("Written", |(e, _): &IoRow<'_>| Cell::bytes(e.write.bytes)),
        Column::right("Bytes", |(e, _): &IoRow<'_>| {
            Cell::bytes(e.read.bytes + e.write.bytes)
        }),
        Column::right("Rate", |(e, _): &IoRow<'_>| {
            let (rd, wr) = (&e.read, &e.write);
            let timed_ns = rd.total_ns + wr.total_ns;
            let speed =
                (timed_ns > 0).then(|| (timed_bytes(rd) + timed_bytes(wr)) * 1e9 / timed_ns as f64);
            speed.map_or_else(Cell::missing, |v| Cell::num(rate(v), v))
        }),
        Column::right("Avg", |(e, _): &IoRow<'_>| {
            let timed_ns = e.read.total_ns + e.write.total_ns;
            let timed_ops = e.read.timed_ops + e.write.timed_ops;
            Cell::opt((timed_ops > 0).then(|| timed_ns / timed_ops), duration)
        }),
        Column::right("Errors", |(e, _): &IoRow<'_>| Cell::count(io_errors(e))),
    ]);
    c.into_iter().map(|c| c.only(Show::Console)).collect()
}

/// A function with the I/O charged to it: a row of the `io by function` table.
pub type IoFunctionRow<'a> = (&'a Function, &'a FunctionIo);

/// `io by function`: I/O made while each function was the innermost measured one.
pub fn io_functions<'a>() -> Columns<'a, IoFunctionRow<'a>> {
    vec![
        Column::left("Function", |(f, _): &IoFunctionRow<'_>| {
            Cell::text(f.display_name(), f.display_name())
        })
        .only(Show::Exit),
        name_column("Function", |(f, _): &IoFunctionRow<'_>| *f).only(Show::Console),
        Column::right("Read", |(_, io): &IoFunctionRow<'_>| {
            Cell::bytes(io.read_bytes)
        }),
        Column::right("Written", |(_, io): &IoFunctionRow<'_>| {
            Cell::bytes(io.write_bytes)
        }),
        Column::right("Time in I/O", |(_, io): &IoFunctionRow<'_>| {
            Cell::duration(io.io_ns)
        }),
        Column::right("% of wall", |(f, io): &IoFunctionRow<'_>| {
            let w = wall(f);
            Cell {
                text: percent(io.io_ns as f64, w as f64),
                key: if w > 0 {
                    Key::Num(io.io_ns as f64 / w as f64)
                } else {
                    Key::Missing
                },
            }
        }),
    ]
}

/// The `io by function` rows of `r`, by time in I/O.
pub fn io_function_rows(r: &Report) -> Vec<IoFunctionRow<'_>> {
    functions_by(r, |f| f.io.as_ref(), |(_, io)| io.io_ns)
}
