//! Indented JSON from compact JSON text: the report is serialized once, by one formatter,
//! and `to_json_pretty` re-indents that text. A second `Serializer` (serde_json's pretty
//! one) compiled every `Serialize` body of the model a second time into each profiled
//! program (about 10k lines of LLVM IR) for a layout a loop over the text gives.

/// Re-indents compact JSON (no whitespace outside strings, as `serde_json::to_string`
/// writes it) the way `serde_json::to_string_pretty` lays it out: two spaces per level,
/// `": "` after keys, one element per line, `[]` and `{}` when empty.
pub(crate) fn indent(compact: &str) -> String {
    let bytes = compact.as_bytes();
    let mut out = Vec::with_capacity(compact.len() * 2);
    let mut depth = 0usize;
    let mut i = 0;
    let newline = |out: &mut Vec<u8>, depth: usize| {
        out.push(b'\n');
        out.resize(out.len() + 2 * depth, b' ');
    };
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'"' => {
                // A string, copied through its escapes.
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(bytes.len());
                out.extend_from_slice(&bytes[start..i]);
                continue;
            }
            b'{' | b'[' => {
                let close = if b == b'{' { b'}' } else { b']' };
                if bytes.get(i + 1) == Some(&close) {
                    out.extend_from_slice(&[b, close]);
                    i += 2;
                    continue;
                }
                out.push(b);
                depth += 1;
                newline(&mut out, depth);
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(b);
            }
            b',' => {
                out.push(b',');
                newline(&mut out, depth);
            }
            b':' => out.extend_from_slice(b": "),
            _ => out.push(b),
        }
        i += 1;
    }
    // Only ASCII bytes were added and strings were copied whole, so this is the input's
    // UTF-8 with whitespace between tokens.
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::indent;

    fn same_as_serde_json(v: serde_json::Value) {
        let compact = serde_json::to_string(&v).unwrap();
        assert_eq!(
            indent(&compact),
            serde_json::to_string_pretty(&v).unwrap(),
            "{compact}"
        );
    }

    #[test]
    fn lays_out_as_serde_json_does() {
        same_as_serde_json(serde_json::json!({
            "a": [], "b": {}, "c": [1, 2.5, -3e-7, null, true, false],
            "d": {"e": [{"f": "x"}, {}], "g": [[], [[]]]},
            "s": "quote \" backslash \\ colon : comma , braces {}[] \u{1} é 💥",
            "": "",
            "k\"ey": {"n": 18446744073709551615u64}
        }));
        same_as_serde_json(serde_json::json!([]));
        same_as_serde_json(serde_json::json!("top"));
        same_as_serde_json(serde_json::json!([{"a": {"b": {"c": [1]}}}]));
    }
}
