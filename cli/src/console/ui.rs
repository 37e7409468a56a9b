//! Drawing the console from an [`App`]: a header with the program, a status line, the
//! tab and view bars, the sorted table, an optional inspect pane and the key help.
//!
//! Pure with respect to the app: the same state draws the same screen, which is what
//! the snapshot tests rely on.

use hotpath_report::columns;
use hotpath_report::format::{bytes, count, duration, percent, signed_bytes};
use hotpath_report::{percentile_label, Function, IoEntry, Report, Section, ThreadRow};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Cell, HighlightSpacing, Paragraph, Row, Table, TableState, Wrap};
use ratatui::Frame;

use super::app::{span, App, Level, Tab};
use super::tables::{self, Source};

/// Spaces between table columns.
const GAP: u16 = 2;

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, app: &App) {
    let [header, status, bar, body, help] = screen_areas(frame.area());
    frame.render_widget(header_lines(app), header);
    frame.render_widget(status_line(app), status);
    frame.render_widget(bar_line(app), bar);
    draw_body(frame, body, app);
    frame.render_widget(help_line(app), help);
}

/// Rows of data the table shows on a screen of `area`, for PgUp and PgDn.
pub fn table_rows(area: Rect, app: &App) -> usize {
    let [_, _, _, body, _] = screen_areas(area);
    match app.table() {
        Some(t) => body_areas(body, app, &t).table.height.saturating_sub(1) as usize,
        None => 1,
    }
}

/// Header (two lines), status, tab bar, body, help.
fn screen_areas(area: Rect) -> [Rect; 5] {
    Layout::vertical([
        Constraint::Length(2),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(1),
    ])
    .areas(area)
}

/// The program (caller, pid, hotpath version, uptime), then what it collects and how.
fn header_lines(app: &App) -> Paragraph<'static> {
    let mut first = vec![Span::styled("hotpath console", Style::new().bold())];
    let mut second = Vec::new();
    let dot = || Span::styled(" · ", Style::new().dim());
    match app.snapshot() {
        Some((snap, _)) => {
            let s = &snap.status;
            for part in [
                s.caller.clone(),
                format!("pid {}", s.pid),
                format!("hotpath {}", s.version),
                format!("up {}", span(std::time::Duration::from_nanos(s.uptime_ns))),
            ] {
                first.push(dot());
                first.push(Span::raw(part));
            }
            let mut parts = vec![format!("sections: {}", Section::join(&s.sections, ", "))];
            match (&s.cpu_mode, &s.cpu_source) {
                (Some(mode), Some(source)) => parts.push(format!("cpu: {mode}, {source}")),
                (Some(mode), None) => parts.push(format!("cpu: {mode}")),
                _ => {}
            }
            parts.push(format!("clock: {}", s.clock));
            if s.time_sampling_rate < 1.0 {
                parts.push(format!(
                    "time sampling: {}% of calls",
                    percentile_label(s.time_sampling_rate * 100.0)
                ));
            }
            for (i, part) in parts.into_iter().enumerate() {
                if i > 0 {
                    second.push(dot());
                }
                second.push(Span::raw(part));
            }
        }
        None => {
            first.push(dot());
            first.push(Span::raw(app.addr().to_string()));
        }
    }
    Paragraph::new(vec![Line::from(first), Line::from(second)])
}

fn status_line(app: &App) -> Paragraph<'static> {
    let status = app.status();
    let color = match status.level {
        Level::Waiting => Color::Cyan,
        Level::Connected => Color::Green,
        Level::Stale => Color::Yellow,
        Level::Error => Color::Red,
    };
    Paragraph::new(Line::from(vec![
        Span::styled("● ", Style::new().fg(color)),
        Span::styled(status.text, Style::new().fg(color)),
    ]))
}

/// `[1 Functions]  2 I/O  3 Data flow ...  ←/→  [Timing]  Memory  CPU`: the chosen tab and
/// view in brackets, so they show without colour too.
fn bar_line(app: &App) -> Paragraph<'static> {
    let chosen = Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD);
    let mut spans = Vec::new();
    for (i, tab) in Tab::ALL.iter().enumerate() {
        if *tab == app.tab() {
            spans.push(Span::styled(format!("[{} {}]", i + 1, tab.title()), chosen));
        } else {
            spans.push(Span::raw(format!(" {} {} ", i + 1, tab.title())));
        }
        spans.push(Span::raw(" "));
    }
    let views = app.tab().views();
    if views.len() > 1 {
        spans.push(Span::styled("  ←/→ ", Style::new().dim()));
        for v in views {
            if v == app.view() {
                spans.push(Span::styled(format!("[{}]", v.title()), chosen));
            } else {
                spans.push(Span::raw(format!(" {} ", v.title())));
            }
            spans.push(Span::raw(" "));
        }
    }
    Paragraph::new(Line::from(spans))
}

