//! The column model every section's columns are built from ([`Column`], [`Cell`]), and
//! the helpers the sections' columns share: the function-name column, a row's wall time,
//! the rows of functions with a part, entries with the names that tell them apart.

use crate::format::{bytes, count, duration, twin_names, Twin};
use crate::model::{percentile_label, Function, Percentiles, Report};
use crate::model_dist::Distribution;

/// How a column's cells line up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Text: left-aligned, sorted A to Z first.
    Left,
    /// Numbers: right-aligned, sorted largest first.
    Right,
}

/// Which renderers show a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    /// The exit report and the console.
    Both,
    /// Only the exit report (the console has them in its inspect pane, so that its
    /// tables fit 120 columns).
    Exit,
    /// Only the console.
    Console,
}

impl Show {
    /// Whether a column shown this way is in the exit report.
    pub fn in_exit(self) -> bool {
        self != Show::Console
    }

    /// Whether a column shown this way is in the console.
    pub fn in_console(self) -> bool {
        self != Show::Exit
    }
}

/// The value a cell sorts by. Missing values ("-") sort last in either direction.
#[derive(Clone, Debug, PartialEq)]
pub enum Key {
    /// Sorted as text.
    Text(String),
    /// Sorted as a number.
    Num(f64),
    /// No value.
    Missing,
}

/// One cell: the text shown and the value it sorts by.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// The text shown.
    pub text: String,
    /// The value it sorts by.
    pub key: Key,
}

impl Cell {
    /// Text sorted by `key`.
    pub fn text(text: impl Into<String>, key: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            key: Key::Text(key.into()),
        }
    }

    /// Text sorted by the number `key`.
    pub fn num(text: String, key: f64) -> Cell {
        Cell {
            text,
            key: Key::Num(key),
        }
    }

    /// `-`, sorted last.
    pub fn missing() -> Cell {
        Cell {
            text: "-".into(),
            key: Key::Missing,
        }
    }

    /// A count, `1,234`.
    pub fn count(n: u64) -> Cell {
        Cell::num(count(n), n as f64)
    }

    /// A duration, `1.20 ms`.
    pub fn duration(ns: u64) -> Cell {
        Cell::num(duration(ns), ns as f64)
    }

    /// A size, `1.50 KiB`.
    pub fn bytes(b: u64) -> Cell {
        Cell::num(bytes(b), b as f64)
    }

    /// `f(v)` sorted by `v`, or `-`.
    pub fn opt(v: Option<u64>, f: fn(u64) -> String) -> Cell {
        v.map_or_else(Cell::missing, |v| Cell::num(f(v), v as f64))
    }
}

type CellFn<'a, R> = Box<dyn Fn(&R) -> Cell + 'a>;

/// One column of a table over rows of type `R`.
pub struct Column<'a, R> {
    /// The title in the header.
    pub title: String,
    /// How the cells line up.
    pub align: Align,
    /// Which renderers show it.
    pub show: Show,
    /// Whether it holds text (sorted A to Z first; the console aligns it left even when
    /// the exit report aligns it right).
    pub text: bool,
    cell: CellFn<'a, R>,
}

impl<R> std::fmt::Debug for Column<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Column")
            .field("title", &self.title)
            .field("align", &self.align)
            .field("show", &self.show)
            .finish()
    }
}

impl<'a, R> Column<'a, R> {
    fn new(title: impl Into<String>, align: Align, cell: impl Fn(&R) -> Cell + 'a) -> Self {
        Column {
            title: title.into(),
            align,
            show: Show::Both,
            text: align == Align::Left,
            cell: Box::new(cell),
        }
    }

    /// A right-aligned column.
    pub(crate) fn right(title: impl Into<String>, cell: impl Fn(&R) -> Cell + 'a) -> Self {
        Column::new(title, Align::Right, cell)
    }

    /// A left-aligned column.
    pub(crate) fn left(title: impl Into<String>, cell: impl Fn(&R) -> Cell + 'a) -> Self {
        Column::new(title, Align::Left, cell)
    }

    pub(crate) fn only(mut self, show: Show) -> Self {
        self.show = show;
        self
    }

    /// Marks a right-aligned column as holding text.
    pub(crate) fn text(mut self) -> Self {
        self.text = true;
        self
    }

    /// The cell of `row`.
    pub fn cell(&self, row: &R) -> Cell {
        (self.cell)(row)
    }
}

/// The columns of a table; keep those a renderer shows with [`Show::in_exit`] or
/// [`Show::in_console`].
pub type Columns<'a, R> = Vec<Column<'a, R>>;

