//! Columns of the `timing` table.

use super::common::{dist_columns, name_column, Cell, Column, Columns};
use crate::format::{duration, per_call_duration, percent};
use crate::model::{Function, Report};

/// `timing`: wall time per function. Rows: `report.functions`.
pub fn timing(r: &Report) -> Columns<'_, Function> {
    let floor = r.clock_floor_ns;
    let mut c: Columns<'_, Function> = vec![
        name_column("Function", |f: &Function| f),
        Column::right("Calls", |f: &Function| Cell::count(f.calls)),
    ];
    if r.overhead_budget.is_some() {
        // Under an overhead budget: the share of each row's calls that were timed.
        c.push(Column::right("Timed", |f: &Function| {
            f.effective_rate
                .map_or_else(Cell::missing, |r| Cell::num(percent(r, 1.0), r))
        }));
    }
    c.extend(dist_columns(
        r,
        "Avg",
        "",
        |f: &Function| f.wall_ns.as_ref(),
        move |v| per_call_duration(v, floor),
    ));
    // With the time so far of calls still running, as the row's name says.
    let timed = |f: &Function| f.wall_ns.is_some() || f.running.is_some();
    c.push(Column::right("Total", move |f: &Function| {
        Cell::opt(timed(f).then(|| f.total_with_running()), duration)
    }));
    c.push(Column::right("Self", move |f: &Function| {
        Cell::opt(timed(f).then(|| f.self_with_running()), duration)
    }));
    let elapsed = r.elapsed_ns as f64;
    c.push(Column::right("% Total", move |f: &Function| {
        if timed(f) {
            let t = f.total_with_running() as f64;
            Cell::num(share_of_run(t, elapsed, calls(f)), t)
        } else {
            Cell::missing()
        }
    }));
    c
}

/// A row's calls, finished and running.
fn calls(f: &Function) -> u64 {
    f.calls + f.running.as_ref().map_or(0, |r| r.calls)
}

/// A row's Total as a share of the run (`36.3%`), or, when its `calls` overlapped (on
/// several threads or tasks) to more than the run, how many ran at a time on average
/// (`×43.7`): a share above 100 % reads as an error. One call cannot overlap: its Total
/// above the run is the moment the run's length was read, before the calls' (100.0%).
pub fn share_of_run(total: f64, elapsed: f64, calls: u64) -> String {
    if elapsed > 0.0 && total > elapsed {
        if calls <= 1 {
            return percent(elapsed, elapsed);
        }
        let n = total / elapsed;
        if n < 10.0 {
            format!("×{n:.2}")
        } else {
            format!("×{n:.1}")
        }
    } else {
        percent(total, elapsed)
    }
}

/// Whether a row's calls overlapped to more than the run (see [`share_of_run`]).
pub fn overlapped(f: &Function, elapsed: u64) -> bool {
    (f.wall_ns.is_some() || f.running.is_some()) && calls(f) > 1 && f.total_with_running() > elapsed
}

#[cfg(test)]
mod tests {
    use super::share_of_run;

    #[test]
    fn a_total_above_the_run_is_calls_at_a_time() {
        assert_eq!(share_of_run(50.0, 200.0, 3), "25.0%");
        assert_eq!(share_of_run(200.0, 200.0, 3), "100.0%");
        assert_eq!(share_of_run(300.0, 200.0, 3), "×1.50");
        assert_eq!(share_of_run(8730.0, 200.0, 50), "×43.6");
        assert_eq!(share_of_run(0.0, 0.0, 0), crate::format::percent(0.0, 0.0));
        // One call read a little after the run's length (main at a timeout): 100 %.
        assert_eq!(share_of_run(201.0, 200.0, 1), "100.0%");
    }
}
