//! The input of `channel!`, `stream!` and `future!`: an expression, then `key = value`
//! arguments; for `channel!`, the expression is a constructor call taken apart.

use proc_macro::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};

use super::lit::{parse_int, unquote};
use super::{split_args, Error};

/// Which function-like macro is being parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowMacro {
    Channel,
    Stream,
    Future,
}

impl FlowMacro {
    fn name(self) -> &'static str {
        match self {
            FlowMacro::Channel => "channel",
            FlowMacro::Stream => "stream",
            FlowMacro::Future => "future",
        }
    }

    fn keys(self) -> &'static str {
        match self {
            FlowMacro::Channel => "label = \"..\", capacity = N, log = bool, iter = bool",
            FlowMacro::Stream => "label = \"..\", log = bool, iter = bool",
            FlowMacro::Future => "label = \"..\", log = bool",
        }
    }
}

/// A parsed `channel!(...)`, `stream!(...)` or `future!(...)`.
#[cfg_attr(not(feature = "hotpath"), allow(dead_code))]
pub struct FlowCall {
    /// The first argument, as written.
    pub expr: TokenStream,
    pub label: Option<TokenStream>,
    /// The label is an expression, not a literal: evaluated at run time (feature
    /// `hotpath`), type-checked but not evaluated (without it).
    pub label_expr: bool,
    pub capacity: Option<TokenStream>,
    pub iter: bool,
    /// `channel!` only: the constructor call, taken apart.
    pub ctor: Option<Ctor>,
}

/// A channel constructor call: `path::to::name::<M>(args)`.
#[cfg_attr(not(feature = "hotpath"), allow(dead_code))]
pub struct Ctor {
    /// The path up to (not including) a final turbofish.
    pub path: Vec<TokenTree>,
    /// The message type of a final turbofish `::<M>`, if any.
    pub message: Option<TokenStream>,
    /// The argument list.
    pub args: Group,
    /// `watch::channel(init)`: the argument is the initial value, the messages are not
    /// stamped.
    pub watch: bool,
    /// The single argument is the channel's capacity (`sync_channel(n)`, `bounded(n)`,
    /// `mpsc::channel(n)`, `broadcast::channel(n)`).
    pub capacity_arg: bool,
}

const CONSTRUCTORS: &[&str] = &[
    "channel",
    "sync_channel",
    "bounded",
    "unbounded",
    "unbounded_channel",
];

fn is_punct(t: &TokenTree, c: char) -> bool {
    matches!(t, TokenTree::Punct(p) if p.as_char() == c)
}

/// Whether `value` is one string literal (also as a macro_rules fragment passed through,
/// in an invisible group): a label that is part of the `static` site. Anything else is an
/// expression, evaluated at run time.
fn is_literal(value: &[TokenTree]) -> bool {
    match value {
        [TokenTree::Literal(l)] => unquote(&l.to_string()).is_some(),
        [TokenTree::Group(g)] if g.delimiter() == Delimiter::None => {
            is_literal(&g.stream().into_iter().collect::<Vec<_>>())
        }
        _ => false,
    }
}

/// Splits `tokens` at commas outside groups and outside the angle brackets of generic
/// arguments (`f::<HashMap<K, V>>(x), label = "a"` has two parts).
fn split_top_level(tokens: TokenStream) -> Vec<Vec<TokenTree>> {
    let toks: Vec<TokenTree> = tokens.into_iter().collect();
    let mut parts = vec![Vec::new()];
    let mut angle = 0usize;
    for (i, t) in toks.iter().enumerate() {
        let part = parts.last_mut().expect("one part");
        if is_punct(t, '<') {
            let after_path = i >= 2 && is_punct(&toks[i - 1], ':') && is_punct(&toks[i - 2], ':');
            if angle > 0 || after_path || part.is_empty() {
                angle += 1;
            }
        } else if is_punct(t, '>') && angle > 0 && !(i > 0 && is_punct(&toks[i - 1], '-')) {
            angle -= 1;
        } else if is_punct(t, ',') && angle == 0 {
            parts.push(Vec::new());
            continue;
        }
        part.push(t.clone());
    }
    if parts.last().is_some_and(|p| p.is_empty()) && parts.len() > 1 {
        parts.pop(); // a trailing comma
    }
    parts
}

