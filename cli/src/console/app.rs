//! The console's state, without a terminal: what was fetched, which tab, view, sort and
//! row are chosen, and what the status line says. Keys and fetch results change it;
//! [`super::ui::draw`] only reads it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hotpath_report::{format, Group, ProfilerStatus, Report};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

pub use super::tables::View;
use super::tables::{self, Source, Table};
use super::trend::Trend;
use crate::client;

/// The tabs, switched with Tab, Shift-Tab or 1 to 5.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    /// Per-function tables: timing, memory, CPU.
    Functions,
    /// Per-stream I/O, and I/O per function.
    Io,
    /// Channels, streams, futures, and locks (mutexes, read-write locks).
    DataFlow,
    /// Threads of the program.
    Threads,
    /// Debug values.
    Debug,
}

impl Tab {
    /// Every tab, in the order shown.
    pub const ALL: [Tab; 5] = [
        Tab::Functions,
        Tab::Io,
        Tab::DataFlow,
        Tab::Threads,
        Tab::Debug,
    ];

    /// The name on the tab bar.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Functions => "Functions",
            Tab::Io => "I/O",
            Tab::DataFlow => "Data flow",
            Tab::Threads => "Threads",
            Tab::Debug => "Debug",
        }
    }

    /// The report's group of sections the tab shows.
    pub fn group(self) -> Group {
        match self {
            Tab::Functions => Group::Functions,
            Tab::Io => Group::Io,
            Tab::DataFlow => Group::DataFlow,
            Tab::Threads => Group::Threads,
            Tab::Debug => Group::Debug,
        }
    }

    /// The views of the tab, switched with ← and →: those of its group's sections, in
    /// the order of [`View::ALL`].
    pub fn views(self) -> Vec<View> {
        View::ALL
            .into_iter()
            .filter(|v| v.section().group() == self.group())
            .collect()
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// What the event loop does after a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Keep running.
    Continue,
    /// Restore the terminal and exit.
    Quit,
}

/// One good answer of the program: `/profiler_status` and `/report`.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The program and what it collects.
    pub status: ProfilerStatus,
    /// The report so far.
    pub report: Report,
}

/// The outcome of one refresh, made on the fetch thread.
#[derive(Debug)]
pub struct FetchResult {
    /// When the fetch finished.
    pub at: SystemTime,
    /// The data, or why there is none.
    pub outcome: Result<Snapshot, client::Error>,
}

/// The column a table is sorted by, and the direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sort {
    /// Index of the column, 0 being the name.
    pub column: usize,
    /// Largest (or Z) first.
    pub descending: bool,
}

/// How the status line reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// No answer yet.
    Waiting,
    /// The last refresh succeeded.
    Connected,
    /// The program went away; the data shown is from the last good refresh.
    Stale,
    /// The last refresh failed for another reason (token, version, route).
    Error,
}

/// The status line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// Its colour.
    pub level: Level,
    /// Its text.
    pub text: String,
}

/// Per view: the chosen sort, the selected row (by position and by identity, so that
/// it follows its row when a refresh reorders the table) and the first row shown.
#[derive(Clone, Debug, Default)]
struct Selection {
    sort: Option<Sort>,
    selected: usize,
    offset: usize,
    id: Option<String>,
}

/// The whole console state.
#[derive(Debug)]
pub struct App {
    host: String,
    port: u16,
    addr: String,
    data: Option<(Snapshot, SystemTime)>,
    error: Option<(client::Error, SystemTime)>,
    now: SystemTime,
    tab: Tab,
    view_in_tab: [usize; Tab::ALL.len()],
    selections: [Selection; View::ALL.len()],
    inspect: bool,
    page: usize,
    trend: Trend,
}

impl App {
    /// A console for the metrics server at `host:port`, before any answer.
    pub fn new(host: &str, port: u16) -> App {
        App {
            host: host.to_string(),
            port,
            addr: client::addr(host, port),
            data: None,
            error: None,
            now: UNIX_EPOCH,
            tab: Tab::Functions,
            view_in_tab: [0; Tab::ALL.len()],
            selections: Default::default(),
            inspect: false,
            page: 10,
            trend: Trend::default(),
        }
    }

    /// Takes a refresh: new data replaces the old, an error keeps the last good data.
    pub fn update(&mut self, result: FetchResult) {
        self.now = self.now.max(result.at);
        match result.outcome {
            Ok(snapshot) => {
                self.trend
                    .record(snapshot.status.pid, &snapshot.report, tables::function_id);
                self.data = Some((snapshot, result.at));
                self.error = None;
                for view in View::ALL {
                    self.follow_selection(view);
                }
            }
            Err(e) => self.error = Some((e, result.at)),
        }
    }

