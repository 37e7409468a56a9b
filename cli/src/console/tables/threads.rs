//! The console's `Threads` table.

use hotpath_report::columns;
use hotpath_report::format::bytes;
use hotpath_report::{ProfilerStatus, Report, Section};

use super::common::{Source, Table};

pub(crate) fn threads(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    let rows = r.threads.as_deref().unwrap_or(&[]);
    let cols = columns::threads(rows);
    let mut t = Table::new("threads: per thread", &cols, "CPU");
    if !r.has(Section::Threads) {
        t.empty = Some(match status {
            Some(s) if s.sections.contains(&Section::Threads) => {
                "no threads section yet: the first /proc reading is pending".into()
            }
            _ => "no threads section: it is collected on Linux only, and HOTPATH_REPORT may \
                  leave it out"
                .into(),
        });
        return t;
    }
    for (i, th) in rows.iter().enumerate() {
        t.push(
            &cols,
            format!("{}\0{}", th.tid, th.name),
            Source::Thread(i),
            th,
        );
    }
    if let Some(m) = &r.process_memory {
        t.footer.push(format!(
            "process memory: rss {}, peak {}",
            bytes(m.rss_bytes),
            bytes(m.peak_rss_bytes)
        ));
    }
    t
}
