//! Columns of the `waits`, `mutexes`, `rw_locks` and `debug` tables.

use super::common::{functions_by, percentile_title, wall, Cell, Column, Columns, Key, Show};
use crate::format::{duration, percent, short_place};
use crate::model::{
    DebugEntry, Function, FunctionWaits, LockDist, LockHolder, LockMode, MutexEntry, Report,
    RwLockEntry,
};

/// What marks a lock distribution's extreme or percentile taken over a sample of the
/// acquisitions ([`LockMode::sampled`]); the tables' legend is [`SAMPLED_LEGEND`].
pub const SAMPLED_MARK: &str = " *";

/// The legend of [`SAMPLED_MARK`].
pub const SAMPLED_LEGEND: &str =
    "*: over the timed acquisitions only (sampling); every wait, and every hold that made another wait, is timed";

/// The value `v` (an extreme or a percentile) of `d`, a distribution of `m`, marked
/// when it is over a sample.
fn sampled_value(m: &LockMode, d: Option<&LockDist>, v: impl Fn(&LockDist) -> Option<u64>) -> Cell {
    match d.and_then(&v) {
        Some(ns) if m.sampled => Cell::num(format!("{}{SAMPLED_MARK}", duration(ns)), ns as f64),
        Some(ns) => Cell::duration(ns),
        None => Cell::missing(),
    }
}

/// Whether a table of `modes` shows a value over a sample (and so needs the legend).
pub fn any_sampled<'a>(mut modes: impl Iterator<Item = &'a LockMode>) -> bool {
    modes.any(|m| m.sampled && (m.wait_ns.is_some() || m.hold_ns.is_some()))
}

/// A function with its waits: a row of the `waits` table.
pub type WaitsRow<'a> = (&'a Function, &'a FunctionWaits);

/// The `waits` rows of `r`, by time spent waiting.
pub fn waits_rows(r: &Report) -> Vec<WaitsRow<'_>> {
    functions_by(r, |f| f.waits.as_ref(), |(f, w)| (w.waited_ns(), wall(f)))
}

/// `12.0 ms 40.0%`: a time and its share of the function's wall time; `-` for none.
fn share(ns: u64, wall: u64) -> Cell {
    if ns == 0 {
        return Cell {
            text: "-".into(),
            key: Key::Num(0.0),
        };
    }
    Cell::num(
        format!("{} {}", duration(ns), percent(ns as f64, wall as f64)),
        ns as f64,
    )
}

/// `waits`: where each function's own time went, in time and share of its wall time.
pub fn waits(r: &Report) -> Columns<'_, WaitsRow<'_>> {
    let cpu = r.functions.iter().any(|f| {
        f.waits
            .as_ref()
            .is_some_and(|w: &FunctionWaits| w.cpu_ns.is_some())
    });
    let mut c: Columns<'_, WaitsRow<'_>> = vec![
        super::common::name_column("Function", |(f, _): &WaitsRow<'_>| *f),
        Column::right("Wall", |(f, _): &WaitsRow<'_>| Cell::duration(wall(f))),
        Column::right("Children", |(f, w): &WaitsRow<'_>| {
            share(wall(f).saturating_sub(w.own_ns), wall(f))
        }),
    ];
    if cpu {
        c.push(Column::right("CPU", |(f, w): &WaitsRow<'_>| {
            share(w.cpu_ns.unwrap_or(0), wall(f))
        }));
    }
    for i in 0..6 {
        let title = FunctionWaits::default().kinds()[i].0;
        c.push(Column::right(title, move |(f, w): &WaitsRow<'_>| {
            share(w.kinds()[i].1, wall(f))
        }));
    }
    c.push(Column::right("Other", |(f, w): &WaitsRow<'_>| {
        share(w.other_ns, wall(f))
    }));
    c
}

/// The holder a table names first: the one that held longest.
fn top_holder(r: &Report, m: &LockMode) -> Cell {
    match m.holders.iter().find(|h| h.function != "<other>") {
        Some(h) => Cell::text(
            format!(
                "{} ({})",
                r.display_name_of(&h.function),
                duration(h.hold_ns)
            ),
            h.function.clone(),
        ),
        None => Cell::missing(),
    }
}

/// The columns of one lock mode's numbers, for rows of type `R`.
fn mode_columns<'a, R: 'a>(
    r: &'a Report,
    acq: &str,
    m: impl Fn(&R) -> &LockMode + Copy + 'a,
) -> Columns<'a, R> {
    let mut c: Columns<'a, R> = vec![
        Column::right(acq.to_string(), move |x| Cell::count(m(x).acquisitions)),
        Column::right("Contended", move |x| Cell::count(m(x).contended)),
        Column::right("Wait total", move |x| {
            Cell::opt(m(x).wait_ns.as_ref().map(|d| d.total), duration)
        }),
    ];
    if let Some(&p) = r.percentiles.last() {
        c.push(Column::right(
            format!("Wait {}", percentile_title(p)),
            move |x| sampled_value(m(x), m(x).wait_ns.as_ref(), |d| d.percentiles.get(p)),
        ));
    }
    c.push(Column::right("Hold avg", move |x| {
        Cell::opt(m(x).hold_ns.as_ref().map(|d| d.mean), duration)
    }));
    for &p in &r.percentiles {
        c.push(
            Column::right(format!("Hold {}", percentile_title(p)), move |x| {
                sampled_value(m(x), m(x).hold_ns.as_ref(), |d| d.percentiles.get(p))
            })
            .only(Show::Exit),
        );
    }
    c.push(Column::right("Hold max", move |x| {
        sampled_value(m(x), m(x).hold_ns.as_ref(), |d| Some(d.max))
    }));
    // The exit report lists every holder in the table under this one.
    c.push(Column::left("Top holder (hold)", move |x| top_holder(r, m(x))).only(Show::Console));
    c
}

