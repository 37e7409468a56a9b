//! Typed arguments of the attributes, parsed from `proc_macro` tokens alone so that the
//! feature-off build validates exactly like the feature-on build without depending on
//! `syn`. Also the small item classifier both builds use to reject misplaced attributes
//! with the same message.

use proc_macro::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

/// A diagnostic at a span.
pub struct Error {
    span: Span,
    msg: String,
}

impl Error {
    pub fn new(span: Span, msg: impl Into<String>) -> Self {
        Error {
            span,
            msg: msg.into(),
        }
    }

    /// `compile_error!("msg")` with every token at the error's span.
    pub fn to_compile_error(&self) -> TokenStream {
        let s = self.span;
        let mut lit = Literal::string(&self.msg);
        lit.set_span(s);
        let mut bang = Punct::new('!', Spacing::Alone);
        bang.set_span(s);
        let mut group = Group::new(Delimiter::Brace, TokenStream::from(TokenTree::Literal(lit)));
        group.set_span(s);
        [
            TokenTree::Ident(Ident::new("compile_error", s)),
            TokenTree::Punct(bang),
            TokenTree::Group(group),
        ]
        .into_iter()
        .collect()
    }
}

/// Report format named by `format = "..."`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    JsonPretty,
    None,
}

impl Format {
    #[cfg_attr(not(feature = "hotpath"), allow(dead_code))]
    pub fn variant(self) -> &'static str {
        match self {
            Format::Table => "Table",
            Format::Json => "Json",
            Format::JsonPretty => "JsonPretty",
            Format::None => "None",
        }
    }
}

/// Most percentiles a report shows.
const MAX_PERCENTILES: usize = 10;

/// Arguments of `#[hotpath::main(...)]`.
#[derive(Default)]
#[cfg_attr(not(feature = "hotpath"), allow(dead_code))]
pub struct MainArgs {
    pub percentiles: Option<Vec<f64>>,
    pub format: Option<Format>,
    pub limit: Option<u64>,
    pub functions_limit: Option<u64>,
    pub threads_limit: Option<u64>,
    pub io_limit: Option<u64>,
    pub channels_limit: Option<u64>,
    pub streams_limit: Option<u64>,
    pub futures_limit: Option<u64>,
    pub mutexes_limit: Option<u64>,
    pub rw_locks_limit: Option<u64>,
    pub output_path: Option<Literal>,
    pub timeout: Option<u64>,
    pub allocator: Option<TokenStream>,
    pub report: Option<Literal>,
}

const MAIN_KEYS: &str =
    "percentiles = [..], format = \"table\"|\"json\"|\"json-pretty\"|\"none\", \
limit = N, functions_limit = N, threads_limit = N, io_limit = N, channels_limit = N, \
streams_limit = N, futures_limit = N, mutexes_limit = N, rw_locks_limit = N, output_path = \"..\", \
timeout = MS, allocator = path::Type, report = \"..\"";

/// Arguments of `#[hotpath::measure(...)]` and `#[hotpath::future_fn(...)]`.
#[derive(Default)]
#[cfg_attr(not(feature = "hotpath"), allow(dead_code))]
pub struct MeasureArgs {
    pub label: Option<Literal>,
    pub log: bool,
    pub future: bool,
}

/// One `key = value` pair.
struct Arg {
    key: Ident,
    value: Vec<TokenTree>,
    eq_span: Span,
}

fn split_args(attr: TokenStream) -> Result<Vec<Arg>, Error> {
    let mut out = Vec::new();
    let mut it = attr.into_iter().peekable();
    while let Some(tt) = it.next() {
        let key = match tt {
            TokenTree::Ident(i) => i,
            other => return Err(Error::new(other.span(), "expected `name = value`")),
        };
        let eq_span = match it.next() {
            Some(TokenTree::Punct(p)) if p.as_char() == '=' => p.span(),
            Some(other) => {
                return Err(Error::new(
                    other.span(),
                    format!("expected `=` after `{key}`"),
                ))
            }
            None => {
                return Err(Error::new(
                    key.span(),
                    format!("expected `=` after `{key}`"),
                ))
            }
        };
        let mut value = Vec::new();
        while let Some(tt) = it.peek() {
            if matches!(tt, TokenTree::Punct(p) if p.as_char() == ',') {
                it.next();
                break;
            }
            value.push(it.next().expect("peeked"));
        }
        if value.is_empty() {
            return Err(Error::new(eq_span, format!("expected a value for `{key}`")));
        }
        out.push(Arg {
            key,
            value,
            eq_span,
        });
    }
    Ok(out)
}

impl Arg {
    fn single(&self) -> Result<&TokenTree, Error> {
        match self.value.as_slice() {
            [one] => Ok(one),
            [_, second, ..] => Err(Error::new(second.span(), "unexpected token")),
            [] => Err(Error::new(self.eq_span, "expected a value")),
        }
    }

