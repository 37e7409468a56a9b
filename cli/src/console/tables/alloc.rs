//! The console's `Memory` table (section `alloc`).

use hotpath_report::columns;
use hotpath_report::format::{bytes, count};
use hotpath_report::{ProfilerStatus, Report, Section};

use super::common::{function_id, missing, Source, Table};

pub(crate) fn memory(r: &Report, status: Option<&ProfilerStatus>) -> Table {
    // Percentiles of bytes per call are in the inspect pane: with them the table would
    // not fit 120 columns.
    let cols = columns::alloc(r);
    let mut t = Table::new("alloc: allocations per function", &cols, "Total bytes");
    if !r.has(Section::Alloc) {
        t.empty = Some(missing(
            Section::Alloc,
            status,
            "nothing allocated in measured code so far",
            "allocations are not tracked (with allocator = none the program needs a \
             hotpath::alloc::Tracking global allocator; HOTPATH_REPORT may leave alloc out)",
        ));
        return t;
    }
    let mut quiet = 0;
    for (i, f) in r.functions.iter().enumerate() {
        let Some(a) = &f.alloc else { continue };
        if a.count == 0 && a.freed_bytes == 0 {
            quiet += 1;
            continue;
        }
        t.push(&cols, function_id(f), Source::Function(i), &(f, a));
    }
    if let Some(total) = &r.alloc_total {
        t.footer.push(format!(
            "process: {} allocations, {} allocated, {} freed; outside measured functions: {} allocated",
            count(total.count),
            bytes(total.bytes),
            bytes(total.freed_bytes),
            bytes(total.unattributed_bytes),
        ));
    }
    if quiet > 0 {
        t.footer.push(format!(
            "{quiet} more functions allocated and freed nothing"
        ));
    }
    t
}
