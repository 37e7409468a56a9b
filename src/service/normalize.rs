//! Normalising SQL text and URLs into keys: one row per query shape or endpoint.

/// `sql` with its literals and placeholders as `?`, `IN (...)` lists as `IN (?)`,
/// multi-row `VALUES (...), (...)` as one row and `, …`, comments removed and whitespace
/// collapsed. A single pass, no regex: strings `'…'` (with `''`), `E'…'`, dollar-quoted
/// `$tag$…$tag$`, numbers outside identifiers, `$1`, `?1`, `:name` all become `?`.
pub(crate) fn sql(sql: &str) -> String {
    let b = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    let mut i = 0;
    let mut space = false;
    let push = |out: &mut String, s: &str, space: &mut bool| {
        if *space && !out.is_empty() {
            out.push(' ');
        }
        *space = false;
        out.push_str(s);
    };
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => {
                space = true;
                i += 1;
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                space = true;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i = (i + 2).min(b.len());
                space = true;
            }
            b'\'' => {
                i = skip_string(b, i + 1);
                push(&mut out, "?", &mut space);
            }
            b'E' | b'e' if b.get(i + 1) == Some(&b'\'') && !prev_is_ident(&out, space) => {
                i = skip_string(b, i + 2);
                push(&mut out, "?", &mut space);
            }
            b'$' => {
                // `$1` placeholder, or `$tag$ ... $tag$` / `$$ ... $$` string.
                let mut j = i + 1;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                if j > i + 1 {
                    push(&mut out, "?", &mut space);
                    i = j;
                    continue;
                }
                let mut j = i + 1;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                    j += 1;
                }
                if j < b.len() && b[j] == b'$' {
                    let tag = &sql[i..=j];
                    let body = j + 1;
                    let end = sql[body..]
                        .find(tag)
                        .map_or(b.len(), |e| body + e + tag.len());
                    push(&mut out, "?", &mut space);
                    i = end;
                } else {
                    push(&mut out, "$", &mut space);
                    i += 1;
                }
            }
            b'?' => {
                let mut j = i + 1;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                push(&mut out, "?", &mut space);
                i = j;
            }
            b':' if b.get(i + 1) == Some(&b':') => {
                // A PostgreSQL cast `::type`: kept.
                push(&mut out, "::", &mut space);
                i += 2;
            }
            b':' if b
                .get(i + 1)
                .is_some_and(|n| n.is_ascii_alphabetic() || *n == b'_') =>
            {
                let mut j = i + 1;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                    j += 1;
                }
                push(&mut out, "?", &mut space);
                i = j;
            }
            b'0'..=b'9' if !prev_is_ident(&out, space) => {
                let mut j = i;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'.' || b[j] == b'_')
                {
                    j += 1;
                }
                push(&mut out, "?", &mut space);
                i = j;
            }
            b'"' | b'`' => {
                // Quoted identifiers are kept as written.
                let q = c;
                let mut j = i + 1;
                while j < b.len() && b[j] != q {
                    j += 1;
                }
                let end = (j + 1).min(b.len());
                push(&mut out, &sql[i..end], &mut space);
                i = end;
            }
            b'(' | b')' | b',' => {
                // No space after `(` or before `)` and `,`.
                if c == b'(' {
                    push(&mut out, "(", &mut space);
                } else {
                    out.push(c as char);
                    space = false;
                }
                i += 1;
                if c == b'(' {
                    while i < b.len() && b[i].is_ascii_whitespace() {
                        i += 1;
                    }
                }
            }
            _ => {
                let start = i;
                let ch_len = utf8_len(c);
                i += ch_len;
                while i < b.len() && is_word(b[i]) && is_word(b[start]) {
                    i += 1;
                }
                push(&mut out, &sql[start..i], &mut space);
            }
        }
    }
    fold_lists(&out)
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// Whether the output so far ends in an identifier character (so a digit or `E'` that
/// follows belongs to it).
fn prev_is_ident(out: &str, space: bool) -> bool {
    !space
        && out
            .as_bytes()
            .last()
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// The index after a string literal whose body starts at `i` (`''` is an escaped quote,
/// as is `\'` inside `E'…'`).
fn skip_string(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\'' if b.get(i + 1) == Some(&b'\'') => i += 2,
            b'\'' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// `(?, ?, ?)` → `(?)` after `IN`; `VALUES (…), (…)` → `VALUES (…), …`.
fn fold_lists(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find('(') {
        let (head, tail) = rest.split_at(p);
        out.push_str(head);
        let upper = head.trim_end().to_ascii_uppercase();
        let list_end = tail.find(')');
        let inner = list_end.map(|e| &tail[1..e]);
        if let (true, Some(inner)) = (upper.ends_with(" IN") || upper == "IN", inner) {
            if !inner.is_empty() && inner.split(',').all(|x| x.trim() == "?") {
                out.push_str("(?)");
                rest = &tail[list_end.unwrap_or(0) + 1..];
                continue;
            }
        }
        if upper.ends_with("VALUES") {
            if let Some(e) = list_end {
                out.push_str(&tail[..=e]);
                let mut after = &tail[e + 1..];
                let mut more = false;
                while let Some(t) = after
                    .strip_prefix(", (")
                    .or_else(|| after.strip_prefix(",("))
                {
                    match t.find(')') {
                        Some(e2) if !t[..e2].contains('(') => {
                            after = &t[e2 + 1..];
                            more = true;
                        }
                        _ => break,
                    }
                }
                if more {
                    out.push_str(", …");
                }
                rest = after;
                continue;
            }
        }
        out.push('(');
        rest = &tail[1..];
    }
    out.push_str(rest);
    out
}

/// `METHOD host:port/path` with numeric, UUID and long hex path segments as `{id}` and
/// no query string or fragment.
pub(crate) fn endpoint(method: &str, host: &str, port: Option<u16>, path: &str) -> String {
    let mut out = String::with_capacity(method.len() + host.len() + path.len() + 8);
    out.push_str(method);
    out.push(' ');
    out.push_str(host);
    if let Some(p) = port {
        out.push(':');
        out.push_str(&p.to_string());
    }
    let path = path.split(['?', '#']).next().unwrap_or("");
    if path.is_empty() {
        out.push('/');
    }
    for seg in path.split('/').skip(1) {
        out.push('/');
        if is_id(seg) {
            out.push_str("{id}");
        } else {
            out.push_str(seg);
        }
    }
    out
}

/// A numeric, UUID or hex (16+ digits) path segment.
fn is_id(seg: &str) -> bool {
    if seg.is_empty() {
        return false;
    }
    if seg.bytes().all(|c| c.is_ascii_digit()) {
        return true;
    }
    let hex = seg.bytes().filter(|c| c.is_ascii_hexdigit()).count();
    let dashes = seg.bytes().filter(|c| *c == b'-').count();
    (seg.len() == 36 && dashes == 4 && hex == 32) || (seg.len() >= 16 && hex == seg.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_placeholders_and_lists_fold() {
        let cases = [
            (
                "INSERT INTO t (a) VALUES ($1)",
                "INSERT INTO t (a) VALUES (?)",
            ),
            (
                "INSERT INTO t (a) VALUES (?1)",
                "INSERT INTO t (a) VALUES (?)",
            ),
            ("insert into t(a) values (?)", "insert into t(a) values (?)"),
            ("SELECT * FROM t WHERE a = 1", "SELECT * FROM t WHERE a = ?"),
            ("SELECT * FROM t WHERE a = 2", "SELECT * FROM t WHERE a = ?"),
            (
                "SELECT * FROM t WHERE a IN (1, 2, 3)",
                "SELECT * FROM t WHERE a IN (?)",
            ),
            (
                "SELECT * FROM t WHERE a IN (4,5)",
                "SELECT * FROM t WHERE a IN (?)",
            ),
            (
                "SELECT 'it''s', E'a\\'b', $$x$$, $f$y$f$",
                "SELECT ?, ?, ?, ?",
            ),
            (
                "SELECT  a\n\tFROM   t -- note\n WHERE b = :name",
                "SELECT a FROM t WHERE b = ?",
            ),
            ("SELECT /* hint */ t1.a2 FROM t1", "SELECT t1.a2 FROM t1"),
            ("SELECT pg_sleep(0.05)", "SELECT pg_sleep(?)"),
            ("SELECT 1::int8", "SELECT ?::int8"),
            (
                "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')",
                "INSERT INTO t VALUES (?, ?), …",
            ),
            ("SELECT \"Col 1\" FROM \"T\"", "SELECT \"Col 1\" FROM \"T\""),
        ];
        for (raw, want) in cases {
            assert_eq!(sql(raw), want, "{raw}");
            assert_eq!(sql(want), want, "idempotent: {want}");
        }
    }

    #[test]
    fn endpoints_fold_ids_and_drop_the_query() {
        assert_eq!(
            endpoint("GET", "127.0.0.1", Some(8080), "/users/42?q=secret"),
            "GET 127.0.0.1:8080/users/{id}"
        );
        assert_eq!(
            endpoint(
                "GET",
                "h",
                None,
                "/o/0f8fad5b-d9cb-469f-a165-70867728950e/x"
            ),
            "GET h/o/{id}/x"
        );
        assert_eq!(endpoint("POST", "h", None, ""), "POST h/");
        assert_eq!(endpoint("GET", "h", None, "/v1/items"), "GET h/v1/items");
    }
}