    fn string(&self) -> Result<(Literal, String), Error> {
        match self.single()? {
            TokenTree::Literal(l) => match unquote(&l.to_string()) {
                Some(s) => Ok((l.clone(), s)),
                None => Err(Error::new(
                    l.span(),
                    format!("`{}` expects a string literal", self.key),
                )),
            },
            other => Err(Error::new(
                other.span(),
                format!("`{}` expects a string literal", self.key),
            )),
        }
    }

    fn int(&self) -> Result<u64, Error> {
        match self.single()? {
            TokenTree::Literal(l) => parse_int(&l.to_string()).ok_or_else(|| {
                Error::new(
                    l.span(),
                    format!("`{}` expects a non-negative integer", self.key),
                )
            }),
            other => Err(Error::new(
                other.span(),
                format!("`{}` expects a non-negative integer", self.key),
            )),
        }
    }

    fn bool(&self) -> Result<bool, Error> {
        match self.single()? {
            TokenTree::Ident(i) if i.to_string() == "true" => Ok(true),
            TokenTree::Ident(i) if i.to_string() == "false" => Ok(false),
            other => Err(Error::new(
                other.span(),
                format!("`{}` expects `true` or `false`", self.key),
            )),
        }
    }
}

/// Parses `#[hotpath::main(...)]` arguments.
pub fn main_args(attr: TokenStream) -> Result<MainArgs, Error> {
    let mut a = MainArgs::default();
    for arg in split_args(attr)? {
        let key = arg.key.to_string();
        let dup = |set: bool| {
            if set {
                Err(Error::new(arg.key.span(), format!("`{key}` given twice")))
            } else {
                Ok(())
            }
        };
        match key.as_str() {
            "percentiles" => {
                dup(a.percentiles.is_some())?;
                a.percentiles = Some(percentiles(&arg)?);
            }
            "format" => {
                dup(a.format.is_some())?;
                let (lit, s) = arg.string()?;
                a.format = Some(match s.as_str() {
                    "table" => Format::Table,
                    "json" => Format::Json,
                    "json-pretty" => Format::JsonPretty,
                    "none" => Format::None,
                    other => {
                        return Err(Error::new(
                            lit.span(),
                            format!(
                                "unknown format \"{other}\"; expected \"table\", \"json\", \"json-pretty\" or \"none\""
                            ),
                        ))
                    }
                });
            }
            "limit" => {
                dup(a.limit.is_some())?;
                a.limit = Some(arg.int()?);
            }
            "functions_limit" => {
                dup(a.functions_limit.is_some())?;
                a.functions_limit = Some(arg.int()?);
            }
            "threads_limit" => {
                dup(a.threads_limit.is_some())?;
                a.threads_limit = Some(arg.int()?);
            }
            "io_limit" => {
                dup(a.io_limit.is_some())?;
                a.io_limit = Some(arg.int()?);
            }
            "channels_limit" => {
                dup(a.channels_limit.is_some())?;
                a.channels_limit = Some(arg.int()?);
            }
            "streams_limit" => {
                dup(a.streams_limit.is_some())?;
                a.streams_limit = Some(arg.int()?);
            }
            "futures_limit" => {
                dup(a.futures_limit.is_some())?;
                a.futures_limit = Some(arg.int()?);
            }
            "mutexes_limit" => {
                dup(a.mutexes_limit.is_some())?;
                a.mutexes_limit = Some(arg.int()?);
            }
            "rw_locks_limit" => {
                dup(a.rw_locks_limit.is_some())?;
                a.rw_locks_limit = Some(arg.int()?);
            }
            "output_path" => {
                dup(a.output_path.is_some())?;
                let (lit, s) = arg.string()?;
                if s.is_empty() {
                    return Err(Error::new(lit.span(), "`output_path` must not be empty"));
                }
                a.output_path = Some(lit);
            }
            "timeout" => {
                dup(a.timeout.is_some())?;
                let ms = arg.int()?;
                if ms == 0 {
                    return Err(Error::new(
                        arg.value[0].span(),
                        "`timeout` must be at least 1 ms",
                    ));
                }
                a.timeout = Some(ms);
            }
            "allocator" => {
                dup(a.allocator.is_some())?;
                a.allocator = Some(type_path(&arg)?);
            }
            "report" => {
                dup(a.report.is_some())?;
                a.report = Some(arg.string()?.0);
            }
            _ => {
                return Err(Error::new(
                    arg.key.span(),
                    format!("unknown argument `{key}`; supported: {MAIN_KEYS}"),
                ))
            }
        }
    }
    Ok(a)
}

/// Parses `#[hotpath::measure(...)]` arguments (`future_fn` accepts `log` only).
pub fn measure_args(attr: TokenStream, future_fn: bool) -> Result<MeasureArgs, Error> {
    let mut a = MeasureArgs::default();
    let supported = if future_fn {
        "log = bool"
    } else {
        "label = \"..\", log = bool, future = bool"
    };
    for arg in split_args(attr)? {
        let key = arg.key.to_string();
        match key.as_str() {
            "label" if !future_fn => {
                let (lit, s) = arg.string()?;
                if s.is_empty() {
                    return Err(Error::new(lit.span(), "`label` must not be empty"));
                }
                a.label = Some(lit);
            }
            "log" => a.log = arg.bool()?,
            "future" if !future_fn => a.future = arg.bool()?,
            _ => {
                return Err(Error::new(
                    arg.key.span(),
                    format!("unknown argument `{key}`; supported: {supported}"),
                ))
            }
        }
    }
    Ok(a)
}