/// Parses the input of `channel!`, `stream!` or `future!`, with the same diagnostics in
/// both builds.
pub fn flow_call(input: TokenStream, mac: FlowMacro) -> Result<FlowCall, Error> {
    let name = mac.name();
    let mut parts = split_top_level(input).into_iter();
    let first = parts.next().unwrap_or_default();
    if first.is_empty() {
        return Err(Error::new(
            Span::call_site(),
            format!("`{name}!` needs an expression as its first argument"),
        ));
    }
    let mut call = FlowCall {
        expr: first.iter().cloned().collect(),
        label: None,
        label_expr: false,
        capacity: None,
        iter: false,
        ctor: None,
    };
    let (mut seen_label, mut seen_log, mut seen_iter) = (false, false, false);
    for part in parts {
        let rest: TokenStream = part.into_iter().collect();
        for arg in split_args(rest)? {
            let key = arg.key.to_string();
            match key.as_str() {
                "label" => {
                    arg.once(seen_label)?;
                    seen_label = true;
                    if let [TokenTree::Literal(l)] = arg.value.as_slice()
                        && unquote(&l.to_string()).is_some_and(|s| s.is_empty())
                    {
                        return Err(Error::new(l.span(), "`label` must not be empty"));
                    }
                    call.label_expr = !is_literal(&arg.value);
                    call.label = Some(arg.value.iter().cloned().collect());
                }
                "log" => {
                    arg.once(seen_log)?;
                    seen_log = true;
                    arg.bool()?;
                }
                "iter" if mac != FlowMacro::Future => {
                    arg.once(seen_iter)?;
                    seen_iter = true;
                    call.iter = arg.bool()?;
                }
                "capacity" if mac == FlowMacro::Channel => {
                    arg.once(call.capacity.is_some())?;
                    call.capacity = Some(arg.value.iter().cloned().collect());
                }
                _ => {
                    return Err(Error::new(
                        arg.key.span(),
                        format!("unknown argument `{key}`; supported: {}", mac.keys()),
                    ))
                }
            }
        }
    }
    if mac == FlowMacro::Channel {
        let c = ctor(&first)?;
        // Both numbers written as literals: a mismatch is known now, in both builds.
        if let (true, Some(declared)) = (c.capacity_arg, &call.capacity) {
            let lit = |ts: &TokenStream| match ts.clone().into_iter().collect::<Vec<_>>().as_slice()
            {
                [TokenTree::Literal(l)] => parse_int(&l.to_string()),
                _ => None,
            };
            if let (Some(a), Some(d)) = (lit(&c.args.stream()), lit(declared))
                && a != d
            {
                let span = declared
                    .clone()
                    .into_iter()
                    .next()
                    .map_or(Span::call_site(), |t| t.span());
                return Err(Error::new(
                    span,
                    format!(
                        "`capacity = {d}` disagrees with the constructor's capacity {a}; \
                         correct or remove it (hotpath checks it and never changes the channel)"
                    ),
                ));
            }
        }
        call.ctor = Some(c);
    }
    Ok(call)
}

/// Takes a channel constructor call apart, or says why it is not one.
fn ctor(toks: &[TokenTree]) -> Result<Ctor, Error> {
    let not_a_call = |span: Span| {
        Error::new(
            span,
            "`channel!` needs the channel's constructor call, such as \
             `channel!(std::sync::mpsc::sync_channel::<u64>(16))`: hotpath instruments the \
             channel you create in place and never builds another one",
        )
    };
    let Some((TokenTree::Group(args), path)) = toks.split_last() else {
        return Err(not_a_call(toks[0].span()));
    };
    if args.delimiter() != Delimiter::Parenthesis || path.is_empty() {
        return Err(not_a_call(toks[0].span()));
    }
    // path: [::] ident (:: ident)* [:: < .. >]
    let mut segments: Vec<Ident> = Vec::new();
    let mut i = 0;
    let mut turbofish_at = None;
    if path.len() >= 2 && is_punct(&path[0], ':') && is_punct(&path[1], ':') {
        i = 2;
    }
    loop {
        match path.get(i) {
            Some(TokenTree::Ident(id)) => {
                segments.push(id.clone());
                i += 1;
            }
            _ => return Err(not_a_call(path.get(i).map_or(args.span(), |t| t.span()))),
        }
        if i == path.len() {
            break;
        }
        if !(is_punct(&path[i], ':') && path.get(i + 1).is_some_and(|t| is_punct(t, ':'))) {
            return Err(not_a_call(path[i].span()));
        }
        i += 2;
        if path.get(i).is_some_and(|t| is_punct(t, '<')) {
            // A turbofish: must be the last thing before the arguments.
            let last = path.len() - 1;
            if !is_punct(&path[last], '>') || last <= i + 1 {
                return Err(not_a_call(path[i].span()));
            }
            turbofish_at = Some(i - 2);
            break;
        }
    }
    let last = segments.last().expect("a segment").clone();
    let name = last.to_string();
    if !CONSTRUCTORS.contains(&name.as_str()) {
        return Err(Error::new(
            last.span(),
            format!(
                "`channel!` does not know the constructor `{name}`; it instruments calls of \
                 `channel`, `sync_channel`, `bounded`, `unbounded` and `unbounded_channel` \
                 (std, crossbeam, flume, async-channel, tokio, futures)"
            ),
        ));
    }
    let has = |s: &str| segments.iter().any(|id| id.to_string() == s);
    let watch = has("watch");
    let single_arg =
        !args.stream().is_empty() && !args.stream().into_iter().any(|t| is_punct(&t, ','));
    let capacity_arg = single_arg
        && (name == "sync_channel"
            || name == "bounded"
            || (name == "channel" && (has("mpsc") || has("broadcast"))));
    let (path, message) = match turbofish_at {
        Some(at) => (
            path[..at].to_vec(),
            Some(path[at + 3..path.len() - 1].iter().cloned().collect()),
        ),
        None => (path.to_vec(), None),
    };
    Ok(Ctor {
        path,
        message,
        args: args.clone(),
        watch,
        capacity_arg,
    })
}
