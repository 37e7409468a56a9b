//! Human-scaled numbers for tables.

/// `src/db.rs:42` → `db.rs:42`: a site named by its place shows its file's name, not the
/// path; any other name as it is.
pub fn short_place(name: &str) -> &str {
    match name.rsplit_once(':') {
        Some((path, line)) if !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()) => {
            path.rfind('/').map_or(name, |i| &name[i + 1..])
        }
        _ => name,
    }
}

/// `417 ns`, `12.3 µs`, `4.56 ms`, `1.20 s`: three significant digits.
pub fn duration(ns: u64) -> String {
    const UNITS: [(f64, &str); 3] = [(1e9, "s"), (1e6, "ms"), (1e3, "µs")];
    for (scale, unit) in UNITS {
        if ns as f64 >= scale {
            return format!("{} {unit}", sig3(ns as f64 / scale));
        }
    }
    format!("{ns} ns")
}

/// A per-call duration, or `<X ns` when it is shorter than `floor` ns (the shortest span
/// the clock measures): a value there says "too short to tell", not its digits.
pub fn per_call_duration(ns: u64, floor: Option<f64>) -> String {
    match floor {
        Some(f) if (ns as f64) < f => format!("<{} ns", f.ceil() as u64),
        _ => duration(ns),
    }
}

/// `512 B`, `1.50 KiB`, `3.00 MiB`, `1.20 GiB`.
pub fn bytes(b: u64) -> String {
    const UNITS: [(f64, &str); 4] = [
        (1024f64 * 1024.0 * 1024.0 * 1024.0, "TiB"),
        (1024f64 * 1024.0 * 1024.0, "GiB"),
        (1024f64 * 1024.0, "MiB"),
        (1024.0, "KiB"),
    ];
    for (scale, unit) in UNITS {
        if b as f64 >= scale {
            return format!("{} {unit}", sig3(b as f64 / scale));
        }
    }
    format!("{b} B")
}

/// `512 B/s`, `12.3 MiB/s`.
pub fn rate(bytes_per_sec: f64) -> String {
    format!("{}/s", bytes(bytes_per_sec.round() as u64))
}

/// `999`, `12,345`, `1,234,567`.
pub fn count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A share as `12.3%`.
pub fn percent(part: f64, whole: f64) -> String {
    if whole <= 0.0 {
        return "-".into();
    }
    format!("{:.1}%", 100.0 * part / whole)
}

fn sig3(v: f64) -> String {
    if v >= 99.95 {
        format!("{v:.0}")
    } else if v >= 9.995 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// `-1.50 KiB` for negative byte counts, `1.50 KiB` for positive ones.
pub fn signed_bytes(b: i64) -> String {
    if b < 0 {
        format!("-{}", bytes(b.unsigned_abs()))
    } else {
        bytes(b as u64)
    }
}

/// `std::io::BufReader<std::fs::File>` -> `BufReader<File>`: the last path segment of
/// every type in a type name.
pub fn short_type(full: &str) -> String {
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

/// A row that may share its name with others: what can tell it apart.
#[derive(Clone, Copy, Debug)]
pub struct Twin<'a> {
    /// The name shown.
    pub name: &'a str,
    /// The type it is about (`""` when rows have none).
    pub type_name: &'a str,
    /// Source file.
    pub file: &'a str,
    /// Source line.
    pub line: u32,
}

/// Names that tell rows apart: the name alone when no other row has it; else with the
/// short type when that differs from the twins' (`x (File)`); else with the place
/// (`x (main.rs:12)`); else numbered in order (`x (#2)`).
pub fn twin_names(rows: &[Twin<'_>]) -> Vec<String> {
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            let twins = || rows.iter().filter(|o| o.name == r.name);
            if twins().nth(1).is_none() {
                return r.name.to_string();
            }
            if !r.type_name.is_empty()
                && twins()
                    .filter(|o| o.type_name == r.type_name)
                    .nth(1)
                    .is_none()
            {
                return format!("{} ({})", r.name, short_type(r.type_name));
            }
            let same = || {
                twins()
                    .filter(|o| o.type_name == r.type_name && o.file == r.file && o.line == r.line)
            };
            if same().nth(1).is_none() {
                let file = r.file.rsplit(['/', '\\']).next().unwrap_or(r.file);
                return format!("{} ({file}:{})", r.name, r.line);
            }
            // Two sites on one line: numbered in the order they are listed.
            let k = rows[..i]
                .iter()
                .filter(|o| {
                    o.name == r.name
                        && o.type_name == r.type_name
                        && o.file == r.file
                        && o.line == r.line
                })
                .count()
                + 1;
            format!("{} (#{k})", r.name)
        })
        .collect()
}

