//! Short display names for functions: what a table can show in a column of reasonable
//! width without losing which function a row is.
//!
//! A full name is a Rust path as `std::any::type_name` spells it:
//! `pulldown_cmark::firstpass::FirstPass::parse_line`,
//! `<pulldown_cmark::parse::Parser<'_> as core::iter::traits::iterator::Iterator>::next`.
//! Its short form keeps the last two segments (`FirstPass::parse_line`), one for a
//! function at the root of its crate (`main`), every qualified `<T as Trait>` segment, and
//! writes every type inside as its last segment, lifetimes elided
//! (`<Parser<_> as Iterator>::next`). Rows whose short forms collide keep one more
//! segment at a time until they differ (`firstpass::FirstPass::parse_line` and
//! `secondpass::FirstPass::parse_line`); rows that still collide keep their full names.

use std::collections::HashMap;

/// The path's segments at the top level (`::` inside `<...>` does not split).
fn segments(path: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    let b = path.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b':' if depth == 0 && b.get(i + 1) == Some(&b':') => {
                out.push(&path[start..i]);
                i += 2;
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&path[start..]);
    out
}

/// Every path inside a segment written as its last segment, lifetimes elided:
/// `Parser<'_, a::B>` -> `Parser<B>`, `<a::B as c::Trait>` -> `<B as Trait>`.
fn shorten(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(word.rsplit("::").next().unwrap_or(word));
        word.clear();
    };
    for c in segment.chars() {
        if c.is_alphanumeric() || c == '_' || c == ':' || c == '\'' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    // Lifetimes: `'_`, `'a` and their separators.
    let mut s = out;
    for (from, to) in [("<'_>", ""), ("'_, ", ""), (", '_", ""), ("<'static>", "")] {
        s = s.replace(from, to);
    }
    s
}

/// The last `keep` segments of `segs`, extended back to the first qualified segment
/// among them, shortened and joined. An inherent impl's `<impl T>` is written `T`.
fn tail(segs: &[&str], keep: usize) -> String {
    let mut from = segs.len().saturating_sub(keep);
    // A `<T as Trait>` segment names the item on its own; never cut into it or after it.
    if let Some(q) = segs.iter().rposition(|s| s.starts_with('<')) {
        from = from.min(q);
    }
    segs[from..]
        .iter()
        .map(|s| {
            let s = shorten(s);
            match s.strip_prefix("<impl ").and_then(|t| t.strip_suffix('>')) {
                Some(t) => t.to_string(),
                None => s,
            }
        })
        .collect::<Vec<_>>()
        .join("::")
}

/// The short display names of `full` names, in order: unique whenever the full names
/// are (see the module documentation).
pub fn short_names(full: &[&str]) -> Vec<String> {
    let segs: Vec<Vec<&str>> = full.iter().map(|n| segments(n)).collect();
    // Start from two segments, one for an item at the crate root.
    let mut keep: Vec<usize> = segs
        .iter()
        .map(|s| if s.len() <= 2 { 1 } else { 2 })
        .collect();
    let mut names: Vec<String> = segs.iter().zip(&keep).map(|(s, k)| tail(s, *k)).collect();
    loop {
        let mut rows_of: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, n) in names.iter().enumerate() {
            rows_of.entry(n.as_str()).or_default().push(i);
        }
        let colliding: Vec<usize> = rows_of
            .values()
            .filter(|rows| {
                // Rows of one full name (a function at two places) are told apart by
                // place elsewhere; they share a display name.
                rows.iter().any(|&i| full[i] != full[rows[0]])
            })
            .flatten()
            .copied()
            .collect();
        let mut grew = false;
        for i in colliding {
            if keep[i] < segs[i].len() {
                keep[i] += 1;
                names[i] = tail(&segs[i], keep[i]);
                grew = true;
            } else {
                names[i] = full[i].to_string();
            }
        }
        if !grew {
            return names;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_two_segments_and_qualified_types_shortened() {
        assert_eq!(
            short_names(&[
                "pulldown_cmark::firstpass::FirstPass::parse_line",
                "<pulldown_cmark::parse::Parser<'_> as core::iter::traits::iterator::Iterator>::next",
                "demo::main",
                "demo::Index<'_, u8>::get",
                "<demo::Point as core::fmt::Display>::fmt",
                "a::b::c::d::leaf",
                "pulldown_cmark::tree::<impl pulldown_cmark::tree::Tree<pulldown_cmark::parse::Item>>::append_text",
            ]),
            [
                "FirstPass::parse_line",
                "<Parser as Iterator>::next",
                "main",
                "Index<u8>::get",
                "<Point as Display>::fmt",
                "d::leaf",
                "Tree<Item>::append_text",
            ]
        );
    }

    #[test]
    fn colliding_names_keep_more_path_until_they_differ() {
        assert_eq!(
            short_names(&[
                "app::firstpass::Parser::run",
                "app::secondpass::Parser::run",
                "app::util::run",
                "lib::util::run",
                "app::Parser::new",
            ]),
            [
                "firstpass::Parser::run",
                "secondpass::Parser::run",
                "app::util::run",
                "lib::util::run",
                "Parser::new",
            ]
        );
        // Same short path, different full paths down to the crate: full names.
        assert_eq!(
            short_names(&["a::x::f", "b::x::f", "a::x::f"]),
            ["a::x::f", "b::x::f", "a::x::f"]
        );
        // A generic argument's path is shortened too.
        assert_eq!(
            short_names(&["app::Cache<std::string::String>::get"]),
            ["Cache<String>::get"]
        );
    }
}
