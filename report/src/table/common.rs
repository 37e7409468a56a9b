//! What the sections' text shares: a heading with the rows shown, a table marked as such
//! (so that [`wrapped`] leaves its lines alone), the lines that say what a row limit hid,
//! and text wrapped to [`WIDTH`].

use std::fmt::Write as _;

use crate::columns::{self, Columns};
use crate::format::{count, shown, take, Table};
use crate::model::Function;

/// Marks a line of a table in a section's text, for [`section_table`](super::section_table).
pub(crate) const TABLE_LINE: char = '\u{1}';

/// A table of a section, its lines marked as such when rendered.
pub(crate) struct SectionTable(Table);

impl SectionTable {
    pub(crate) fn render(&self, out: &mut String) {
        let mut text = String::new();
        self.0.render(&mut text);
        for line in text.lines() {
            out.push(TABLE_LINE);
            out.push_str(line);
            out.push('\n');
        }
    }
}

/// A text table of `rows` in the exit report's columns of `cols`, with the extra rows
/// (already formatted, one cell per exit column) at the end.
/// A table wider than [`WIDTH`] is narrowed by [`Table::fit`].
pub(crate) fn table<R>(
    cols: Columns<'_, R>,
    rows: &[R],
    extra: Option<Vec<String>>,
) -> SectionTable {
    let cols: Vec<_> = cols.into_iter().filter(|c| c.show.in_exit()).collect();
    let left: Vec<bool> = cols
        .iter()
        .map(|c| c.align == columns::Align::Left)
        .collect();
    let mut t = Table::new(cols.iter().map(|c| c.title.clone()).collect()).left(&left);
    for row in rows {
        t.row(cols.iter().map(|c| c.cell(row).text).collect());
    }
    if let Some(extra) = extra {
        t.row(extra);
    }
    t.fit(WIDTH);
    SectionTable(t)
}

/// Writes a section's first line: `what` and how many of its `len` rows `limit` lets
/// through (`(5)`, `(2/5)`). Returns how many rows to show.
pub(crate) fn heading(out: &mut String, limit: usize, len: usize, what: &str) -> usize {
    heading_then(out, limit, len, what, "")
}

/// [`heading`] with `tail` after the count (`; 1 more allocated and freed nothing`).
pub(crate) fn heading_then(
    out: &mut String,
    limit: usize,
    len: usize,
    what: &str,
    tail: &str,
) -> usize {
    let n = take(limit, len);
    wrapped(&format!("{what} {}{tail}", shown(n, len)), out);
    n
}

/// Width the lines under a table are wrapped to.
pub(crate) const WIDTH: usize = 120;

/// Writes `text` as lines of at most [`WIDTH`] characters (continuation lines indented
/// by two spaces), broken at a space: preferably one after `;`, `,` or `|` or before `(`
/// in the second half of the line, else the last that fits. A word longer than a line
/// stays whole.
pub(crate) fn wrapped(text: &str, out: &mut String) {
    let width = |s: &str| s.chars().count();
    let mut line = String::new();
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            if width(&line) + 1 + width(word) > WIDTH && !line.trim().is_empty() {
                let rest = match separator_break(&line) {
                    Some(at) => {
                        let rest = line[at + 1..].to_string();
                        line.truncate(at);
                        rest
                    }
                    None => String::new(),
                };
                out.push_str(line.trim_end());
                out.push('\n');
                line = format!("  {rest}");
                if !rest.is_empty() {
                    line.push(' ');
                }
            } else {
                line.push(' ');
            }
        }
        line.push_str(word);
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

/// The byte index of the last space of `line` after `;`, `,` or `|` or before `(`, in
/// its second half.
fn separator_break(line: &str) -> Option<usize> {
    let half = WIDTH / 2;
    line.char_indices()
        .filter(|&(i, c)| {
            c == ' '
                && line[..i].chars().count() >= half
                && (line[..i].ends_with([';', ',', '|']) || line[i + 1..].starts_with('('))
        })
        .map(|(i, _)| i)
        .next_back()
}

/// The line under a table whose rows `limit` cut: how many are hidden, the hidden
/// functions called most (they cost the most profiler time), and how to show them.
pub(crate) fn hidden_functions(hidden: &[&Function], out: &mut String) {
    if hidden.is_empty() {
        return;
    }
    let mut most: Vec<&&Function> = hidden.iter().collect();
    crate::format::sort_rows(&mut most, &|a, b| {
        b.calls.cmp(&a.calls).then(a.name.cmp(&b.name))
    });
    let named: Vec<String> = most
        .iter()
        .take(3)
        .map(|f| format!("{} ({} calls)", f.display_name(), count(f.calls)))
        .collect();
    wrapped(
        &format!(
            "{} more not shown, most called: {}; HOTPATH_LIMIT=0 shows all",
            count(hidden.len() as u64),
            named.join(", ")
        ),
        out,
    );
}

/// The line under a table of other rows that `limit` cut.
pub(crate) fn hidden_rows(hidden: usize, what: &str, out: &mut String) {
    let one;
    let what = match (hidden, what.strip_suffix("ies"), what.strip_suffix('s')) {
        (1, Some(stem), _) => {
            one = format!("{stem}y");
            one.as_str()
        }
        (1, None, Some(stem)) => stem,
        _ => what,
    };
    if hidden > 0 {
        let _ = writeln!(
            out,
            "{} more {what} not shown; HOTPATH_LIMIT=0 shows all",
            count(hidden as u64)
        );
    }
}

/// A section's rows: the heading (`what`, how many of `rows` `limit` lets through, then
/// `tail`), the table of those in the exit columns of `cols`, and the line that says how
/// many more there are. Returns how many rows are shown.
pub(crate) fn listed<R>(
    out: &mut String,
    limit: usize,
    what: &str,
    tail: &str,
    cols: Columns<'_, R>,
    rows: &[R],
) -> usize {
    let n = heading_then(out, limit, rows.len(), what, tail);
    table(cols, &rows[..n], None).render(out);
    hidden_rows(rows.len() - n, "rows", out);
    n
}

/// A section's rows of functions (`function` gives a row's): the heading, the table with
/// the `extra` row at its end, and the hidden functions called most ([`hidden_functions`]).
/// Returns how many rows are shown.
pub(crate) fn listed_functions<R>(
    out: &mut String,
    limit: usize,
    what: &str,
    cols: Columns<'_, R>,
    rows: &[R],
    extra: Option<Vec<String>>,
    function: fn(&R) -> &Function,
) -> usize {
    let n = heading(out, limit, rows.len(), what);
    table(cols, &rows[..n], extra).render(out);
    let rest: Vec<&Function> = rows[n..].iter().map(function).collect();
    hidden_functions(&rest, out);
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_wrap_at_separators_within_the_width() {
        let mut out = String::new();
        let text = format!("{}, {}; the end", "a".repeat(70), "b".repeat(60));
        wrapped(&text, &mut out);
        assert_eq!(
            out,
            format!("{},\n  {}; the end\n", "a".repeat(70), "b".repeat(60))
        );
        let mut short = String::new();
        wrapped("short, line", &mut short);
        assert_eq!(short, "short, line\n");
    }
}