/// `(shown/total)` when rows were cut, else `(total)`.
pub fn shown(shown: usize, total: usize) -> String {
    if shown < total {
        format!("({shown}/{total})")
    } else {
        format!("({total})")
    }
}

/// Rows to show for a `limit` (0 = all).
pub fn take(limit: usize, len: usize) -> usize {
    if limit == 0 {
        len
    } else {
        limit.min(len)
    }
}

/// Allocations per call: `2.00`, `12.5`, `1,234`.
pub fn per_call(n: f64) -> String {
    if n >= 100.0 {
        count(n.round() as u64)
    } else if n >= 10.0 {
        format!("{n:.1}")
    } else {
        format!("{n:.2}")
    }
}

/// An aligned text table as the report prints it: a header line, a rule of `-`, then the
/// rows; columns two spaces apart, the first left-aligned and the others right-aligned
/// unless [`Table::left`] says otherwise; trailing spaces trimmed. [`Table::fit`] narrows
/// a table wider than a width: columns without data left out, titles on two lines.
#[derive(Clone, Debug)]
pub struct Table {
    header: Vec<String>,
    left: Vec<bool>,
    rows: Vec<Vec<String>>,
    /// Titles broken onto two header lines (at a space or before a `/`).
    two_lines: bool,
}

/// Characters of `s` as a terminal shows them (one per char).
fn chars(s: &str) -> usize {
    s.chars().count()
}

/// `Total bytes` → (`Total`, `bytes`), `Allocs/call` → (`Allocs`, `/call`): the break that
/// makes the wider half narrowest; `None` for a title with nowhere to break.
fn two_parts(title: &str) -> Option<(&str, &str)> {
    title
        .char_indices()
        .filter(|&(i, c)| i > 0 && (c == ' ' || c == '/'))
        .map(|(i, c)| {
            let rest = if c == ' ' {
                &title[i + 1..]
            } else {
                &title[i..]
            };
            (&title[..i], rest)
        })
        // Not `%` alone on a line (`% Total`).
        .filter(|(a, b)| chars(a) > 1 && !b.is_empty())
        .min_by_key(|(a, b)| chars(a).max(chars(b)))
}

impl Table {
    /// A table with these column titles and no rows.
    pub fn new(header: Vec<String>) -> Self {
        let left = (0..header.len()).map(|i| i == 0).collect();
        Table {
            header,
            left,
            rows: Vec::new(),
            two_lines: false,
        }
    }

    /// Which columns are left-aligned (the others are right-aligned).
    pub fn left(mut self, left: &[bool]) -> Self {
        for (l, &v) in self.left.iter_mut().zip(left) {
            *l = v;
        }
        self
    }

    /// Adds a row (as many cells as the header).
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The header's lines: one, or two when titles are broken.
    fn header_lines(&self) -> Vec<Vec<String>> {
        if !self.two_lines {
            return vec![self.header.clone()];
        }
        let (top, bottom) = self
            .header
            .iter()
            .map(|t| match two_parts(t) {
                Some((a, b)) => (a.to_string(), b.to_string()),
                None => (String::new(), t.clone()),
            })
            .unzip();
        vec![top, bottom]
    }

    /// Each column's width: its widest cell or title line.
    fn widths(&self) -> Vec<usize> {
        let mut w = vec![0; self.header.len()];
        for line in self.header_lines().iter().chain(&self.rows) {
            for (i, c) in line.iter().enumerate() {
                w[i] = w[i].max(chars(c));
            }
        }
        w
    }

    /// Characters of the table's widest line (its rule).
    pub fn width(&self) -> usize {
        let w = self.widths();
        w.iter().sum::<usize>() + 2 * w.len().saturating_sub(1)
    }

    /// Narrows a table wider than `width`: first the columns where every row shows `-`
    /// (nothing to show) are left out, then titles go on two lines. A table that still
    /// does not fit is left so (its rows are never cut).
    pub fn fit(&mut self, width: usize) {
        if self.width() > width {
            self.drop_columns_without_data();
        }
        if self.width() > width {
            self.two_lines = true;
        }
    }

    /// Removes the columns where every row shows `-`, when there are rows.
    fn drop_columns_without_data(&mut self) {
        if self.rows.is_empty() {
            return;
        }
        let keep: Vec<bool> = (0..self.header.len())
            .map(|i| self.rows.iter().any(|r| r.get(i).is_some_and(|c| c != "-")))
            .collect();
        fn retain<T>(v: &mut Vec<T>, keep: &[bool]) {
            let mut i = 0;
            v.retain(|_| {
                i += 1;
                keep[i - 1]
            });
        }
        retain(&mut self.header, &keep);
        retain(&mut self.left, &keep);
        for r in &mut self.rows {
            retain(r, &keep);
        }
    }

