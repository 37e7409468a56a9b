//! `#[derive(SerializeFields)]` for the report's model (hotpath-report): `serde::Serialize`
//! for a struct with named fields, read from the tokens without syn, so every profiled
//! program builds the report without serde_derive (and this crate keeps no dependency
//! with the profiler off).
//!
//! The struct serializes as a map of its fields in declaration order, which serde_json
//! writes exactly as serde's derive does. The `#[serde(...)]` field attributes the model
//! uses are honoured: `rename = "key"`, `skip_serializing_if = "path"`, `flatten` (the
//! field's own fields inline, through `crate::ser::Fields`); `default` and
//! `deserialize_with` are for serde's `Deserialize` (the `read` feature) and ignored
//! here. Any other is a compile error, so nothing is silently dropped.

use proc_macro::{Delimiter, Spacing, Span, TokenStream, TokenTree};

use crate::attr::Error;

/// One field of the struct, as it serializes.
struct Field {
    ident: String,
    key: String,
    skip_if: Option<String>,
    flatten: bool,
}

/// Expands the derive, or a compile error at the first thing it does not handle.
pub fn derive(input: TokenStream) -> TokenStream {
    match parse(input) {
        Ok((name, fields)) => generate(&name, &fields)
            .parse()
            .expect("generated Serialize impl is valid tokens"),
        Err(e) => e.to_compile_error(),
    }
}

fn parse(input: TokenStream) -> Result<(String, Vec<Field>), Error> {
    let mut tokens = input.into_iter().peekable();
    let mut name = None;
    while let Some(t) = tokens.next() {
        match &t {
            TokenTree::Ident(i) if i.to_string() == "struct" => {
                name = match tokens.next() {
                    Some(TokenTree::Ident(n)) => Some(n.to_string()),
                    _ => return Err(Error::new(i.span(), "expected the struct's name")),
                };
                break;
            }
            TokenTree::Ident(i) if i.to_string() == "enum" || i.to_string() == "union" => {
                return Err(Error::new(i.span(), "SerializeFields derives structs only"));
            }
            _ => {}
        }
    }
    let Some(name) = name else {
        return Err(Error::new(
            Span::call_site(),
            "SerializeFields derives structs only",
        ));
    };
    match tokens.next() {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
            Ok((name, fields(g.stream())?))
        }
        Some(t) => Err(Error::new(
            t.span(),
            "SerializeFields takes a struct with named fields and no generics",
        )),
        None => Err(Error::new(
            Span::call_site(),
            "expected the struct's fields",
        )),
    }
}

/// The fields of `{ ... }`: attributes, visibility, `name: Type`, separated by commas at
/// angle-bracket depth 0 (the commas of `BTreeMap<K, V>` are not in a group).
fn fields(body: TokenStream) -> Result<Vec<Field>, Error> {
    let mut out = Vec::new();
    let mut tokens = body.into_iter().peekable();
    loop {
        let mut field = Field {
            ident: String::new(),
            key: String::new(),
            skip_if: None,
            flatten: false,
        };
        let mut rename = None;
        // Attributes.
        while let Some(TokenTree::Punct(p)) = tokens.peek() {
            if p.as_char() != '#' {
                break;
            }
            tokens.next();
            match tokens.next() {
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket => {
                    serde_attr(g.stream(), &mut field, &mut rename)?
                }
                Some(t) => return Err(Error::new(t.span(), "expected an attribute")),
                None => return Err(Error::new(Span::call_site(), "expected an attribute")),
            }
        }
        // Visibility, then the name.
        let ident = loop {
            match tokens.next() {
                None => return Ok(out),
                Some(TokenTree::Ident(i)) if i.to_string() == "pub" => {
                    if let Some(TokenTree::Group(g)) = tokens.peek()
                        && g.delimiter() == Delimiter::Parenthesis
                    {
                        tokens.next();
                    }
                }
                Some(TokenTree::Ident(i)) => break i,
                Some(t) => return Err(Error::new(t.span(), "expected a named field")),
            }
        };
        match tokens.next() {
            Some(TokenTree::Punct(p)) if p.as_char() == ':' => {}
            _ => {
                return Err(Error::new(
                    ident.span(),
                    "expected `: Type` after the field",
                ))
            }
        }
        // The type, up to a comma outside angle brackets.
        let mut depth = 0i32;
        let mut previous = None;
        for t in tokens.by_ref() {
            if let TokenTree::Punct(p) = &t {
                match p.as_char() {
                    ',' if depth == 0 => break,
                    '<' => depth += 1,
                    // Not the `>` of `->`.
                    '>' if previous != Some('-') => depth -= 1,
                    _ => {}
                }
                previous = (p.spacing() == Spacing::Joint).then_some(p.as_char());
            } else {
                previous = None;
            }
        }
        let raw = ident.to_string();
        field.ident = raw.clone();
        field.key = rename.unwrap_or_else(|| raw.trim_start_matches("r#").to_string());
        out.push(field);
    }
}

/// Reads `serde(...)` of one `#[...]`; other attributes (docs, cfg) are left alone.
fn serde_attr(
    attr: TokenStream,
    field: &mut Field,
    rename: &mut Option<String>,
) -> Result<(), Error> {
    let mut tokens = attr.into_iter();
    match tokens.next() {
        Some(TokenTree::Ident(i)) if i.to_string() == "serde" => {}
        _ => return Ok(()),
    }
    let Some(TokenTree::Group(args)) = tokens.next() else {
        return Ok(());
    };
    let mut args = args.stream().into_iter().peekable();
    while let Some(t) = args.next() {
        let TokenTree::Ident(key) = &t else {
            continue; // the commas between arguments
        };
        let value = match args.peek() {
            Some(TokenTree::Punct(p)) if p.as_char() == '=' => {
                args.next();
                match args.next() {
                    Some(TokenTree::Literal(l)) => {
                        let s = l.to_string();
                        Some(s.trim_matches('"').to_string())
                    }
                    _ => return Err(Error::new(key.span(), "expected a string after `=`")),
                }
            }
            _ => None,
        };
        match (key.to_string().as_str(), value) {
            ("flatten", None) => field.flatten = true,
            ("rename", Some(v)) => *rename = Some(v),
            ("skip_serializing_if", Some(v)) => field.skip_if = Some(v),
            ("default", _) | ("deserialize_with", Some(_)) => {}
            _ => {
                return Err(Error::new(
                    key.span(),
                    "SerializeFields handles serde's rename, skip_serializing_if, flatten, \
                     default and deserialize_with only",
                ));
            }
        }
    }
    Ok(())
}

fn generate(name: &str, fields: &[Field]) -> String {
    let mut body = String::new();
    for f in fields {
        let entry = if f.flatten {
            format!("crate::ser::Fields::fields(&self.{}, m)?;", f.ident)
        } else {
            format!(
                "::serde::ser::SerializeMap::serialize_entry(m, {:?}, &self.{})?;",
                f.key, f.ident
            )
        };
        match &f.skip_if {
            Some(path) => body += &format!("if !{path}(&self.{}) {{ {entry} }}", f.ident),
            None => body += &entry,
        }
    }
    format!(
        "impl crate::ser::Fields for {name} {{
            fn fields<M: ::serde::ser::SerializeMap>(&self, m: &mut M)
                -> ::core::result::Result<(), M::Error> {{
                {body}
                ::core::result::Result::Ok(())
            }}
        }}
        impl ::serde::Serialize for {name} {{
            fn serialize<S: ::serde::Serializer>(&self, s: S)
                -> ::core::result::Result<S::Ok, S::Error> {{
                crate::ser::map(self, s)
            }}
        }}"
    )
}
