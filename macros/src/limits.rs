//! The row limits of `#[hotpath::main]`: `limit = N` and `<section>_limit = N`. Each key
//! names the `HotpathGuardBuilder` method it calls, so the builder's methods are the one
//! list of sections: a new section's limit needs no change here, and a name the builder
//! lacks is the compiler's "no method named `…_limit`" error at the key.
//!
//! Both builds emit the same calls ([`calls`]): the feature-on build in the chain that
//! builds the guard, the feature-off build in an item that is only type-checked
//! ([`checked`]), so an unknown limit fails identically with and without the feature.

use proc_macro::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

/// One `limit = N` or `<section>_limit = N`.
pub struct Limit {
    /// The key as written, with its span: the name of the builder method.
    pub method: Ident,
    /// The rows, `0` for all.
    pub rows: u64,
}

/// Whether `key` is `limit` or `<section>_limit` with a non-empty section.
pub fn is_limit_key(key: &str) -> bool {
    key == "limit" || key.strip_suffix("_limit").is_some_and(|s| !s.is_empty())
}

/// `.<method>(N as usize)` for each limit, in the order written. Only the method's name
/// carries the key's span (where an unknown name is reported); the rest is the call site's.
pub fn calls(limits: &[Limit]) -> TokenStream {
    let site = Span::call_site();
    let mut out = TokenStream::new();
    for l in limits {
        let mut rows = Literal::u64_unsuffixed(l.rows);
        rows.set_span(site);
        let arg: TokenStream = [
            TokenTree::Literal(rows),
            TokenTree::Ident(Ident::new("as", site)),
            TokenTree::Ident(Ident::new("usize", site)),
        ]
        .into_iter()
        .collect();
        out.extend([
            TokenTree::Punct(Punct::new('.', Spacing::Alone)),
            TokenTree::Ident(l.method.clone()),
            TokenTree::Group(Group::new(Delimiter::Parenthesis, arg)),
        ]);
    }
    out
}

/// The feature-off build's `fn`, with its limits checked: the item as written, its body
/// starting (after any inner attributes) with `const _: fn(B) -> B = |b| b<calls>;`, where
/// `B` is the builder (zero-sized, with the same methods, without the feature). In the
/// body rather than beside the `fn`, where an `impl` or a trait would not take it. The
/// item unchanged when no limit is given.
#[cfg(not(feature = "hotpath"))]
pub fn checked(item: TokenStream, limits: &[Limit]) -> TokenStream {
    if limits.is_empty() {
        return item;
    }
    let mut toks: Vec<TokenTree> = item.into_iter().collect();
    let Some(TokenTree::Group(body)) = toks.pop() else {
        unreachable!("attr::expect_fn accepted a function with a body");
    };
    let stmts: Vec<TokenTree> = body.stream().into_iter().collect();
    let is =
        |i: usize, c: char| matches!(stmts.get(i), Some(TokenTree::Punct(p)) if p.as_char() == c);
    let mut at = 0;
    while is(at, '#')
        && is(at + 1, '!')
        && matches!(stmts.get(at + 2), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket)
    {
        at += 3;
    }
    let mut check: TokenStream =
        "const _: fn(::hotpath::HotpathGuardBuilder) -> ::hotpath::HotpathGuardBuilder = |b| b"
            .parse()
            .expect("the check's head parses");
    check.extend(calls(limits));
    check.extend([TokenTree::Punct(Punct::new(';', Spacing::Alone))]);
    let mut stream: TokenStream = stmts[..at].iter().cloned().collect();
    stream.extend(check);
    stream.extend(stmts[at..].iter().cloned());
    let mut new_body = Group::new(Delimiter::Brace, stream);
    new_body.set_span(body.span());
    toks.push(TokenTree::Group(new_body));
    toks.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::is_limit_key;

    #[test]
    fn limit_keys() {
        // Accepted whether or not the builder has the method: the compiler decides that.
        let limits = [
            "limit",
            "io_limit",
            "rw_locks_limit",
            "sql_limit",
            "nope_limit",
        ];
        let others = [
            "_limit",
            "limits",
            "io_limits",
            "limit_io",
            "timeout",
            "format",
        ];
        for key in limits {
            assert!(is_limit_key(key), "{key}");
        }
        for key in others {
            assert!(!is_limit_key(key), "{key}");
        }
    }
}
