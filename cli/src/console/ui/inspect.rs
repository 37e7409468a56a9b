//! The inspect pane: every number of the selected row that its table leaves out, drawn
//! by hand for each kind of row (a function's columns of details, an I/O entry's
//! directions, a lock's holders, ...).

use hotpath_report::columns;
use hotpath_report::format::{bytes, count, duration, percent, signed_bytes};
use hotpath_report::{
    ChannelEntry, DebugEntry, Function, FutureEntry, IoEntry, Report, Section, StreamEntry,
    ThreadRow,
};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Style, Stylize};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Cell, Paragraph, Row, Table, Wrap};
use ratatui::Frame;

use super::layout::GAP;
use crate::console::app::App;
use crate::console::tables::Source;

/// Lines the inspect pane needs for the selected row, without its border.
pub(crate) fn inspect_lines(app: &App) -> Option<usize> {
    let (snap, _) = app.snapshot()?;
    let r = &snap.report;
    let source = app.selected_source()?;
    Some(match source {
        Source::Function(i) => function_columns(r, &r.functions[i])
            .iter()
            .map(Vec::len)
            .max()
            .unwrap_or(0),
        // The type line, a blank, the header and five directions.
        Source::Io(_) => 8,
        Source::Thread(_) => 4,
        Source::Channel(_) | Source::Stream(_) | Source::Future(_) => 7,
        Source::Stack(i) => stack_lines(r, i).len(),
        // The header and the holders.
        Source::Mutex(_) | Source::RwLock(..) => lock_mode(r, source)?.holders.len() + 1,
        Source::Debug(_) => 4,
        Source::Sql(_) | Source::Http(_) | Source::Server(_) | Source::Tokio(_) => 0,
    })
}

/// Draws the inspect pane of the selected row in `area`.
pub(crate) fn draw_inspect(frame: &mut Frame, area: Rect, app: &App) {
    let (Some((snap, _)), Some(source)) = (app.snapshot(), app.selected_source()) else {
        return;
    };
    let r = &snap.report;
    match source {
        Source::Function(i) => inspect_function(frame, area, r, &r.functions[i]),
        Source::Io(i) => inspect_io(frame, area, r, row(&r.io, i)),
        Source::Thread(i) => inspect_thread(frame, area, row(&r.threads, i)),
        Source::Channel(i) => inspect_channel(frame, area, row(&r.channels, i)),
        Source::Stream(i) => inspect_stream(frame, area, row(&r.streams, i)),
        Source::Future(i) => inspect_future(frame, area, row(&r.futures, i)),
        Source::Stack(i) => inspect_stack(frame, area, r, i),
        Source::Mutex(_) | Source::RwLock(..) => inspect_lock(frame, area, r, source),
        Source::Debug(i) => {
            if let Some(d) = r.debug.as_ref().and_then(|d| d.get(i)) {
                inspect_debug(frame, area, d);
            }
        }
        // Their tables hold every number they have.
        Source::Sql(_) | Source::Http(_) | Source::Server(_) | Source::Tokio(_) => {}
    }
}

/// Row `i` of a section: the table's rows come from the same report.
fn row<T>(rows: &Option<Vec<T>>, i: usize) -> &T {
    &rows
        .as_deref()
        .expect("a table's rows come from its section of the report")[i]
}

/// A channel entry: where and what, its messages and their waits.
fn inspect_channel(frame: &mut Frame, area: Rect, e: &ChannelEntry) {
    let lat = e.latency_ns.as_ref();
    let left = vec![
        kv("at", format!("{}:{}", e.file, e.line)),
        kv("message", e.type_name.clone()),
        kv("backend", e.backend.clone()),
        kv("kind", columns::channel_kind(e)),
        kv("instances", count(e.instances)),
        kv("sent", count(e.sent)),
        kv("received", count(e.received)),
    ];
    let right = vec![
        kv("send errors", count(e.send_errors)),
        kv("unread", count(e.unread)),
        kv("max depth", count(e.max_depth)),
        kv("lagged", count(e.lagged)),
        kv(
            "blocked",
            format!(
                "{} sends, {}",
                count(e.send_blocked.count),
                duration(e.send_blocked.total_ns)
            ),
        ),
        kv("latency avg", or_dash(lat.map(|d| d.mean), duration)),
        kv("latency max", or_dash(lat.map(|d| d.max), duration)),
    ];
    two_columns(frame, area, e.display_name().to_string(), left, right);
}