/// Rejects any argument.
pub fn no_args(attr: TokenStream, name: &str) -> Result<(), Error> {
    match attr.into_iter().next() {
        None => Ok(()),
        Some(tt) => Err(Error::new(
            tt.span(),
            format!("`#[hotpath::{name}]` takes no arguments"),
        )),
    }
}

fn percentiles(arg: &Arg) -> Result<Vec<f64>, Error> {
    let group = match arg.single()? {
        TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket => g,
        other => {
            return Err(Error::new(
                other.span(),
                "`percentiles` expects a list such as [50, 95, 99.9]",
            ))
        }
    };
    let mut vals: Vec<f64> = Vec::new();
    let mut expect_value = true;
    for tt in group.stream() {
        match (&tt, expect_value) {
            (TokenTree::Literal(l), true) => {
                let v = parse_number(&l.to_string()).ok_or_else(|| {
                    Error::new(l.span(), "percentiles must be numbers between 0 and 100")
                })?;
                if !(0.0..=100.0).contains(&v) {
                    return Err(Error::new(
                        l.span(),
                        format!(
                            "percentile {v} is out of range; percentiles are between 0 and 100"
                        ),
                    ));
                }
                vals.push(v);
                expect_value = false;
            }
            (TokenTree::Punct(p), false) if p.as_char() == ',' => expect_value = true,
            _ => {
                return Err(Error::new(
                    tt.span(),
                    "percentiles must be numbers between 0 and 100",
                ))
            }
        }
    }
    if vals.is_empty() {
        return Err(Error::new(group.span(), "give at least one percentile"));
    }
    vals.sort_by(f64::total_cmp);
    vals.dedup();
    if vals.len() > MAX_PERCENTILES {
        return Err(Error::new(
            group.span(),
            format!(
                "{} percentiles given; at most {MAX_PERCENTILES} are shown",
                vals.len()
            ),
        ));
    }
    Ok(vals)
}

fn type_path(arg: &Arg) -> Result<TokenStream, Error> {
    let mut expect_ident = true;
    for tt in &arg.value {
        match tt {
            TokenTree::Ident(_) if expect_ident => expect_ident = false,
            TokenTree::Punct(p) if p.as_char() == ':' && !expect_ident => {
                if p.spacing() == Spacing::Alone {
                    expect_ident = true;
                }
            }
            TokenTree::Punct(p) if p.as_char() == ':' => {}
            _ => {
                return Err(Error::new(
                    tt.span(),
                    "`allocator` expects the path of a unit struct, such as mimalloc::MiMalloc",
                ))
            }
        }
    }
    if expect_ident {
        return Err(Error::new(arg.eq_span, "`allocator` expects a type path"));
    }
    Ok(arg.value.iter().cloned().collect())
}

fn parse_int(s: &str) -> Option<u64> {
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

fn parse_number(s: &str) -> Option<f64> {
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
fn unquote(src: &str) -> Option<String> {
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

/// What an attribute was placed on.
#[cfg_attr(not(feature = "hotpath"), allow(dead_code))]
pub enum ItemKind {
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
pub fn classify(item: &TokenStream) -> ItemKind {
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

/// Checks that `#[hotpath::<attr>]` sits on a function it can measure.
pub fn expect_fn(item: &TokenStream, attr: &str, need_async: bool) -> Result<(bool, Ident), Error> {
    match classify(item) {
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

// ---------------------------------------------------------------------------------------
// `channel!`, `stream!`, `future!`: an expression, then `key = value` arguments
// ---------------------------------------------------------------------------------------

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
        capacity: None,
        iter: false,
        ctor: None,
    };
    let (mut seen_label, mut seen_log, mut seen_iter) = (false, false, false);
    for part in parts {
        let rest: TokenStream = part.into_iter().collect();
        for arg in split_args(rest)? {
            let key = arg.key.to_string();
            let dup = |seen: bool| {
                if seen {
                    Err(Error::new(arg.key.span(), format!("`{key}` given twice")))
                } else {
                    Ok(())
                }
            };
            match key.as_str() {
                "label" => {
                    dup(seen_label)?;
                    seen_label = true;
                    if let [TokenTree::Literal(l)] = arg.value.as_slice()
                        && unquote(&l.to_string()).is_some_and(|s| s.is_empty())
                    {
                        return Err(Error::new(l.span(), "`label` must not be empty"));
                    }
                    call.label = Some(arg.value.iter().cloned().collect());
                }
                "log" => {
                    dup(seen_log)?;
                    seen_log = true;
                    arg.bool()?;
                }
                "iter" if mac != FlowMacro::Future => {
                    dup(seen_iter)?;
                    seen_iter = true;
                    call.iter = arg.bool()?;
                }
                "capacity" if mac == FlowMacro::Channel => {
                    dup(call.capacity.is_some())?;
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
