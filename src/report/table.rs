//! The report as aligned text tables.

use std::fmt::Write as _;

use super::format::{bytes, count, duration, per_call, percent, rate, Table};
use super::model::{percentile_label, Function, FunctionAlloc, FunctionCpu, Report};

/// `(shown/total)` when rows were cut, else `(total)`.
pub(crate) fn shown(shown: usize, total: usize) -> String {
    if shown < total {
        format!("({shown}/{total})")
    } else {
        format!("({total})")
    }
}

/// Rows to show for a `limit` (0 = all).
pub(crate) fn take(limit: usize, len: usize) -> usize {
    if limit == 0 {
        len
    } else {
        limit.min(len)
    }
}

/// Renders the whole report. `limit` caps the rows of each section (0 = all).
pub fn render(r: &Report, limit: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "[hotpath] {} | {}",
        duration(r.elapsed_ns),
        r.sections.join(" | ")
    );
    header_details(r, &mut out);
    for note in &r.notes {
        let _ = writeln!(out, "note: {note}");
    }
    if r.sections.iter().any(|s| s == "timing") {
        out.push('\n');
        timing(r, limit, &mut out);
    }
    if r.sections.iter().any(|s| s == "alloc") {
        out.push('\n');
        alloc(r, limit, &mut out);
    }
    if r.sections.iter().any(|s| s == "cpu") {
        out.push('\n');
        cpu(r, limit, &mut out);
    }
    if r.sections.iter().any(|s| s == "io") {
        out.push('\n');
        io(r, limit, &mut out);
    }
    if r.sections.iter().any(|s| s == "threads") {
        out.push('\n');
        super::threads::render(
            r.threads.as_deref().unwrap_or(&[]),
            r.process_memory.as_ref(),
            limit,
            &mut out,
        );
    }
    out
}

fn header_details(r: &Report, out: &mut String) {
    let calls: u64 = r.functions.iter().map(|f| f.calls).sum();
    let _ = write!(out, "caller: {} | clock: {}", r.caller, r.clock);
    if r.time_sampling_rate < 1.0 {
        if r.time_sampling_rate == 0.0 {
            let _ = write!(out, " | time sampling: off (calls counted, not timed)");
        } else {
            let _ = write!(
                out,
                " | time sampling: {}% of calls",
                percentile_label(r.time_sampling_rate * 100.0)
            );
        }
    }
    out.push('\n');
    if let Some(c) = &r.cpu {
        let _ = write!(out, "cpu: {}", c.mode);
        if let Some(hz) = c.hz {
            let _ = write!(out, " {hz} Hz");
        }
        let _ = write!(out, ", {}", c.source);
        if let Some(why) = &c.fallback_reason {
            let _ = write!(out, " (fallback: {why})");
        }
        out.push('\n');
    }

    let _ = writeln!(
        out,
        "profiler overhead: {:.1} ns per timed call; {} calls ≈ {} ({} of the run)",
        r.overhead_per_call_ns,
        count(calls),
        duration(r.overhead_ns),
        percent(r.overhead_ns as f64, r.elapsed_ns as f64),
    );
}

fn timing(r: &Report, limit: usize, out: &mut String) {
    let n = take(limit, r.functions.len());
    let _ = writeln!(
        out,
        "timing: wall time per function, by total {}",
        shown(n, r.functions.len())
    );
    let mut header = vec!["Function".to_string(), "Calls".into(), "Avg".into()];
    header.extend(
        r.percentiles
            .iter()
            .map(|p| format!("P{}", percentile_label(*p))),
    );
    header.extend(["Total".into(), "Self".into(), "% Total".into()]);
    let mut t = Table::new(header);
    for f in &r.functions[..n] {
        t.row(timing_row(r, f));
    }
    t.render(out);
    let any_async = r.functions[..n].iter().any(|f| f.is_async);
    let any_sampled = r.functions[..n].iter().any(|f| f.sampled);
    if any_async {
        let _ = writeln!(
            out,
            "(async): Total is wall time from first poll to Ready; Self is poll time minus measured children"
        );
    }
    if any_sampled {
        let _ = writeln!(
            out,
            "*: times measured on a sample of calls; totals scaled to all calls"
        );
    }
    if r.functions[..n].iter().any(|f| f.wall_ns.is_none()) {
        let _ = writeln!(out, "-: calls counted, none timed (time sampling rate 0)");
    }
}

