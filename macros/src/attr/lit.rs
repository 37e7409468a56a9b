//! The values of literals, read from their source text: integers and numbers as
//! `#[hotpath::main]` and `channel!` take them, and string literals (plain and raw).
//! `proc_macro::Literal` has no accessors, and the feature-off build has no `syn`.

pub(super) fn parse_int(s: &str) -> Option<u64> {
    let s = s.replace('_', "");
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, suffix) = s.split_at(end);
    if num.is_empty() || !(suffix.is_empty() || INT_SUFFIXES.contains(&suffix)) {
        return None;
    }
    num.parse().ok()
}

const INT_SUFFIXES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
];

pub(super) fn parse_number(s: &str) -> Option<f64> {
    let s = s.replace('_', "");
    let s = s
        .strip_suffix("f64")
        .or_else(|| s.strip_suffix("f32"))
        .unwrap_or(&s);
    if let Some(i) = parse_int(s) {
        return Some(i as f64);
    }
    if s.starts_with(|c: char| c.is_ascii_digit())
        && s.chars().all(|c| c.is_ascii_digit() || c == '.')
    {
        return s.parse().ok();
    }
    None
}

/// The value of a string literal's source text (`"a\"b"`, `r#"x"#`), or `None`.
pub(super) fn unquote(src: &str) -> Option<String> {
    if let Some(raw) = src.strip_prefix('r') {
        let hashes = raw.len() - raw.trim_start_matches('#').len();
        let inner = raw.get(hashes..raw.len().checked_sub(hashes)?)?;
        return inner
            .strip_prefix('"')?
            .strip_suffix('"')
            .map(str::to_owned);
    }
    let inner = src.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0' => out.push('\0'),
            '\\' => out.push('\\'),
            '"' => out.push('"'),
            '\'' => out.push('\''),
            'x' => {
                let h: String = chars.by_ref().take(2).collect();
                out.push(u8::from_str_radix(&h, 16).ok()? as char);
            }
            'u' => {
                let rest: String = chars.by_ref().take_while(|&c| c != '}').collect();
                out.push(char::from_u32(
                    u32::from_str_radix(rest.trim_start_matches('{'), 16).ok()?,
                )?);
            }
            '\n' => {
                while chars.clone().next().is_some_and(char::is_whitespace) {
                    chars.next();
                }
            }
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_strings() {
        assert_eq!(parse_int("1_000"), Some(1000));
        assert_eq!(parse_int("20usize"), Some(20));
        assert_eq!(parse_int("2.5"), None);
        assert_eq!(parse_number("99.9"), Some(99.9));
        assert_eq!(parse_number("50"), Some(50.0));
        assert_eq!(parse_number("95.0f64"), Some(95.0));
        assert_eq!(parse_number("-1"), None);
        assert_eq!(unquote(r#""a\"b\\c""#).as_deref(), Some("a\"b\\c"));
        assert_eq!(unquote(r###"r#"x"y"#"###).as_deref(), Some("x\"y"));
        assert_eq!(unquote("'c'"), None);
    }
}