/// `P50`, `P99.9`.
pub fn percentile_title(p: f64) -> String {
    format!("P{}", percentile_label(p))
}

/// One column per configured percentile, titled `P50`, `P99.9` after `prefix`: a row's
/// value at it in the percentiles `of` gives (`-` for a row without them), as `show`
/// writes it.
pub(crate) fn percentile_columns<'a, R: 'a>(
    r: &Report,
    prefix: &str,
    of: impl Fn(&R) -> Option<&Percentiles> + Copy + 'a,
    show: impl Fn(u64) -> String + Copy + 'a,
) -> Columns<'a, R> {
    r.percentiles
        .iter()
        .map(|&p| {
            Column::right(format!("{prefix}{}", percentile_title(p)), move |x: &R| {
                num_or_missing(of(x).and_then(|ps| ps.get(p)), show)
            })
        })
        .collect()
}

/// The columns of a distribution `d` reads from a row (`-` for a row without one): its
/// mean titled `avg`, then its percentiles titled after `prefix`, as `show` writes them.
pub(crate) fn dist_columns<'a, R: 'a, D: Distribution + 'static>(
    r: &Report,
    avg: impl Into<String>,
    prefix: &str,
    d: impl Fn(&R) -> Option<&D> + Copy + 'a,
    show: impl Fn(u64) -> String + Copy + 'a,
) -> Columns<'a, R> {
    let mut c = vec![Column::right(avg, move |x: &R| {
        num_or_missing(d(x).map(D::mean), show)
    })];
    c.extend(percentile_columns(
        r,
        prefix,
        move |x| d(x).map(D::percentiles),
        show,
    ));
    c
}

/// `show(v)` sorted by `v`, or `-`: [`Cell::opt`] for any way of writing the number.
fn num_or_missing(v: Option<u64>, show: impl Fn(u64) -> String) -> Cell {
    v.map_or_else(Cell::missing, |v| Cell::num(show(v), v as f64))
}

/// A function's name as tables show it: the label or name, ` (async)` for an async
/// function, ` (span)` for a `tracing` span, ` *` when its times come from a sample of its calls, and ` (running)` when
/// a call had not returned.
pub fn function_name(f: &Function) -> String {
    let mut name = f.display_name().to_string();
    if f.span {
        name.push_str(" (span)");
    } else if f.is_async {
        name.push_str(" (async)");
    }
    if f.sampled {
        name.push_str(" *");
    }
    if f.running.is_some() {
        name.push_str(" (running)");
    }
    name
}

pub(crate) fn name_column<'a, R: 'a>(
    title: &str,
    f: impl Fn(&R) -> &Function + 'a,
) -> Column<'a, R> {
    Column::left(title.to_string(), move |r| {
        let f = f(r);
        Cell::text(function_name(f), f.display_name())
    })
}

/// A function's wall time in all (0 when none of its calls was timed).
pub(crate) fn wall(f: &Function) -> u64 {
    f.wall_ns.as_ref().map_or(0, |w| w.total)
}

/// The functions of `r` that have `part` (their `alloc`, `cpu`, `io` or `waits` object),
/// each with it, in report order.
pub(crate) fn functions_with<'r, T>(
    r: &'r Report,
    part: impl Fn(&'r Function) -> Option<&'r T>,
) -> Vec<(&'r Function, &'r T)> {
    r.functions
        .iter()
        .filter_map(|f| Some((f, part(f)?)))
        .collect()
}

/// [`functions_with`] `part`, largest `key` first (report order among equals).
pub(crate) fn functions_by<'r, T, K: Ord>(
    r: &'r Report,
    part: impl Fn(&'r Function) -> Option<&'r T>,
    key: impl Fn(&(&'r Function, &'r T)) -> K,
) -> Vec<(&'r Function, &'r T)> {
    let mut rows = functions_with(r, part);
    crate::format::sort_rows(&mut rows, &|a, b| key(b).cmp(&key(a)));
    rows
}

/// `entries`, each with the name that tells it apart from entries of the same name: the
/// [`twin_names`] of what `twin` says of each.
pub(crate) fn named<'a, E>(
    entries: &'a [E],
    twin: impl Fn(&'a E) -> Twin<'a>,
) -> Vec<(&'a E, String)> {
    let twins: Vec<Twin<'a>> = entries.iter().map(twin).collect();
    entries.iter().zip(twin_names(&twins)).collect()
}