    /// Sets the clock that "ago" is measured against.
    pub fn tick(&mut self, now: SystemTime) {
        self.now = now;
    }

    /// Sets how many rows the table shows, for PgUp and PgDn.
    pub fn set_page(&mut self, rows: usize) {
        self.page = rows.max(1);
        let view = self.view();
        let page = self.page;
        let s = &mut self.selections[view.index()];
        s.offset = clamp_offset(s.offset, s.selected, page);
    }

    /// Handles one key press.
    pub fn handle_key(&mut self, key: KeyEvent) -> Control {
        if key.kind == KeyEventKind::Release {
            return Control::Continue;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL) {
            return match key.code {
                KeyCode::Char('c') => Control::Quit,
                _ => Control::Continue,
            };
        }
        match key.code {
            KeyCode::Char('q') => return Control::Quit,
            KeyCode::Esc if self.inspect => self.inspect = false,
            KeyCode::Esc => return Control::Quit,
            KeyCode::Tab => self.tab = Tab::ALL[(self.tab.index() + 1) % Tab::ALL.len()],
            KeyCode::BackTab => {
                self.tab = Tab::ALL[(self.tab.index() + Tab::ALL.len() - 1) % Tab::ALL.len()]
            }
            KeyCode::Char(c @ '1'..='9') if (c as usize - '1' as usize) < Tab::ALL.len() => {
                self.tab = Tab::ALL[c as usize - '1' as usize]
            }
            KeyCode::Left | KeyCode::Char('h') => self.switch_view(-1),
            KeyCode::Right | KeyCode::Char('l') => self.switch_view(1),
            KeyCode::Up | KeyCode::Char('k') => self.move_by(-1),
            KeyCode::Down | KeyCode::Char('j') => self.move_by(1),
            KeyCode::PageUp => self.move_by(-(self.page as isize)),
            KeyCode::PageDown => self.move_by(self.page as isize),
            KeyCode::Home | KeyCode::Char('g') => self.move_by(isize::MIN),
            KeyCode::End | KeyCode::Char('G') => self.move_by(isize::MAX),
            KeyCode::Char('s') => self.cycle_sort(1),
            KeyCode::Char('S') => self.cycle_sort(-1),
            KeyCode::Char('r') => self.reverse_sort(),
            KeyCode::Enter | KeyCode::Char('i') => self.inspect = !self.inspect,
            _ => {}
        }
        Control::Continue
    }

    /// `host:port` of the metrics server.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// The tab shown.
    pub fn tab(&self) -> Tab {
        self.tab
    }

    /// The view shown.
    pub fn view(&self) -> View {
        self.tab.views()[self.view_in_tab[self.tab.index()]]
    }

    /// Whether the inspect pane is open.
    pub fn inspecting(&self) -> bool {
        self.inspect
    }

    /// Index of the selected row in the view's sorted table.
    pub fn selected(&self) -> usize {
        self.selections[self.view().index()].selected
    }

    /// First row of the table on screen.
    pub fn offset(&self) -> usize {
        self.selections[self.view().index()].offset
    }

    /// The sort of the view shown: the user's, or the exit report's.
    pub fn sort(&self) -> Option<Sort> {
        self.table().map(|t| self.sort_of(self.view(), &t))
    }

    /// The first cell of every row of the view, in the order shown.
    pub fn row_names(&self) -> Vec<String> {
        self.table()
            .map(|t| t.rows.into_iter().map(|r| r.cells[0].clone()).collect())
            .unwrap_or_default()
    }

    /// The last good data and when it came.
    pub fn snapshot(&self) -> Option<(&Snapshot, SystemTime)> {
        self.data.as_ref().map(|(s, at)| (s, *at))
    }

    /// What the status line says.
    pub fn status(&self) -> Status {
        let stale = self.data.as_ref().map(|(_, at)| {
            format!(
                "showing the data from {} ({} ago)",
                clock(*at),
                span(self.now.duration_since(*at).unwrap_or_default())
            )
        });
        let (level, text) = match (&self.error, &self.data) {
            (None, None) => (Level::Waiting, format!("connecting to {} …", self.addr)),
            (None, Some((_, at))) => (
                Level::Connected,
                format!("connected to {}, refreshed {}", self.addr, clock(*at)),
            ),
            (Some((client::Error::Unreachable { reason, .. }, _)), None) => (
                Level::Error,
                format!(
                    "cannot reach {} ({reason}): is the program running with {}?",
                    self.addr,
                    self.env_hint()
                ),
            ),
            (Some((client::Error::Unreachable { reason, .. }, _)), Some(_)) => (
                Level::Stale,
                format!(
                    "the program has exited or stopped answering ({reason}); {}",
                    stale.unwrap_or_default()
                ),
            ),
            (Some((e, _)), _) => (
                Level::Error,
                match stale {
                    Some(s) => format!("{e}; {s}"),
                    None => e.to_string(),
                },
            ),
        };
        Status { level, text }
    }