/// A stream entry: where and what, its instances, items and polls.
fn inspect_stream(frame: &mut Frame, area: Rect, e: &StreamEntry) {
    let first = e.first_item_ns.as_ref();
    let left = vec![
        kv("at", format!("{}:{}", e.file, e.line)),
        kv("item", e.type_name.clone()),
        kv("instances", count(e.instances)),
        kv("completed", count(e.completed)),
        kv("dropped", count(e.dropped)),
    ];
    let right = vec![
        kv("items", count(e.items)),
        kv("polls", count(e.polls)),
        kv("pending", count(e.pending)),
        kv("busy", duration(e.busy_ns)),
        kv("first item", or_dash(first.map(|d| d.mean), duration)),
    ];
    two_columns(frame, area, e.display_name().to_string(), left, right);
}

/// A future: where, its calls and how they ended, its polls and times.
fn inspect_future(frame: &mut Frame, area: Rect, e: &FutureEntry) {
    let life = e.lifetime_ns.as_ref();
    let left = vec![
        kv("at", format!("{}:{}", e.file, e.line)),
        kv("calls", count(e.calls)),
        kv("completed", count(e.completed)),
        kv("cancelled", count(e.cancelled)),
        kv("never polled", count(e.never_polled)),
    ];
    let right = vec![
        kv("polls", count(e.polls)),
        kv("lifetime avg", or_dash(life.map(|d| d.mean), duration)),
        kv("lifetime max", or_dash(life.map(|d| d.max), duration)),
        kv(
            "busy avg",
            or_dash(e.busy_ns.as_ref().map(|d| d.mean), duration),
        ),
    ];
    two_columns(frame, area, e.display_name().to_string(), left, right);
}

/// The inspect pane of a path: [`stack_lines`].
fn inspect_stack(frame: &mut Frame, area: Rect, r: &Report, i: usize) {
    let inner = pane(frame, area, "path".into());
    frame.render_widget(
        Paragraph::new(stack_lines(r, i)).wrap(Wrap { trim: false }),
        inner,
    );
}

/// A `dbg!`, `val!` or `gauge!` value: the last value, its updates and its place.
fn inspect_debug(frame: &mut Frame, area: Rect, d: &DebugEntry) {
    let inner = pane(frame, area, format!("{} {}", d.kind, d.key));
    let lines = vec![
        kv("value", d.value.clone()),
        kv("updates", count(d.updates)),
        kv("source", format!("{}:{}", d.file, d.line)),
    ];
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

/// A pane titled `title` with two columns of key-value lines.
fn two_columns(
    frame: &mut Frame,
    area: Rect,
    title: String,
    left: Vec<Line<'static>>,
    right: Vec<Line<'static>>,
) {
    let inner = pane(frame, area, title);
    let [a, b] = Layout::horizontal([Constraint::Fill(1), Constraint::Fill(1)])
        .spacing(GAP)
        .areas(inner);
    frame.render_widget(Paragraph::new(left), a);
    frame.render_widget(Paragraph::new(right), b);
}

/// The inspect pane of a path: the functions from the outermost, then its numbers.
fn stack_lines(r: &Report, i: usize) -> Vec<Line<'static>> {
    let Some(p) = r.stacks.as_ref().and_then(|s| s.get(i)) else {
        return Vec::new();
    };
    let mut lines: Vec<Line<'static>> = p
        .path
        .iter()
        .enumerate()
        .map(|(d, name)| Line::raw(format!("{}{name}", "  ".repeat(d))))
        .collect();
    let mut numbers = format!(
        "calls {}  total {}  self {}  {} of the run",
        count(p.calls),
        duration(p.total_ns),
        duration(p.self_ns),
        percent(p.total_ns as f64, r.elapsed_ns as f64)
    );
    if let (Some(c), Some(s)) = (p.cpu_ns, p.self_cpu_ns) {
        numbers.push_str(&format!("  cpu {}  self cpu {}", duration(c), duration(s)));
    }
    lines.push(Line::styled(numbers, Style::new().dim()));
    lines
}

/// The lock mode a mutex or rw-lock row stands for.
fn lock_mode(r: &Report, source: Source) -> Option<&hotpath_report::LockMode> {
    match source {
        Source::Mutex(i) => Some(&r.mutexes.as_ref()?.get(i)?.lock),
        Source::RwLock(i, mode) => r
            .rw_locks
            .as_ref()?
            .get(i)?
            .modes()
            .into_iter()
            .find(|(m, _)| *m == mode)
            .map(|(_, m)| m),
        _ => None,
    }
}

