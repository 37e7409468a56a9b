//! The console's `Waits`, `Mutexes`, `RwLocks` and `Debug` tables.

use hotpath_report::columns;
use hotpath_report::format::percent;
use hotpath_report::{ProfilerStatus, Report, Section};

use super::{function_id, missing, Source, Table};

pub(super) fn waits(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::waits(r);
    let mut t = Table::new("waits: where each function's own time went", &cols, "Other");
    let rows = columns::waits_rows(r);
    if rows.is_empty() {
        t.empty = Some(missing(
            Section::Waits,
            status,
            "no function has waited on a wrapped lock, channel, I/O, SQL or HTTP call so far",
            "HOTPATH_REPORT leaves waits out",
        ));
        return t;
    }
    for row in &rows {
        let i = r
            .functions
            .iter()
            .position(|f| std::ptr::eq(f, row.0))
            .unwrap_or(0);
        t.push(&cols, function_id(row.0), Source::Function(i), row);
    }
    // The column most users look at first: the kind of waiting that dominates.
    t.default_sort = t
        .columns
        .iter()
        .position(|c| c.title == "Lock")
        .unwrap_or(1);
    t.footer.push(
        "each: time and share of the function's wall time; Children: in measured functions it \
         called; Other: neither CPU nor a wrapped wait"
            .into(),
    );
    t
}

fn sampling_note(t: &mut Table, rate: Option<f64>, sampled: bool) {
    if let Some(rate) = rate.filter(|r| *r < 1.0) {
        t.footer.push(format!(
            "{} of acquisitions timed, every one counted",
            percent(rate, 1.0)
        ));
    }
    if sampled {
        t.footer.push(columns::SAMPLED_LEGEND.into());
    }
}

pub(super) fn mutexes(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::mutexes(r);
    let mut t = Table::new(
        "mutexes: acquisitions, waits and holds per lock",
        &cols,
        "Hold max",
    );
    let rows = columns::mutex_rows(r);
    if !r.has(Section::Mutexes) || rows.is_empty() {
        t.empty = Some(missing(
            Section::Mutexes,
            status,
            "no hotpath::mutex! lock has been acquired so far",
            "HOTPATH_REPORT leaves mutexes out",
        ));
        return t;
    }
    for (i, e) in rows.iter().enumerate() {
        let id = format!("{}\0{}:{}\0{}", e.name, e.file, e.line, e.type_name);
        t.push(&cols, id, Source::Mutex(i), e);
    }
    t.footer
        .push("Enter shows the functions that acquired, waited and held".into());
    sampling_note(
        &mut t,
        r.mutexes_time_sampling_rate,
        columns::any_sampled(rows.iter().map(|e| &e.lock)),
    );
    t
}

pub(super) fn rw_locks(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::rw_locks(r);
    let mut t = Table::new(
        "rw_locks: acquisitions, waits and holds per lock and mode",
        &cols,
        "Hold max",
    );
    let rows = columns::rw_lock_rows(r);
    if !r.has(Section::RwLocks) || rows.is_empty() {
        t.empty = Some(missing(
            Section::RwLocks,
            status,
            "no hotpath::rw_lock! lock has been acquired so far",
            "HOTPATH_REPORT leaves rw_locks out",
        ));
        return t;
    }
    let entries = r.rw_locks.as_deref().unwrap_or(&[]);
    for row in &rows {
        let (e, mode, _) = row;
        let i = entries
            .iter()
            .position(|x| std::ptr::eq(x, *e))
            .unwrap_or(0);
        let id = format!("{}\0{}:{}\0{}\0{mode}", e.name, e.file, e.line, e.type_name);
        t.push(&cols, id, Source::RwLock(i, mode), row);
    }
    t.footer
        .push("Enter shows the functions that acquired, waited and held".into());
    sampling_note(
        &mut t,
        r.rw_locks_time_sampling_rate,
        columns::any_sampled(rows.iter().map(|(_, _, m)| *m)),
    );
    t
}

pub(super) fn debug(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::debug();
    let mut t = Table::new(
        "debug: last values of dbg!, val! and gauge!",
        &cols,
        "Key/Expr",
    );
    let rows = r.debug.as_deref().unwrap_or(&[]);
    if !r.has(Section::Debug) || rows.is_empty() {
        t.empty = Some(missing(
            Section::Debug,
            status,
            "no hotpath::dbg!, val! or gauge! has been updated so far",
            "HOTPATH_REPORT leaves debug out",
        ));
        return t;
    }
    for (i, d) in rows.iter().enumerate() {
        t.push(&cols, format!("{}\0{}", d.kind, d.key), Source::Debug(i), d);
    }
    t
}
