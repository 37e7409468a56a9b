//! Reads a callgrind dump (the format of `callgrind_annotate`'s input, "Callgrind Format
//! Specification" in valgrind's manual): per function, its own `Ir` and the inclusive
//! `Ir` of the calls into it.

use std::collections::HashMap;

/// What the report needs from one dump.
#[derive(Debug, Default)]
pub(crate) struct Dump {
    /// `creator:`, e.g. `callgrind-3.19.0`.
    pub creator: Option<String>,
    /// The text after `desc: Trigger: `.
    pub trigger: Option<String>,
    /// `totals:` (or `summary:`), the dump's instructions.
    pub total: Option<u64>,
    /// `Ir` executed in each function's own code, by the name callgrind gives it
    /// (`path::f'2` for its second and deeper levels of recursion).
    pub self_ir: HashMap<String, u64>,
    /// Inclusive `Ir` of the calls into each function (recorded when they returned).
    pub called_ir: HashMap<String, u64>,
}

/// Why a dump could not be read.
#[derive(Debug)]
pub(crate) struct Malformed(pub String);

/// Parses a dump's text.
pub(crate) fn parse(text: &str) -> Result<Dump, Malformed> {
    let mut d = Dump::default();
    let mut names: HashMap<String, String> = HashMap::new();
    let mut ir_col: Option<usize> = None;
    let mut positions = 1usize;
    let mut current = String::new();
    let mut callee: Option<String> = None;
    let mut in_call = false;
    for (no, line) in text.lines().enumerate() {
        let bad = |what: &str| Malformed(format!("line {}: {what}: {line:?}", no + 1));
        let Some(first) = line.chars().next() else {
            continue;
        };
        if first.is_ascii_digit() || first == '+' || first == '-' || first == '*' {
            let mut words = line.split_ascii_whitespace().skip(positions);
            let ir = match ir_col {
                Some(i) => words.nth(i).map_or(Ok(0), |w| w.parse::<u64>()),
                None => return Err(bad("a cost before the `events:` line")),
            }
            .map_err(|_| bad("not a count"))?;
            if in_call {
                let to = callee.clone().ok_or_else(|| bad("a call to no function"))?;
                *d.called_ir.entry(to).or_default() += ir;
                in_call = false;
            } else {
                *d.self_ir.entry(current.clone()).or_default() += ir;
            }
            continue;
        }
        in_call = false;
        let (key, value) = match line.split_once('=') {
            Some((k, v)) if !k.contains(':') && !k.contains(' ') => (k, v),
            _ => match line.split_once(':') {
                Some((k, v)) => (k, v.trim()),
                None => continue,
            },
        };
        match key {
            "fn" => current = name(&mut names, value).map_err(bad)?,
            "cfn" => callee = Some(name(&mut names, value).map_err(bad)?),
            "calls" => in_call = true,
            "events" => {
                ir_col = value.split_ascii_whitespace().position(|e| e == "Ir");
                if ir_col.is_none() {
                    return Err(bad("no `Ir` event"));
                }
            }
            "positions" => positions = value.split_ascii_whitespace().count().max(1),
            "creator" => d.creator = Some(value.to_string()),
            "desc" => {
                if let Some(t) = value.strip_prefix("Trigger:") {
                    d.trigger = Some(t.trim().to_string());
                }
            }
            "totals" | "summary" => {
                let i = ir_col.unwrap_or(0);
                d.total = value
                    .split_ascii_whitespace()
                    .nth(i)
                    .and_then(|w| w.parse().ok());
            }
            _ => {}
        }
    }
    Ok(d)
}

/// A name in callgrind's compression: `(7) name` defines id 7, `(7)` uses it.
fn name(names: &mut HashMap<String, String>, value: &str) -> Result<String, &'static str> {
    let Some(rest) = value.strip_prefix('(') else {
        return Ok(value.to_string());
    };
    let (id, text) = rest.split_once(')').ok_or("an unclosed name id")?;
    let text = text.trim_start();
    if text.is_empty() {
        names
            .get(id)
            .cloned()
            .ok_or("a name id used before it was defined")
    } else {
        names.insert(id.to_string(), text.to_string());
        Ok(text.to_string())
    }
}

/// A function name without generic arguments (`a::f::<u8>` and `a::f` are one
/// function; `<a::T<u8> as b::Tr>::m` reads `<a::T as b::Tr>::m`), so that callgrind's
/// names (from debug information or the symbol, legacy or v0 mangling) and the
/// profiler's (`type_name`) compare equal.
pub(crate) fn normalise(name: &str) -> String {
    let b = name.as_bytes();
    let mut out = String::with_capacity(name.len());
    let mut i = 0;
    while i < b.len() {
        // A `<` right after an identifier or `::` opens generic arguments; elsewhere (at
        // the start, after a space or another `<`) it opens a qualified path, kept.
        let generics = b[i] == b'<'
            && i > 0
            && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b':');
        if !generics {
            // Byte by byte: every byte of a multi-byte character is copied in order.
            let next = name[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&name[i..i + next]);
            i += next;
            continue;
        }
        let mut depth = 0usize;
        while i < b.len() {
            match b[i] {
                b'<' => depth += 1,
                b'>' if b[i - 1] == b'-' => {}
                b'>' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        i += 1;
        if out.ends_with("::") {
            out.truncate(out.len() - 2);
        }
    }
    out
}

/// A callgrind name without its recursion level: `(f, 1)` for `f`, `(f, 2)` for `f'2`.
pub(crate) fn level(name: &str) -> (&str, u32) {
    match name.rsplit_once('\'') {
        Some((base, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            (base, n.parse().unwrap_or(2))
        }
        _ => (name, 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_and_inclusive_costs_with_compressed_names_and_positions() {
        let text = "version: 1\ncreator: callgrind-3.19.0\npositions: line\nevents: Ir\n\
                    desc: Trigger: Client Request: hotpath 1\n\
                    fn=(1) a::f\n5 10\n+1 5\ncfn=(2) a::g::<u8>\ncalls=2 7\n* 100\n* 3\n\
                    fn=(2)\n7 90\nfn=(3) a::g'2\n1 4\ntotals: 212\n";
        let d = parse(text).unwrap();
        assert_eq!(d.creator.as_deref(), Some("callgrind-3.19.0"));
        assert_eq!(d.trigger.as_deref(), Some("Client Request: hotpath 1"));
        assert_eq!(d.total, Some(212));
        assert_eq!(d.self_ir["a::f"], 18);
        assert_eq!(d.self_ir["a::g::<u8>"], 90);
        assert_eq!(d.called_ir["a::g::<u8>"], 100);
        assert_eq!(level("a::g'2"), ("a::g", 2));
        assert_eq!(level("a::g"), ("a::g", 1));
    }

    #[test]
    fn generic_arguments_are_left_out() {
        assert_eq!(normalise("a::f::<u8>"), "a::f");
        assert_eq!(normalise("a::f<u8>"), "a::f");
        assert_eq!(
            normalise("<a::T<u8> as b::Tr<i32>>::m"),
            "<a::T as b::Tr>::m"
        );
        assert_eq!(normalise("<a::T>::m::<Vec<u8>>"), "<a::T>::m");
        assert_eq!(normalise("a::f::{closure#0}"), "a::f::{closure#0}");
    }
}