/// The functions that acquired the selected lock (mode), with their waits and holds.
fn inspect_lock(frame: &mut Frame, area: Rect, r: &Report, source: Source) {
    let Some(m) = lock_mode(r, source) else {
        return;
    };
    let title = match source {
        Source::Mutex(i) => r
            .mutexes
            .as_ref()
            .and_then(|v| v.get(i))
            .map_or(String::new(), |e| e.name.clone()),
        Source::RwLock(i, mode) => r
            .rw_locks
            .as_ref()
            .and_then(|v| v.get(i))
            .map_or(String::new(), |e| format!("{} ({mode})", e.name)),
        _ => String::new(),
    };
    let inner = pane(
        frame,
        area,
        format!("{title}: who acquired, waited and held"),
    );
    let mut lines = vec![Line::from(format!(
        "{:<40} {:>10} {:>10} {:>12} {:>12}",
        "function", "locks", "contended", "wait", "hold"
    ))
    .bold()];
    for h in &m.holders {
        lines.push(Line::from(format!(
            "{:<40} {:>10} {:>10} {:>12} {:>12}",
            h.function,
            count(h.acquisitions),
            count(h.contended),
            duration(h.wait_ns),
            duration(h.hold_ns)
        )));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// Draws the pane's border titled `title` over `area`; returns the area inside it.
fn pane(frame: &mut Frame, area: Rect, title: String) -> Rect {
    let block = Block::bordered()
        .title(Line::from(format!(" {title} ")).bold())
        .title_bottom(Line::from(" Esc/Enter close ").dim().right_aligned());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    inner
}

/// `key      value`, key dimmed.
fn kv(key: &str, value: String) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{key:<13}"), Style::new().dim()),
        Span::raw(value),
    ])
}

fn heading(s: &str) -> Line<'static> {
    Line::styled(s.to_string(), Style::new().bold().underlined())
}

fn or_dash<T>(v: Option<T>, f: impl Fn(T) -> String) -> String {
    v.map_or_else(|| "-".into(), f)
}

/// The function's details in columns: the call, wall time, allocations, CPU.
fn function_columns(r: &Report, f: &Function) -> Vec<Vec<Line<'static>>> {
    let mut call = vec![
        heading("call"),
        kv("label", f.label.clone().unwrap_or_else(|| "-".into())),
        kv("at", format!("{}:{}", f.file, f.line)),
        kv("calls", count(f.calls)),
        kv(
            "timed calls",
            if f.sampled {
                format!("{} (sampled)", count(f.timed_calls))
            } else {
                count(f.timed_calls)
            },
        ),
    ];
    if f.is_async {
        call.push(kv("polls", or_dash(f.polls, count)));
        call.push(kv("busy", or_dash(f.busy_ns, duration)));
        call.push(kv("cancelled", or_dash(f.cancelled, count)));
    } else {
        call.push(kv("kind", "sync".into()));
    }
    if let Some(io) = &f.io {
        call.push(Line::raw(""));
        call.push(heading(Section::Io.name()));
        call.push(kv("read", bytes(io.read_bytes)));
        call.push(kv("written", bytes(io.write_bytes)));
        call.push(kv("time in I/O", duration(io.io_ns)));
    }

    let mut wall = vec![heading("wall time")];
    match &f.wall_ns {
        Some(w) => {
            wall.push(kv("total", duration(w.total)));
            wall.push(kv("self", duration(w.self_)));
            wall.push(kv("% of run", percent(w.total as f64, r.elapsed_ns as f64)));
            wall.push(kv("mean", duration(w.mean)));
            wall.push(kv("min", duration(w.min)));
            for p in &r.percentiles {
                let key = columns::percentile_title(*p);
                wall.push(kv(&key, or_dash(w.percentiles.get(*p), duration)));
            }
            wall.push(kv("max", duration(w.max)));
        }
        None => wall.push(Line::raw("no call timed (sampling rate 0)")),
    }

    let mut alloc = vec![heading(Section::Alloc.name())];
    match &f.alloc {
        Some(a) => {
            alloc.push(kv("allocs", count(a.count)));
            alloc.push(kv("bytes", bytes(a.bytes)));
            alloc.push(kv("self allocs", count(a.self_count)));
            alloc.push(kv("self bytes", bytes(a.self_bytes)));
            alloc.push(kv("freed", bytes(a.freed_bytes)));
            alloc.push(kv("retained", signed_bytes(a.retained_bytes)));
            alloc.push(kv("allocs/call", format!("{:.2}", a.per_call_count)));
            alloc.push(kv("bytes/call", bytes(a.per_call_bytes)));
            for p in &r.percentiles {
                let key = columns::percentile_title(*p);
                alloc.push(kv(&key, or_dash(a.percentiles.get(*p), bytes)));
            }
        }
        None if r.has(Section::Alloc) => alloc.push(Line::raw("none timed")),
        None => alloc.push(Line::raw("needs hotpath-alloc").dim()),
    }

    let mut cpu = vec![heading(Section::Cpu.name())];
    match &f.cpu {
        Some(c) => {
            cpu.push(kv("cpu", duration(c.cpu_ns)));
            cpu.push(kv("self cpu", duration(c.self_cpu_ns)));
            cpu.push(kv("wait", duration(c.wait_ns)));
            cpu.push(kv("cpu share", format!("{:.1}%", 100.0 * c.cpu_share)));
            let optional = [
                ("samples", c.samples),
                ("voluntary sw", c.voluntary_switches),
                ("involunt. sw", c.involuntary_switches),
                ("instructions", c.instructions),
                ("cycles", c.cycles),
            ];
            for (k, v) in optional {
                if let Some(v) = v {
                    cpu.push(kv(k, count(v)));
                }
            }
            for (p, v) in &c.percentiles.0 {
                cpu.push(kv(&columns::percentile_title(*p), duration(*v)));
            }
        }
        None if r.has(Section::Cpu) => cpu.push(Line::raw("none timed")),
        None => cpu.push(Line::raw("needs hotpath-cpu").dim()),
    }
    vec![call, wall, alloc, cpu]
}

