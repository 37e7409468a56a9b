//! The console's `Waits`, `Mutexes`, `RwLocks` and `Debug` tables.

use hotpath_report::columns;
use hotpath_report::format::percent;
use hotpath_report::{ProfilerStatus, Report, Section};

use super::common::{function_id, not_yet, site_id, Source, Table};

pub(crate) fn waits(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::waits(r);
    let mut t = Table::new("waits: where each function's own time went", &cols, "Other");
    let added = t.fill(
        &cols,
        &columns::waits_rows(r),
        true,
        |_, (f, _)| {
            let i = r
                .functions
                .iter()
                .position(|g| std::ptr::eq(g, *f))
                .unwrap_or(0);
            (function_id(f), Source::Function(i))
        },
        || {
            not_yet(
                Section::Waits,
                status,
                "no function has waited on a wrapped lock, channel, I/O, SQL or HTTP call so far",
            )
        },
    );
    if !added {
        return t;
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

/// The footer of a lock table: where the holders are, the sampling rate `rate` when under
/// 1, and the legend of the values over a sample when a row has one (`sampled`).
fn lock_footer(t: &mut Table, rate: Option<f64>, sampled: bool) {
    t.footer
        .push("Enter shows the functions that acquired, waited and held".into());
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

pub(crate) fn mutexes(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::mutexes(r);
    let mut t = Table::new(
        "mutexes: acquisitions, waits and holds per lock",
        &cols,
        "Hold max",
    );
    let rows = columns::mutex_rows(r);
    let added = t.fill(
        &cols,
        &rows,
        r.has(Section::Mutexes),
        |i, e| {
            (
                site_id(&e.name, &e.file, e.line, &e.type_name),
                Source::Mutex(i),
            )
        },
        || {
            not_yet(
                Section::Mutexes,
                status,
                "no hotpath::mutex! lock has been acquired so far",
            )
        },
    );
    if !added {
        return t;
    }
    lock_footer(
        &mut t,
        r.mutexes_time_sampling_rate,
        columns::any_sampled(rows.iter().map(|e| &e.lock)),
    );
    t
}

pub(crate) fn rw_locks(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::rw_locks(r);
    let mut t = Table::new(
        "rw_locks: acquisitions, waits and holds per lock and mode",
        &cols,
        "Hold max",
    );
    let rows = columns::rw_lock_rows(r);
    let entries = r.rw_locks.as_deref().unwrap_or(&[]);
    let added = t.fill(
        &cols,
        &rows,
        r.has(Section::RwLocks),
        |_, (e, mode, _)| {
            let i = entries
                .iter()
                .position(|x| std::ptr::eq(x, *e))
                .unwrap_or(0);
            let id = site_id(&e.name, &e.file, e.line, &e.type_name);
            (format!("{id}\0{mode}"), Source::RwLock(i, mode))
        },
        || {
            not_yet(
                Section::RwLocks,
                status,
                "no hotpath::rw_lock! lock has been acquired so far",
            )
        },
    );
    if !added {
        return t;
    }
    lock_footer(
        &mut t,
        r.rw_locks_time_sampling_rate,
        columns::any_sampled(rows.iter().map(|(_, _, m)| *m)),
    );
    t
}

pub(crate) fn debug(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let cols = columns::debug();
    let mut t = Table::new(
        "debug: last values of dbg!, val! and gauge!",
        &cols,
        "Key/Expr",
    );
    t.fill(
        &cols,
        r.debug.as_deref().unwrap_or(&[]),
        r.has(Section::Debug),
        |i, d| (format!("{}\0{}", d.kind, d.key), Source::Debug(i)),
        || {
            not_yet(
                Section::Debug,
                status,
                "no hotpath::dbg!, val! or gauge! has been updated so far",
            )
        },
    );
    t
}