/// The `mutexes` rows of `r`, in report order (by total hold).
pub fn mutex_rows(r: &Report) -> Vec<&MutexEntry> {
    r.mutexes.iter().flatten().collect()
}

/// `mutexes`: per `mutex!` site.
pub fn mutexes(r: &Report) -> Columns<'_, &MutexEntry> {
    let mut c: Columns<'_, &MutexEntry> = vec![
        Column::left("Mutex", |e: &&MutexEntry| {
            Cell::text(short_place(&e.name), e.name.clone())
        }),
        Column::right("Inst", |e: &&MutexEntry| Cell::count(e.instances)),
    ];
    c.extend(mode_columns(r, "Locks", |e: &&MutexEntry| &e.lock));
    c
}

/// One mode of one `rw_lock!` site: a row of the `rw_locks` table.
pub type RwLockRow<'a> = (&'a RwLockEntry, &'static str, &'a LockMode);

/// The `rw_locks` rows of `r`: each site's modes that were used, in report order.
pub fn rw_lock_rows(r: &Report) -> Vec<RwLockRow<'_>> {
    r.rw_locks
        .iter()
        .flatten()
        .flat_map(|e| {
            e.modes()
                .into_iter()
                .filter(|(_, m)| m.acquisitions + m.try_failed > 0)
                .map(move |(name, m)| (e, name, m))
        })
        .collect()
}

/// `rw_locks`: per `rw_lock!` site and mode.
pub fn rw_locks(r: &Report) -> Columns<'_, RwLockRow<'_>> {
    let mut c: Columns<'_, RwLockRow<'_>> = vec![
        Column::left("RwLock", |(e, _, _): &RwLockRow<'_>| {
            Cell::text(short_place(&e.name), e.name.clone())
        }),
        Column::left("Mode", |(_, mode, _): &RwLockRow<'_>| {
            Cell::text(*mode, *mode)
        }),
        Column::right("Inst", |(e, _, _): &RwLockRow<'_>| Cell::count(e.instances)),
    ];
    c.extend(mode_columns(r, "Acq", |(_, _, m): &RwLockRow<'_>| *m));
    c
}

/// One function's acquisitions of one lock mode: a row of the holders table.
pub type HolderRow<'a> = (String, &'a LockHolder);

/// The holder rows of the `mutexes` and `rw_locks` sections: per lock (and mode), the
/// functions that waited and held, `<other>` last.
pub fn holder_rows(r: &Report) -> Vec<HolderRow<'_>> {
    let mut rows = Vec::new();
    for e in mutex_rows(r) {
        rows.extend(e.lock.holders.iter().map(|h| (e.name.clone(), h)));
    }
    for (e, mode, m) in rw_lock_rows(r) {
        rows.extend(
            m.holders
                .iter()
                .map(|h| (format!("{} ({mode})", e.name), h)),
        );
    }
    rows
}

/// The holders table: who acquired each lock, waited and held it.
pub fn holders(r: &Report) -> Columns<'_, HolderRow<'_>> {
    vec![
        Column::left("Lock", |(lock, _): &HolderRow<'_>| {
            Cell::text(short_place(lock), lock.clone())
        }),
        Column::left("Function", |(_, h): &HolderRow<'_>| {
            Cell::text(r.display_name_of(&h.function), h.function.clone())
        }),
        Column::right("Locks", |(_, h): &HolderRow<'_>| {
            Cell::count(h.acquisitions)
        }),
        Column::right("Contended", |(_, h): &HolderRow<'_>| {
            Cell::count(h.contended)
        }),
        Column::right("Wait", |(_, h): &HolderRow<'_>| Cell::duration(h.wait_ns)),
        Column::right("Hold", |(_, h): &HolderRow<'_>| Cell::duration(h.hold_ns)),
    ]
}

/// `debug`: the last values of `dbg!`, `val!` and `gauge!`.
pub fn debug<'a>() -> Columns<'a, DebugEntry> {
    vec![
        Column::left("Type", |d: &DebugEntry| {
            Cell::text(d.kind.clone(), d.kind.clone())
        }),
        Column::left("Key/Expr", |d: &DebugEntry| {
            Cell::text(d.key.clone(), d.key.clone())
        }),
        Column::left("Value", |d: &DebugEntry| match d.gauge {
            Some(g) => Cell::num(d.value.clone(), g),
            None => Cell::text(d.value.clone(), d.value.clone()),
        }),
        Column::right("Updates", |d: &DebugEntry| Cell::count(d.updates)),
        Column::left("Source", |d: &DebugEntry| {
            let s = format!("{}:{}", d.file, d.line);
            Cell::text(s.clone(), s)
        }),
    ]
}