    /// Appends the table to `out`.
    pub fn render(&self, out: &mut String) {
        let w = self.widths();
        let line = |cells: &[String], out: &mut String| {
            let mut s = String::new();
            for (i, c) in cells.iter().enumerate() {
                let pad = w[i] - chars(c);
                if i > 0 {
                    s.push_str("  ");
                }
                if self.left[i] {
                    s.push_str(c);
                    s.extend(std::iter::repeat_n(' ', pad));
                } else {
                    s.extend(std::iter::repeat_n(' ', pad));
                    s.push_str(c);
                }
            }
            out.push_str(s.trim_end());
            out.push('\n');
        };
        for header in self.header_lines() {
            line(&header, out);
        }
        out.extend(std::iter::repeat_n('-', self.width()));
        out.push('\n');
        for r in &self.rows {
            line(r, out);
        }
    }
}

/// The order that sorts `n` rows by `cmp` (stable): the one sort routine of every table.
/// A `sort_by` per table, each with a closure of its own, compiled the whole sort again
/// for each, in every profiled program.
pub fn sort_order(n: usize, cmp: &dyn Fn(usize, usize) -> std::cmp::Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// Sorts `rows` (stable) by `cmp`, through [`sort_order`].
pub fn sort_rows<T: Copy>(rows: &mut [T], cmp: &dyn Fn(&T, &T) -> std::cmp::Ordering) {
    let order = sort_order(rows.len(), &|a, b| cmp(&rows[a], &rows[b]));
    let sorted: Vec<T> = order.iter().map(|&i| rows[i]).collect();
    rows.copy_from_slice(&sorted);
}

/// Sorts `rows` (stable) by `cmp`, through [`sort_order`], moving each row once.
pub fn sort_vec<T>(rows: &mut Vec<T>, cmp: &dyn Fn(&T, &T) -> std::cmp::Ordering) {
    let order = sort_order(rows.len(), &|a, b| cmp(&rows[a], &rows[b]));
    let mut slots: Vec<Option<T>> = rows.drain(..).map(Some).collect();
    rows.extend(order.iter().filter_map(|&i| slots[i].take()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(duration(0), "0 ns");
        assert_eq!(duration(999), "999 ns");
        assert_eq!(duration(1_000), "1.00 µs");
        assert_eq!(duration(12_345), "12.3 µs");
        assert_eq!(duration(123_456), "123 µs");
        assert_eq!(duration(4_560_000), "4.56 ms");
        assert_eq!(duration(1_200_000_000), "1.20 s");
        assert_eq!(duration(9_999_000), "10.0 ms");
    }

    #[test]
    fn twins_are_told_apart_by_type_then_place_then_order() {
        let t = |name, type_name, file, line| Twin {
            name,
            type_name,
            file,
            line,
        };
        let rows = [
            t("db", "std::fs::File", "src/a.rs", 3),
            t("db", "std::io::BufReader<std::fs::File>", "src/a.rs", 3),
            t("log", "File", "src/a.rs", 5),
            t("log", "File", "src/b.rs", 9),
            t("x", "File", "src/c.rs", 1),
            t("x", "File", "src/c.rs", 1),
            t("alone", "File", "src/c.rs", 1),
        ];
        assert_eq!(
            twin_names(&rows),
            [
                "db (File)",
                "db (BufReader<File>)",
                "log (a.rs:5)",
                "log (b.rs:9)",
                "x (#1)",
                "x (#2)",
                "alone"
            ]
        );
        assert_eq!(signed_bytes(-1536), "-1.50 KiB");
        assert_eq!(signed_bytes(512), "512 B");
        assert_eq!(short_type("a::B<c::D, e::F<g::H>>"), "B<D, F<H>>");
    }

    #[test]
    fn per_call_values_below_the_clock_floor_say_so() {
        assert_eq!(per_call_duration(7, Some(9.2)), "<10 ns");
        assert_eq!(per_call_duration(10, Some(9.2)), "10 ns");
        assert_eq!(per_call_duration(1_500, Some(9.2)), "1.50 µs");
        assert_eq!(per_call_duration(3, None), "3 ns");
    }

    #[test]
    fn sizes_and_counts() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1536), "1.50 KiB");
        assert_eq!(bytes(3 << 20), "3.00 MiB");
        assert_eq!(count(0), "0");
        assert_eq!(count(1_234_567), "1,234,567");
        assert_eq!(count(100), "100");
        assert_eq!(percent(1.0, 3.0), "33.3%");
        assert_eq!(percent(1.0, 0.0), "-");
    }
}
