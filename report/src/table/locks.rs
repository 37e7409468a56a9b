//! The exit report's `waits`, `mutexes`, `rw_locks` and `debug` sections.

use super::{heading, heading_then, table};
use crate::columns;

use crate::model::Report;

pub(super) fn waits(r: &Report, limit: usize, out: &mut String) {
    let rows = columns::waits_rows(r);
    let n = heading(
        out,
        limit,
        rows.len(),
        "waits: where each function's own time went, by time waiting",
    );
    table(columns::waits(r), &rows[..n], None).render(out);
    super::hidden_rows(rows.len() - n, "rows", out);
    super::wrapped(
        "each: time and share of the function's wall time; Children: in measured functions it \
         called or awaited; Other: neither CPU nor a wrapped wait",
        out,
    );
}

/// `; 10% of acquisitions timed, every one counted`, or nothing at rate 1.
fn sampling(rate: Option<f64>) -> String {
    match rate {
        Some(r) if r <= 0.0 => "; count only, no acquisition timed".to_string(),
        Some(r) if r < 1.0 => format!(
            "; holds timed for each lock's first {} acquisitions, then 1 in {} (and every contended one, and every one that made another wait); every one counted",
            crate::SAMPLING_WARM_UP,
            (1.0 / r).round()
        ),
        _ => String::new(),
    }
}

fn holders(r: &Report, limit: usize, out: &mut String, mutexes: bool) {
    let rows: Vec<_> = columns::holder_rows(r)
        .into_iter()
        .filter(|(lock, _)| {
            let is_mutex = columns::mutex_rows(r).iter().any(|e| &e.name == lock);
            is_mutex == mutexes
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    out.push('\n');
    let what = format!(
        "{} by function: who acquired, waited and held",
        if mutexes { "mutexes" } else { "rw_locks" }
    );
    let n = heading(out, limit, rows.len(), &what);
    table(columns::holders(r), &rows[..n], None).render(out);
    super::hidden_rows(rows.len() - n, "rows", out);
}

pub(super) fn mutexes(r: &Report, limit: usize, out: &mut String) {
    let rows = columns::mutex_rows(r);
    let n = heading_then(
        out,
        limit,
        rows.len(),
        "mutexes: acquisitions, waits and holds per lock, by total hold",
        &sampling(r.mutexes_time_sampling_rate),
    );
    table(columns::mutexes(r), &rows[..n], None).render(out);
    super::hidden_rows(rows.len() - n, "rows", out);
    if columns::any_sampled(rows[..n].iter().map(|e| &e.lock)) {
        super::wrapped(columns::SAMPLED_LEGEND, out);
    }
    holders(r, limit, out, true);
}

pub(super) fn rw_locks(r: &Report, limit: usize, out: &mut String) {
    let rows = columns::rw_lock_rows(r);
    let n = heading_then(
        out,
        limit,
        rows.len(),
        "rw_locks: acquisitions, waits and holds per lock and mode, by total hold",
        &sampling(r.rw_locks_time_sampling_rate),
    );
    table(columns::rw_locks(r), &rows[..n], None).render(out);
    super::hidden_rows(rows.len() - n, "rows", out);
    if columns::any_sampled(rows[..n].iter().map(|(_, _, m)| *m)) {
        super::wrapped(columns::SAMPLED_LEGEND, out);
    }
    holders(r, limit, out, false);
}

pub(super) fn debug(r: &Report, limit: usize, out: &mut String) {
    let rows = r.debug.as_deref().unwrap_or(&[]);
    let n = heading(
        out,
        limit,
        rows.len(),
        "debug: last values of dbg!, val! and gauge!",
    );
    table(columns::debug(), &rows[..n], None).render(out);
    super::hidden_rows(rows.len() - n, "rows", out);
}

#[cfg(test)]
mod tests {
    use crate::model::{LockDist, LockMode, MutexEntry, Report};
    use crate::Section;

    /// A report of one mutex whose holds were timed `timed` times of 1,000, the longest
    /// 50 ms.
    fn one_mutex(timed: u64) -> Report {
        let dist = |max: u64| LockDist {
            total: max,
            mean: max / timed,
            min: 0,
            max,
            ..LockDist::default()
        };
        Report {
            schema_version: crate::SCHEMA_VERSION,
            sections: vec![Section::Mutexes],
            mutexes_time_sampling_rate: Some(1.0 / 16.0),
            mutexes: Some(vec![MutexEntry {
                name: "held".into(),
                label: Some("held".into()),
                file: "src/main.rs".into(),
                line: 7,
                backend: "std".into(),
                type_name: "std::sync::Mutex<u64>".into(),
                instances: 1,
                lock: LockMode {
                    acquisitions: 1000,
                    timed,
                    sampled: timed < 1000,
                    wait_ns: Some(dist(0)),
                    hold_ns: Some(dist(50_000_000)),
                    ..LockMode::default()
                },
            }]),
            ..Report::default()
        }
    }

    fn row<'a>(table: &'a str, name: &str) -> &'a str {
        table
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no row {name} in\n{table}"))
    }

    #[test]
    fn a_max_over_sampled_holds_is_marked_and_the_legend_says_why() {
        let table = crate::table::render(&one_mutex(300), 10);
        assert!(
            row(&table, "held").trim_end().ends_with("50.0 ms *"),
            "{table}"
        );
        assert!(
            table.contains(&format!("\n{}\n", super::columns::SAMPLED_LEGEND)),
            "{table}"
        );
    }

    #[test]
    fn a_max_over_every_hold_is_not_marked() {
        let table = crate::table::render(&one_mutex(1000), 10);
        assert!(
            row(&table, "held").trim_end().ends_with("50.0 ms"),
            "{table}"
        );
        assert!(!table.contains(super::columns::SAMPLED_MARK), "{table}");
        assert!(!table.contains(super::columns::SAMPLED_LEGEND), "{table}");
    }
}
