//! What an attribute was placed on, read from the item's leading tokens alone, so that
//! both builds reject a misplaced attribute with the same message.

use proc_macro::{Delimiter, Ident, Span, TokenStream, TokenTree};

use super::Error;

/// What an attribute was placed on.
#[cfg_attr(not(feature = "hotpath"), allow(dead_code))]
enum ItemKind {
    Fn {
        is_async: bool,
        is_const: bool,
        name: Ident,
    },
    Impl,
    Mod {
        inline: bool,
    },
    Other,
}

/// Classifies an item by its leading tokens: attributes, visibility and qualifiers are
/// skipped, then `fn`, `impl` or `mod` decides.
fn classify(item: &TokenStream) -> ItemKind {
    let toks: Vec<TokenTree> = item.clone().into_iter().collect();
    let mut i = 0;
    let (mut is_async, mut is_const) = (false, false);
    while i < toks.len() {
        match &toks[i] {
            TokenTree::Punct(p) if p.as_char() == '#' => {
                i += 1;
                if matches!(toks.get(i), Some(TokenTree::Punct(p)) if p.as_char() == '!') {
                    i += 1;
                }
                i += 1; // the [..] group
            }
            TokenTree::Ident(id) => {
                let s = id.to_string();
                match s.as_str() {
                    "pub" => {
                        i += 1;
                        if matches!(toks.get(i), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
                        {
                            i += 1;
                        }
                    }
                    "async" => {
                        is_async = true;
                        i += 1;
                    }
                    "const" => {
                        is_const = true;
                        i += 1;
                    }
                    "unsafe" | "default" => i += 1,
                    "extern" => {
                        i += 1;
                        if matches!(toks.get(i), Some(TokenTree::Literal(_))) {
                            i += 1;
                        }
                    }
                    "fn" => {
                        return match toks.get(i + 1) {
                            Some(TokenTree::Ident(name)) => ItemKind::Fn {
                                is_async,
                                is_const,
                                name: name.clone(),
                            },
                            _ => ItemKind::Other,
                        }
                    }
                    "impl" => return ItemKind::Impl,
                    "mod" => {
                        let inline = matches!(toks.get(i + 2), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace);
                        return ItemKind::Mod { inline };
                    }
                    _ => return ItemKind::Other,
                }
            }
            _ => return ItemKind::Other,
        }
    }
    ItemKind::Other
}

/// Whether the function's body is only `Box::pin(async move { .. })` (any path ending in
/// `Box::pin`, `async` with or without `move`): an `async fn` as `#[async_trait]` rewrites
/// it, measured as the future it returns. The token-level twin of `expand`'s check.
fn boxes_an_async_block(item: &TokenStream) -> bool {
    let Some(TokenTree::Group(body)) = item.clone().into_iter().last() else {
        return false;
    };
    let toks: Vec<TokenTree> = body.stream().into_iter().collect();
    let Some((TokenTree::Group(args), mut path)) = toks.split_last() else {
        return false;
    };
    // `[::] a :: b :: .. :: Box :: pin`
    let mut idents = Vec::new();
    while !path.is_empty() {
        match path {
            [TokenTree::Punct(a), TokenTree::Punct(b), tail @ ..]
                if a.as_char() == ':' && b.as_char() == ':' =>
            {
                path = tail
            }
            _ if idents.is_empty() => {}
            _ => return false,
        }
        let [TokenTree::Ident(i), tail @ ..] = path else {
            return false;
        };
        idents.push(i.to_string());
        path = tail;
    }
    let is_box_pin = idents.len() >= 2 && idents[idents.len() - 2..] == ["Box", "pin"];
    let arg: Vec<String> = args
        .stream()
        .into_iter()
        .map(|t| match t {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => "{}".to_string(),
            t => t.to_string(),
        })
        .collect();
    let is_async_block = matches!(
        arg.iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice(),
        ["async", "{}"] | ["async", "move", "{}"]
    );
    args.delimiter() == Delimiter::Parenthesis && is_box_pin && is_async_block
}

/// Checks that `#[hotpath::<attr>]` sits on a function it can measure. `need_async`: an
/// `async fn`, or a function that only boxes an async block (`#[async_trait]`'s shape).
pub fn expect_fn(item: &TokenStream, attr: &str, need_async: bool) -> Result<(bool, Ident), Error> {
    match classify(item) {
        ItemKind::Fn { is_async: false, is_const: false, name } if need_async && boxes_an_async_block(item) => {
            Ok((true, name))
        }
        ItemKind::Fn { is_const: true, name, .. } => Err(Error::new(
            name.span(),
            format!("`#[hotpath::{attr}]` cannot measure a `const fn`: its body may run at compile time"),
        )),
        ItemKind::Fn { is_async: false, name, .. } if need_async => Err(Error::new(
            name.span(),
            format!("`#[hotpath::{attr}]` needs an `async fn`"),
        )),
        ItemKind::Fn { name, .. }
            if !matches!(item.clone().into_iter().last(), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace) =>
        {
            Err(Error::new(name.span(), format!("`#[hotpath::{attr}]` needs a function with a body")))
        }
        ItemKind::Fn { is_async, name, .. } => Ok((is_async, name)),
        _ => Err(Error::new(
            Span::call_site(),
            format!("`#[hotpath::{attr}]` can only be placed on a function"),
        )),
    }
}

/// Checks that `#[hotpath::measure_all]` sits on an `impl` block or an inline module.
pub fn expect_impl_or_mod(item: &TokenStream) -> Result<(), Error> {
    match classify(item) {
        ItemKind::Impl | ItemKind::Mod { inline: true } => Ok(()),
        ItemKind::Mod { inline: false } => Err(Error::new(
            Span::call_site(),
            "`#[hotpath::measure_all]` needs the module's body inline (`mod m { .. }`)",
        )),
        _ => Err(Error::new(
            Span::call_site(),
            "`#[hotpath::measure_all]` can only be placed on an `impl` block or an inline module",
        )),
    }
}
