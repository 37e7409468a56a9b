//! Drawing the console from an [`App`]: a header with the program, a status line, the
//! tab and view bars, the sorted table, an optional inspect pane and the key help.
//!
//! Pure with respect to the app: the same state draws the same screen, which is what
//! the snapshot tests rely on.

use hotpath_report::{percentile_label, Section};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, HighlightSpacing, Paragraph, Row, Table, TableState, Wrap};
use ratatui::Frame;

use super::app::{span, App, Level, Tab};
use super::tables;

mod inspect;
mod layout;

use layout::GAP;

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
        inspect::inspect_lines(app).map_or(0, |n| n as u16 + 2)
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
        inspect::draw_inspect(frame, areas.inspect, app);
    }
}