fn timing_row(r: &Report, f: &Function) -> Vec<String> {
    let mut name = f.display_name().to_string();
    if f.is_async {
        name.push_str(" (async)");
    }
    if f.sampled {
        name.push_str(" *");
    }
    let mut row = vec![name, count(f.calls)];
    match &f.wall_ns {
        Some(w) => {
            row.push(duration(w.mean));
            for p in &r.percentiles {
                row.push(
                    w.percentiles
                        .get(*p)
                        .map(duration)
                        .unwrap_or_else(|| "-".into()),
                );
            }
            row.push(duration(w.total));
            row.push(duration(w.self_));
            row.push(percent(w.total as f64, r.elapsed_ns as f64));
        }
        None => {
            row.extend(std::iter::repeat_n(
                "-".to_string(),
                r.percentiles.len() + 4,
            ));
        }
    }
    row
}

/// `-1.50 KiB` for negative byte counts.
fn signed_bytes(b: i64) -> String {
    if b < 0 {
        format!("-{}", bytes(b.unsigned_abs()))
    } else {
        bytes(b as u64)
    }
}

fn alloc(r: &Report, limit: usize, out: &mut String) {
    let measured = r.functions.iter().filter(|f| f.alloc.is_some()).count();
    let mut rows: Vec<(&Function, &FunctionAlloc)> = r
        .functions
        .iter()
        .filter_map(|f| Some((f, f.alloc.as_ref()?)))
        .filter(|(_, a)| a.count > 0 || a.freed_bytes > 0)
        .collect();
    rows.sort_by(|a, b| b.1.bytes.cmp(&a.1.bytes).then(b.1.count.cmp(&a.1.count)));
    let n = take(limit, rows.len());
    let quiet = measured - rows.len();
    let _ = write!(
        out,
        "alloc: allocations per function, by total bytes {}",
        shown(n, rows.len())
    );
    if quiet > 0 {
        let _ = write!(out, "; {quiet} more allocated and freed nothing");
    }
    out.push('\n');
    let mut header = vec![
        "Function".to_string(),
        "Calls".into(),
        "Allocs/call".into(),
        "Bytes/call".into(),
    ];
    header.extend(
        r.percentiles
            .iter()
            .map(|p| format!("P{}", percentile_label(*p))),
    );
    header.extend([
        "Total bytes".into(),
        "Self bytes".into(),
        "Retained".into(),
        "% Total".into(),
    ]);
    let mut t = Table::new(header);
    let all = r.alloc_total.as_ref().map_or(0, |a| a.bytes) as f64;
    for (f, a) in &rows[..n] {
        let mut name = f.display_name().to_string();
        if f.is_async {
            name.push_str(" (async)");
        }
        if f.sampled {
            name.push_str(" *");
        }
        let mut row = vec![
            name,
            count(f.calls),
            per_call(a.per_call_count),
            bytes(a.per_call_bytes),
        ];
        for p in &r.percentiles {
            row.push(
                a.percentiles
                    .get(*p)
                    .map(bytes)
                    .unwrap_or_else(|| "-".into()),
            );
        }
        row.push(bytes(a.bytes));
        row.push(bytes(a.self_bytes));
        row.push(signed_bytes(a.retained_bytes));
        row.push(percent(a.bytes as f64, all));
        t.row(row);
    }
    if let Some(total) = &r.alloc_total {
        let mut row = vec![
            "(unattributed)".to_string(),
            "-".into(),
            "-".into(),
            "-".into(),
        ];
        row.extend(std::iter::repeat_n("-".to_string(), r.percentiles.len()));
        row.push(bytes(total.unattributed_bytes));
        row.push(bytes(total.unattributed_bytes));
        row.push(signed_bytes(
            total.unattributed_bytes as i64 - total.unattributed_freed_bytes as i64,
        ));
        row.push(percent(total.unattributed_bytes as f64, all));
        t.row(row);
    }
    t.render(out);
    if let Some(total) = &r.alloc_total {
        let _ = writeln!(
            out,
            "process: {} allocations, {} allocated, {} freed; Self bytes + (unattributed) = all bytes",
            count(total.count),
            bytes(total.bytes),
            bytes(total.freed_bytes)
        );
    }
}

