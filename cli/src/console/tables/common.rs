//! What the console's tables share: the table of a view (its columns, rows with their
//! cells and sort keys, footer, or why it is empty), where a row's data is in the report,
//! and the ids that keep a selection on its row across refreshes.

use std::cmp::Ordering;

use hotpath_report::columns::Columns;
pub(crate) use hotpath_report::columns::Key;
use hotpath_report::{Function, ProfilerStatus, Section};

/// Where a row's data lives in the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// `report.functions[i]`.
    Function(usize),
    /// `report.io[i]`.
    Io(usize),
    /// `report.threads[i]`.
    Thread(usize),
    /// `report.mutexes[i]`.
    Mutex(usize),
    /// `report.rw_locks[i]`, one of its modes (`read`, `write`, `upgradable`).
    RwLock(usize, &'static str),
    /// `report.debug[i]`.
    Debug(usize),
    /// `report.channels[i]`.
    Channel(usize),
    /// `report.streams[i]`.
    Stream(usize),
    /// `report.futures[i]`.
    Future(usize),
    /// `report.stacks[i]`.
    Stack(usize),
    /// `report.sql[i]`.
    Sql(usize),
    /// `report.http[i]`.
    Http(usize),
    /// `report.server[i]`.
    Server(usize),
    /// The `i`-th worker row of `report.tokio`.
    Tokio(usize),
}

/// One column: its title and whether it holds text (left-aligned, sorted A to Z first)
/// or numbers (right-aligned, sorted largest first).
#[derive(Clone, Debug)]
pub(crate) struct Column {
    pub title: String,
    pub text: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Row {
    /// Stays the same across refreshes, so the selection follows the row.
    pub id: String,
    pub source: Source,
    pub cells: Vec<String>,
    pub keys: Vec<Key>,
}

/// A view's table, built from one report.
#[derive(Clone, Debug)]
pub(crate) struct Table {
    /// What the table shows, e.g. `timing: wall time per function`.
    pub title: &'static str,
    pub columns: Vec<Column>,
    /// The column sorted by until the user picks another, as in the exit report.
    pub default_sort: usize,
    pub rows: Vec<Row>,
    /// Lines under the table: totals of the process, what a column means.
    pub footer: Vec<String>,
    /// Why there are no rows, when the section is missing or empty.
    pub empty: Option<String>,
}

impl Table {
    /// A table with the console's columns of `cols` and no rows, sorted by the column
    /// titled `sort` until the user picks another (the exit report's order).
    pub(crate) fn new<R>(title: &'static str, cols: &Columns<'_, R>, sort: &str) -> Table {
        let mut t = Table {
            title,
            columns: cols
                .iter()
                .filter(|c| c.show.in_console())
                .map(|c| Column {
                    title: c.title.clone(),
                    text: c.text,
                })
                .collect(),
            default_sort: 0,
            rows: Vec::new(),
            footer: Vec::new(),
            empty: None,
        };
        t.sort_by_title(sort);
        t
    }

    /// Adds a row: its cells in the console's columns of `cols`.
    pub(crate) fn push<R>(&mut self, cols: &Columns<'_, R>, id: String, source: Source, row: &R) {
        let (cells, keys) = cols
            .iter()
            .filter(|c| c.show.in_console())
            .map(|c| {
                let cell = c.cell(row);
                (cell.text, cell.key)
            })
            .unzip();
        self.rows.push(Row {
            id,
            source,
            cells,
            keys,
        });
    }

    /// Adds `rows`, each with the id and source `row` gives it, when the report has the
    /// section (`present`) and there are rows; else says why the view is empty (`why`,
    /// usually [`missing`]) and adds none. Whether the rows were added.
    pub(crate) fn fill<R>(
        &mut self,
        cols: &Columns<'_, R>,
        rows: &[R],
        present: bool,
        row: impl Fn(usize, &R) -> (String, Source),
        why: impl FnOnce() -> String,
    ) -> bool {
        if !present || rows.is_empty() {
            self.empty = Some(why());
            return false;
        }
        for (i, r) in rows.iter().enumerate() {
            let (id, source) = row(i, r);
            self.push(cols, id, source, r);
        }
        true
    }

    pub(crate) fn insert_columns(&mut self, at: usize, titles: impl IntoIterator<Item = String>) {
        let new: Vec<Column> = titles
            .into_iter()
            .map(|title| Column { title, text: false })
            .collect();
        self.columns.splice(at..at, new);
    }

    fn sort_by_title(&mut self, title: &str) {
        self.default_sort = self
            .columns
            .iter()
            .position(|c| c.title == title)
            .expect("the default sort column exists");
    }

    /// Sorts the rows by `column`, keeping the report's order among equal values.
    pub(crate) fn sort(&mut self, column: usize, descending: bool) {
        if column >= self.columns.len() {
            return;
        }
        self.rows.sort_by(|a, b| {
            let (ka, kb) = (&a.keys[column], &b.keys[column]);
            let ord = match (ka, kb) {
                (Key::Missing, Key::Missing) => return Ordering::Equal,
                (Key::Missing, _) => return Ordering::Greater,
                (_, Key::Missing) => return Ordering::Less,
                (Key::Num(x), Key::Num(y)) => x.total_cmp(y),
                (Key::Text(x), Key::Text(y)) => x.cmp(y),
                (Key::Num(_), Key::Text(_)) => Ordering::Less,
                (Key::Text(_), Key::Num(_)) => Ordering::Greater,
            };
            if descending {
                ord.reverse()
            } else {
                ord
            }
        });
    }
}

/// Why the table of `section` has no rows: `not_yet` when the program has made none so
/// far, else what [`missing`] says, `HOTPATH_REPORT` being what may leave it out.
pub(crate) fn not_yet(section: Section, status: Option<&ProfilerStatus>, not_yet: &str) -> String {
    missing(
        section,
        status,
        not_yet,
        &format!("HOTPATH_REPORT leaves {section} out"),
    )
}

/// Why `section` is not in the report, and what adds it.
pub(crate) fn missing(
    section: Section,
    status: Option<&ProfilerStatus>,
    not_yet: &str,
    left_out: &str,
) -> String {
    let needs = section.features();
    let built = |s: &ProfilerStatus| {
        needs.is_empty() || needs.iter().any(|f| s.features.iter().any(|g| g == f))
    };
    match status {
        Some(s) if !built(s) => format!(
            "no {section} section: the program was built without the Cargo feature {} \
             (cargo run --features {})",
            section.features_text().unwrap_or_default(),
            needs[0]
        ),
        Some(s) if !s.sections.contains(&section) => {
            format!("no {section} section: {left_out}")
        }
        Some(_) => format!("no {section} section yet: {not_yet}"),
        None => format!(
            "no {section} section: it needs the Cargo feature {}",
            section.features_text().unwrap_or_else(|| "hotpath".into())
        ),
    }
}

pub(crate) fn function_id(f: &Function) -> String {
    format!("{}\0{}\0{}:{}", f.name, f.display_name(), f.file, f.line)
}

/// The id of a call site's row: its name, place and type.
pub(crate) fn site_id(name: &str, file: &str, line: u32, type_name: &str) -> String {
    format!("{name}\0{file}:{line}\0{type_name}")
}

pub(crate) fn dash() -> String {
    "-".into()
}