fn help_line(app: &App) -> Paragraph<'static> {
    let inspect = if app.inspecting() {
        "Enter/i/Esc close"
    } else {
        "Enter/i inspect"
    };
    let keys = [
        ("q", "quit"),
        ("Tab/1-5", "tab"),
        ("←/→", "view"),
        ("↑/↓ PgUp/PgDn Home/End", "select"),
        ("s/S", "sort column"),
        ("r", "reverse"),
    ];
    let mut spans = Vec::new();
    for (k, what) in keys {
        spans.push(Span::styled(k, Style::new().bold()));
        spans.push(Span::raw(format!(" {what}  ")));
    }
    let (k, what) = inspect.split_once(' ').expect("two words");
    spans.push(Span::styled(k, Style::new().bold()));
    spans.push(Span::raw(format!(" {what}")));
    Paragraph::new(Line::from(spans).style(Style::new().dim()))
}

struct BodyAreas {
    title: Rect,
    table: Rect,
    inspect: Rect,
    footer: Rect,
}

fn body_areas(body: Rect, app: &App, t: &tables::Table) -> BodyAreas {
    let [title, main, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(t.footer.len() as u16),
    ])
    .areas(body);
    let inspect_height = if app.inspecting() && t.empty.is_none() {
        inspect_lines(app).map_or(0, |n| n as u16 + 2)
    } else {
        0
    };
    // The table keeps its header and at least three rows.
    let inspect_height = inspect_height.min(main.height.saturating_sub(4));
    let [table, inspect] =
        Layout::vertical([Constraint::Fill(1), Constraint::Length(inspect_height)]).areas(main);
    BodyAreas {
        title,
        table,
        inspect,
        footer,
    }
}

fn draw_body(frame: &mut Frame, area: Rect, app: &App) {
    let Some(t) = app.table() else {
        let text = vec![
            Line::raw(""),
            Line::raw("No data yet."),
            Line::raw(""),
            Line::raw(
                "The console reads the metrics server of a program built with the hotpath \
                 feature and run with HOTPATH_METRICS_PORT set; the status line above says \
                 what happened.",
            ),
        ];
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    };
    let areas = body_areas(area, app, &t);
    let sort = app.sort().expect("a table has a sort");
    let marker = if sort.descending { "▼" } else { "▲" };

    // Every column as wide as its widest cell (the sorted title with its marker). The
    // name column takes what is left, at least 20 wide; columns that do not fit are left
    // out whole rather than shown as cut numbers.
    let natural: Vec<usize> = t
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let title = c.title.chars().count() + if i == sort.column { 2 } else { 0 };
            t.rows
                .iter()
                .map(|r| r.cells[i].chars().count())
                .chain([title])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let avail = areas.table.width.saturating_sub(2) as usize;
    let mut used = natural[0].min(20);
    let mut shown = 1;
    while shown < natural.len() && used + GAP as usize + natural[shown] <= avail {
        used += GAP as usize + natural[shown];
        shown += 1;
    }
    let mut title = vec![Span::styled(t.title, Style::new().bold())];
    if t.empty.is_none() {
        title.push(Span::raw(format!(
            ", by {} {marker} ({} rows)",
            t.columns[sort.column].title,
            t.rows.len()
        )));
    }
    if shown < t.columns.len() {
        title.push(Span::styled(
            format!("; {} columns off screen", t.columns.len() - shown),
            Style::new().fg(Color::Yellow),
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(title)), areas.title);
    frame.render_widget(
        Paragraph::new(
            t.footer
                .iter()
                .map(|l| Line::raw(l.clone()).dim())
                .collect::<Vec<_>>(),
        ),
        areas.footer,
    );
    if let Some(why) = &t.empty {
        frame.render_widget(
            Paragraph::new(vec![Line::raw(""), Line::raw(why.clone())]).wrap(Wrap { trim: true }),
            areas.table,
        );
        return;
    }

    let widths: Vec<Constraint> = natural[..shown]
        .iter()
        .enumerate()
        .map(|(i, w)| {
            if i == 0 {
                Constraint::Fill(1)
            } else {
                Constraint::Length(*w as u16)
            }
        })
        .collect();
    let header = Row::new(t.columns[..shown].iter().enumerate().map(|(i, c)| {
        let (title, style) = if i == sort.column {
            (
                format!("{} {marker}", c.title),
                Style::new().bold().underlined().fg(Color::Yellow),
            )
        } else {
            (c.title.clone(), Style::new().bold())
        };
        let line = Line::raw(title);
        Cell::from(if c.text { line } else { line.right_aligned() }).style(style)
    }));
    let rows = t.rows.iter().map(|r| {
        Row::new(r.cells[..shown].iter().enumerate().map(|(i, s)| {
            let line = Line::raw(s.clone());
            Cell::from(if t.columns[i].text {
                line
            } else {
                line.right_aligned()
            })
        }))
    });
    let table = Table::new(rows, widths)
        .header(header)
        .column_spacing(GAP)
        .highlight_symbol("> ")
        .highlight_spacing(HighlightSpacing::Always)
        .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED));
    let mut state = TableState::new()
        .with_offset(app.offset())
        .with_selected(Some(app.selected()));
    frame.render_stateful_widget(table, areas.table, &mut state);

    if areas.inspect.height > 0 {
        draw_inspect(frame, areas.inspect, app);
    }
}