    /// The environment the program needs for the console to find it.
    fn env_hint(&self) -> String {
        let port = format!("HOTPATH_METRICS_PORT={}", self.port);
        match self.host.as_str() {
            "127.0.0.1" | "localhost" | "::1" => port,
            host => format!("HOTPATH_METRICS_HOST={host} {port}"),
        }
    }

    /// The view's table, sorted; `None` before the first answer.
    pub(crate) fn table(&self) -> Option<Table> {
        self.table_of(self.view())
    }

    fn table_of(&self, view: View) -> Option<Table> {
        let (snap, _) = self.data.as_ref()?;
        let mut t = tables::build(view, &snap.report, Some(&snap.status), &self.trend);
        let sort = self.sort_of(view, &t);
        t.sort(sort.column, sort.descending);
        Some(t)
    }

    fn sort_of(&self, view: View, t: &Table) -> Sort {
        match self.selections[view.index()].sort {
            Some(s) if s.column < t.columns.len() => s,
            _ => Sort {
                column: t.default_sort,
                descending: !t.columns[t.default_sort].text,
            },
        }
    }

    /// Where the selected row's data is.
    pub(crate) fn selected_source(&self) -> Option<Source> {
        let t = self.table()?;
        t.rows.get(self.selected()).map(|r| r.source)
    }

    fn switch_view(&mut self, step: isize) {
        let n = self.tab.views().len() as isize;
        let i = &mut self.view_in_tab[self.tab.index()];
        *i = (*i as isize + step).rem_euclid(n) as usize;
    }

    fn move_by(&mut self, step: isize) {
        let Some(t) = self.table() else { return };
        let page = self.page;
        let s = &mut self.selections[self.view().index()];
        let last = t.rows.len().saturating_sub(1);
        s.selected = (s.selected as isize)
            .saturating_add(step)
            .clamp(0, last as isize) as usize;
        s.id = t.rows.get(s.selected).map(|r| r.id.clone());
        s.offset = clamp_offset(s.offset, s.selected, page);
    }

    fn cycle_sort(&mut self, step: isize) {
        let Some(t) = self.table() else { return };
        let view = self.view();
        let current = self.sort_of(view, &t);
        let n = t.columns.len() as isize;
        let column = (current.column as isize + step).rem_euclid(n) as usize;
        self.selections[view.index()].sort = Some(Sort {
            column,
            descending: !t.columns[column].text,
        });
        self.follow_selection(view);
    }

    fn reverse_sort(&mut self) {
        let Some(t) = self.table() else { return };
        let view = self.view();
        let current = self.sort_of(view, &t);
        self.selections[view.index()].sort = Some(Sort {
            descending: !current.descending,
            ..current
        });
        self.follow_selection(view);
    }

    /// After the rows changed order or number: finds the selected row again, or keeps
    /// the position within the table.
    fn follow_selection(&mut self, view: View) {
        let Some(t) = self.table_of(view) else { return };
        let page = self.page;
        let s = &mut self.selections[view.index()];
        let found =
            s.id.as_ref()
                .and_then(|id| t.rows.iter().position(|r| &r.id == id));
        s.selected = found.unwrap_or(s.selected.min(t.rows.len().saturating_sub(1)));
        s.id = t.rows.get(s.selected).map(|r| r.id.clone());
        s.offset = clamp_offset(s.offset, s.selected, page);
    }
}

/// The first row to show so that `selected` is on a page of `page` rows starting near
/// `offset`.
fn clamp_offset(offset: usize, selected: usize, page: usize) -> usize {
    if selected < offset {
        selected
    } else if selected >= offset + page {
        selected + 1 - page
    } else {
        offset
    }
}

/// `14:02:11 UTC`. The console has no time-zone database, so it says UTC.
pub(crate) fn clock(t: SystemTime) -> String {
    let s = t.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs() % 86_400;
    format!("{:02}:{:02}:{:02} UTC", s / 3600, s / 60 % 60, s % 60)
}

/// `35.2 s`, `2 min 05 s`, `1 h 02 min`.
pub(crate) fn span(d: Duration) -> String {
    let s = d.as_secs();
    if s < 60 {
        format::duration(d.as_nanos() as u64)
    } else if s < 3600 {
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        format!("{} h {:02} min", s / 3600, s / 60 % 60)
    }
}