fn cpu(r: &Report, limit: usize, out: &mut String) {
    let Some(info) = &r.cpu else {
        return;
    };
    let exact = info.mode == "exact";
    let mut rows: Vec<(&Function, &FunctionCpu)> = r
        .functions
        .iter()
        .filter_map(|f| Some((f, f.cpu.as_ref()?)))
        .collect();
    rows.sort_by(|a, b| {
        b.1.cpu_ns
            .cmp(&a.1.cpu_ns)
            .then(b.1.self_cpu_ns.cmp(&a.1.self_cpu_ns))
    });
    let n = take(limit, rows.len());
    let _ = writeln!(
        out,
        "cpu: CPU time and waiting per function, by CPU {}",
        shown(n, rows.len())
    );
    let mut header: Vec<String> = [
        "Function", "Calls", "Wall", "CPU", "Self CPU", "Wait", "CPU %",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if exact {
        header.extend(
            r.percentiles
                .iter()
                .map(|p| format!("P{}", percentile_label(*p))),
        );
        header.extend(["Vol sw".to_string(), "Invol sw".into()]);
    } else {
        header.push("Samples".into());
    }
    let mut t = Table::new(header);
    for (f, c) in &rows[..n] {
        let mut name = f.display_name().to_string();
        if f.is_async {
            name.push_str(" (async)");
        }
        let wall = f.wall_ns.as_ref().map_or(0, |w| w.total);
        let mut row = vec![
            name,
            count(f.calls),
            duration(wall),
            duration(c.cpu_ns),
            duration(c.self_cpu_ns),
            duration(c.wait_ns),
            format!("{:.1}%", 100.0 * c.cpu_share),
        ];
        if exact {
            for p in &r.percentiles {
                row.push(
                    c.percentiles
                        .get(*p)
                        .map(duration)
                        .unwrap_or_else(|| "-".into()),
                );
            }
            row.push(
                c.voluntary_switches
                    .map(count)
                    .unwrap_or_else(|| "-".into()),
            );
            row.push(
                c.involuntary_switches
                    .map(count)
                    .unwrap_or_else(|| "-".into()),
            );
        } else {
            row.push(c.samples.map(count).unwrap_or_else(|| "-".into()));
        }
        t.row(row);
    }
    let mut row = vec![
        "(unattributed)".to_string(),
        "-".into(),
        "-".into(),
        duration(info.unattributed_cpu_ns),
        duration(info.unattributed_cpu_ns),
        "-".into(),
        "-".into(),
    ];
    row.extend(std::iter::repeat_n(
        "-".to_string(),
        if exact { r.percentiles.len() + 2 } else { 1 },
    ));
    t.row(row);
    t.render(out);
    let _ = write!(out, "process CPU: {}", duration(info.process_cpu_ns));
    if let Some(sampled) = info.sampled_cpu_ns {
        let _ = write!(
            out,
            "; samples account for {} ({})",
            duration(sampled),
            percent(sampled as f64, info.process_cpu_ns as f64)
        );
    }
    out.push('\n');
    if let Some(why) = &info.hw_counters_unavailable {
        let _ = writeln!(out, "instructions and cycles not reported: {why}");
    }
}

fn io(r: &Report, limit: usize, out: &mut String) {
    let entries = r.io.as_deref().unwrap_or(&[]);
    let n = take(limit, entries.len());
    let _ = write!(
        out,
        "io: operations per stream, by bytes {}",
        shown(n, entries.len())
    );
    match r.io_time_sampling_rate {
        Some(rate) if rate <= 0.0 => {
            let _ = writeln!(out, "; count only, no operation timed");
        }
        Some(rate) if rate < 1.0 => {
            let _ = writeln!(
                out,
                "; {} of operations timed, every one counted",
                percent(rate, 1.0)
            );
        }
        _ => out.push('\n'),
    }
    let shown_entries = &entries[..n];
    let stats = |d: &super::model::IoDirection, row: &mut Vec<String>| {
        row.push(count(d.ops));
        row.push(bytes(d.bytes));
        row.push(d.rate_bytes_per_sec.map(rate).unwrap_or_else(|| "-".into()));
        row.push(d.mean_ns.map(duration).unwrap_or_else(|| "-".into()));
        for p in &r.percentiles {
            row.push(
                d.percentiles
                    .get(*p)
                    .map(duration)
                    .unwrap_or_else(|| "-".into()),
            );
        }
    };
    let header = |ops: &str| {
        let mut h: Vec<String> = ["Io", "Inst", ops, "Bytes", "Rate", "Avg"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        h.extend(
            r.percentiles
                .iter()
                .map(|p| format!("P{}", percentile_label(*p))),
        );
        h
    };
    // Rows that share a name (one site that wrapped two types, or one label at two
    // sites) are told apart by type, or by where they are when the types are the same.
    let names: Vec<String> = shown_entries
        .iter()
        .map(|e| {
            let twins = || entries.iter().filter(|o| o.name == e.name);
            if twins().nth(1).is_none() {
                e.name.clone()
            } else if twins()
                .filter(|o| o.type_name == e.type_name)
                .nth(1)
                .is_none()
            {
                format!("{} ({})", e.name, short_type(&e.type_name))
            } else {
                let file = e.file.rsplit(['/', '\\']).next().unwrap_or(&e.file);
                let mut same = twins()
                    .filter(|o| o.type_name == e.type_name && o.file == e.file && o.line == e.line);
                match same.clone().nth(1) {
                    None => format!("{} ({file}:{})", e.name, e.line),
                    // Two `io!` on one line: numbered in the order they are listed.
                    Some(_) => {
                        let k = same.position(|o| std::ptr::eq(o, e)).unwrap_or(0) + 1;
                        format!("{} (#{k})", e.name)
                    }
                }
            }
        })
        .collect();
    let mut tables = 0;
    if shown_entries.iter().any(|e| e.read.ops + e.read.errors > 0) {
        let mut t = Table::new([header("Reads"), vec!["Errors".into()]].concat());
        for (e, name) in shown_entries.iter().zip(&names) {
            if e.read.ops + e.read.errors == 0 {
                continue;
            }
            let mut row = vec![name.clone(), count(e.instances)];
            stats(&e.read, &mut row);
            row.push(count(e.read.errors));
            t.row(row);
        }
        t.render(out);
        tables += 1;
    }
    let writes = |e: &super::model::IoEntry| {
        e.write.ops + e.flush.ops + e.write.errors + e.flush.errors + e.shutdown.errors
    };
    if shown_entries.iter().any(|e| writes(e) > 0) {
        if tables > 0 {
            out.push('\n');
        }
        let mut t =
            Table::new([header("Writes"), vec!["Flushes".into(), "Errors".into()]].concat());
        for (e, name) in shown_entries.iter().zip(&names) {
            if writes(e) == 0 {
                continue;
            }
            let mut row = vec![name.clone(), count(e.instances)];
            stats(&e.write, &mut row);
            row.push(count(e.flush.ops));
            row.push(count(e.write.errors + e.flush.errors + e.shutdown.errors));
            t.row(row);
        }
        t.render(out);
    }
    let seeks: u64 = entries.iter().map(|e| e.seek.ops).sum();
    let seek_errors: u64 = entries.iter().map(|e| e.seek.errors).sum();
    let shutdowns: u64 = entries.iter().map(|e| e.shutdown.ops).sum();
    let mut also = Vec::new();
    if seeks + seek_errors > 0 {
        also.push(match seek_errors {
            0 => format!("{} seeks", count(seeks)),
            e => format!("{} seeks ({} failed)", count(seeks + e), count(e)),
        });
    }
    if shutdowns > 0 {
        also.push(format!("{} shutdowns", count(shutdowns)));
    }
    if !also.is_empty() {
        let _ = writeln!(
            out,
            "also: {}; per stream in the JSON report",
            also.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "Rate: bytes / time inside the operations (the speed of one operation while it runs)"
    );
    let mut by_fn: Vec<&Function> = r.functions.iter().filter(|f| f.io.is_some()).collect();
    if !by_fn.is_empty() {
        by_fn.sort_by_key(|f| std::cmp::Reverse(f.io.as_ref().map_or(0, |i| i.io_ns)));
        let k = take(limit, by_fn.len());
        out.push('\n');
        let _ = writeln!(
            out,
            "io by function: operations made while it was the innermost measured function {}",
            shown(k, by_fn.len())
        );
        let mut t = Table::new(vec![
            "Function".into(),
            "Read".into(),
            "Written".into(),
            "Time in I/O".into(),
            "% of wall".into(),
        ]);
        for f in &by_fn[..k] {
            let io = f.io.as_ref().expect("filtered");
            let wall = f.wall_ns.as_ref().map_or(0, |w| w.total);
            t.row(vec![
                f.display_name().to_string(),
                bytes(io.read_bytes),
                bytes(io.write_bytes),
                duration(io.io_ns),
                percent(io.io_ns as f64, wall as f64),
            ]);
        }
        t.render(out);
    }
}

/// `std::io::BufReader<std::fs::File>` -> `BufReader<File>`: the last path segment of
/// every type in a type name.
fn short_type(full: &str) -> String {
    let mut out = String::with_capacity(full.len());
    let mut word = String::new();
    for c in full.chars() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            word.push(c);
        } else {
            out.push_str(word.rsplit("::").next().unwrap_or(&word));
            word.clear();
            out.push(c);
        }
    }
    out.push_str(word.rsplit("::").next().unwrap_or(&word));
    out
}