/// Lines the inspect pane needs for the selected row, without its border.
fn inspect_lines(app: &App) -> Option<usize> {
    let (snap, _) = app.snapshot()?;
    let r = &snap.report;
    Some(match app.selected_source()? {
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
        Source::Mutex(_) | Source::RwLock(..) => lock_mode(r, source_of(app)?)?.holders.len() + 1,
        Source::Debug(_) => 4,
        Source::Sql(_) | Source::Http(_) | Source::Server(_) | Source::Tokio(_) => 0,
    })
}

fn draw_inspect(frame: &mut Frame, area: Rect, app: &App) {
    let (Some((snap, _)), Some(source)) = (app.snapshot(), app.selected_source()) else {
        return;
    };
    let r = &snap.report;
    match source {
        Source::Function(i) => inspect_function(frame, area, r, &r.functions[i]),
        Source::Io(i) => {
            let e = &r.io.as_ref().expect("io rows come from report.io")[i];
            inspect_io(frame, area, r, e);
        }
        Source::Thread(i) => {
            let th = &r
                .threads
                .as_ref()
                .expect("thread rows come from report.threads")[i];
            inspect_thread(frame, area, th);
        }
        Source::Channel(i) => {
            let e = &r
                .channels
                .as_ref()
                .expect("channel rows come from report.channels")[i];
            let lat = e.latency_ns.as_ref();
            let left = vec![
                kv("at", format!("{}:{}", e.file, e.line)),
                kv("message", e.type_name.clone()),
                kv("backend", e.backend.clone()),
                kv("kind", hotpath_report::columns::channel_kind(e)),
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
        Source::Stream(i) => {
            let e = &r
                .streams
                .as_ref()
                .expect("stream rows come from report.streams")[i];
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
        Source::Future(i) => {
            let e = &r
                .futures
                .as_ref()
                .expect("future rows come from report.futures")[i];
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
        Source::Stack(i) => {
            let block = pane("path".into());
            let inner = block.inner(area);
            frame.render_widget(block, area);
            frame.render_widget(
                Paragraph::new(stack_lines(r, i)).wrap(Wrap { trim: false }),
                inner,
            );
        }
        Source::Mutex(_) | Source::RwLock(..) => inspect_lock(frame, area, r, source),
        Source::Debug(i) => {
            if let Some(d) = r.debug.as_ref().and_then(|d| d.get(i)) {
                let block = pane(format!("{} {}", d.kind, d.key));
                let inner = block.inner(area);
                frame.render_widget(block, area);
                let lines = vec![
                    kv("value", d.value.clone()),
                    kv("updates", count(d.updates)),
                    kv("source", format!("{}:{}", d.file, d.line)),
                ];
                frame.render_widget(
                    Paragraph::new(lines).wrap(ratatui::widgets::Wrap { trim: false }),
                    inner,
                );
            }
        }
        // Their tables hold every number they have.
        Source::Sql(_) | Source::Http(_) | Source::Server(_) | Source::Tokio(_) => {}
    }
}

/// A pane titled `title` with two columns of key-value lines.
fn two_columns(
    frame: &mut Frame,
    area: Rect,
    title: String,
    left: Vec<Line<'static>>,
    right: Vec<Line<'static>>,
) {
    let block = pane(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
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

fn source_of(app: &App) -> Option<Source> {
    app.selected_source()
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
    let block = pane(format!("{title}: who acquired, waited and held"));
    let inner = block.inner(area);
    frame.render_widget(block, area);
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

fn pane(title: String) -> Block<'static> {
    Block::bordered()
        .title(Line::from(format!(" {title} ")).bold())
        .title_bottom(Line::from(" Esc/Enter close ").dim().right_aligned())
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
                let key = format!("P{}", percentile_label(*p));
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
                let key = format!("P{}", percentile_label(*p));
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
                cpu.push(kv(&format!("P{}", percentile_label(*p)), duration(*v)));
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
    let block = pane(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
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
    let block = pane(e.name.clone());
    let inner = block.inner(area);
    frame.render_widget(block, area);
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
    let block = pane(format!("{} ({})", th.name, th.tid));
    let inner = block.inner(area);
    frame.render_widget(block, area);
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
    let [a, b] = Layout::horizontal([Constraint::Fill(1), Constraint::Fill(1)])
        .spacing(GAP)
        .areas(inner);
    frame.render_widget(Paragraph::new(left), a);
    frame.render_widget(Paragraph::new(right), b);
}
