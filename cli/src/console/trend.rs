//! What each function did between refreshes: the console keeps the wall-time totals of
//! the last [`WINDOW`] reports and shows, per function, its share of the last interval
//! (`Now`) and a sparkline of its share over the window (`Trend`), so a function that is
//! hot *now* stands out from one that was hot at start-up.
//!
//! Intervals are measured on the program's own clock (`elapsed_ns` of consecutive
//! reports), not on when the answers arrived. A report of another process, or one whose
//! clock went back, starts the history again.

use std::collections::{HashMap, VecDeque};

use hotpath_report::Report;

/// Reports kept: the sparkline shows `WINDOW - 1` intervals.
pub(crate) const WINDOW: usize = 21;

/// Levels of the sparkline, lowest first; a space is nothing at all.
const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// The last reports' wall-time totals.
#[derive(Debug, Default)]
pub(crate) struct Trend {
    pid: Option<u32>,
    /// (`elapsed_ns`, total wall ns by function id), oldest first.
    samples: VecDeque<(u64, HashMap<String, u64>)>,
}

impl Trend {
    /// Adds a report of process `pid`; `id` names a function as the tables do.
    pub(crate) fn record(
        &mut self,
        pid: u32,
        report: &Report,
        id: impl Fn(&hotpath_report::Function) -> String,
    ) {
        let restarted = self.pid != Some(pid)
            || self
                .samples
                .back()
                .is_some_and(|(elapsed, _)| *elapsed > report.elapsed_ns);
        if restarted {
            self.samples.clear();
            self.pid = Some(pid);
        }
        if self
            .samples
            .back()
            .is_some_and(|(elapsed, _)| *elapsed == report.elapsed_ns)
        {
            // The same report again (the program is between two snapshots): no interval.
            return;
        }
        let totals = report
            .functions
            .iter()
            .filter_map(|f| Some((id(f), f.wall_ns.as_ref()?.total)))
            .collect();
        self.samples.push_back((report.elapsed_ns, totals));
        while self.samples.len() > WINDOW {
            self.samples.pop_front();
        }
    }

    /// Whether there is at least one interval to show.
    pub(crate) fn has_intervals(&self) -> bool {
        self.samples.len() >= 2
    }

    /// The function's wall time in each interval as a share of the interval (1.0 = as
    /// long as the interval; more when calls overlap, on threads or as futures), oldest
    /// first. A function not yet called at the start of an interval counts from 0.
    pub(crate) fn shares(&self, id: &str) -> Vec<f64> {
        self.samples
            .iter()
            .zip(self.samples.iter().skip(1))
            .map(|((e0, t0), (e1, t1))| {
                let spent = t1
                    .get(id)
                    .copied()
                    .unwrap_or(0)
                    .saturating_sub(t0.get(id).copied().unwrap_or(0));
                spent as f64 / (e1 - e0) as f64
            })
            .collect()
    }
}

/// `shares` as bars scaled to their largest, one character each, padded on the left to
/// [`WINDOW`]` - 1` so that the newest interval is always in the last column.
pub(crate) fn sparkline(shares: &[f64]) -> String {
    let max = shares.iter().copied().fold(0.0, f64::max);
    let bars: String = shares
        .iter()
        .map(|&s| {
            if s <= 0.0 || max <= 0.0 {
                ' '
            } else {
                let level = ((s / max) * BARS.len() as f64).ceil() as usize;
                BARS[level.clamp(1, BARS.len()) - 1]
            }
        })
        .collect();
    format!("{bars:>width$}", width = WINDOW - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_largest_and_nothing_is_blank() {
        let line = sparkline(&[0.0, 0.1, 0.5, 1.0, 0.9]);
        // 0.9 of the largest rounds up to the top bar: any share above 7/8 is full.
        assert_eq!(line, format!("{} ▁▄██", " ".repeat(15)));
        assert_eq!(line.chars().count(), WINDOW - 1);
        assert_eq!(sparkline(&[0.0, 0.0]), " ".repeat(WINDOW - 1));
    }
}