fn inspect_function(frame: &mut Frame, area: Rect, r: &Report, f: &Function) {
    let mut title = f.name.clone();
    if f.is_async {
        title.push_str(" (async)");
    }
    let inner = pane(frame, area, title);
    let columns = function_columns(r, f);
    let areas = Layout::horizontal([
        Constraint::Fill(1),
        Constraint::Length(27),
        Constraint::Length(27),
        Constraint::Length(27),
    ])
    .spacing(GAP)
    .split(inner);
    for (lines, a) in columns.into_iter().zip(areas.iter()) {
        frame.render_widget(Paragraph::new(Text::from(lines)), *a);
    }
}

fn inspect_io(frame: &mut Frame, area: Rect, r: &Report, e: &IoEntry) {
    let inner = pane(frame, area, e.name.clone());
    let [info, _, table] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Fill(1),
    ])
    .areas(inner);
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled("type ", Style::new().dim()),
            Span::raw(e.type_name.clone()),
            Span::styled("  at ", Style::new().dim()),
            Span::raw(format!("{}:{}", e.file, e.line)),
            Span::styled("  instances ", Style::new().dim()),
            Span::raw(count(e.instances)),
        ])),
        info,
    );
    let cols = columns::io_directions(r);
    let titles: Vec<String> = cols.iter().map(|c| c.title.clone()).collect();
    let rows: Vec<Vec<String>> = e
        .directions()
        .into_iter()
        .map(|d| cols.iter().map(|c| c.cell(&d).text).collect())
        .collect();
    let widths: Vec<Constraint> = (0..titles.len())
        .map(|i| {
            let w = rows
                .iter()
                .map(|r| r[i].chars().count())
                .chain([titles[i].chars().count()])
                .max()
                .unwrap_or(0);
            Constraint::Length(w as u16)
        })
        .collect();
    let right = |i: usize, s: String| {
        let line = Line::raw(s);
        Cell::from(if i == 0 { line } else { line.right_aligned() })
    };
    let header = Row::new(titles.into_iter().enumerate().map(|(i, s)| right(i, s)))
        .style(Style::new().bold());
    let body = rows
        .into_iter()
        .map(|r| Row::new(r.into_iter().enumerate().map(|(i, s)| right(i, s))));
    frame.render_widget(
        Table::new(body, widths).header(header).column_spacing(GAP),
        table,
    );
}

fn inspect_thread(frame: &mut Frame, area: Rect, th: &ThreadRow) {
    let left = vec![
        kv("state", th.state.clone()),
        kv("cpu avg", format!("{:.1}% of a core", th.cpu_percent_avg)),
        kv("cpu max", format!("{:.1}% of a core", th.cpu_percent_max)),
        kv(
            "profiler",
            if th.profiler {
                "yes: one of hotpath's own threads".into()
            } else {
                "no".into()
            },
        ),
    ];
    let right = vec![
        kv("user", duration(th.user_ns)),
        kv("system", duration(th.system_ns)),
        kv("allocated", or_dash(th.alloc_bytes, bytes)),
        kv("freed", or_dash(th.freed_bytes, bytes)),
    ];
    two_columns(
        frame,
        area,
        format!("{} ({})", th.name, th.tid),
        left,
        right,
    );
}
