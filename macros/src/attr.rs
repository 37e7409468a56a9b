//! Typed arguments of the attributes, parsed from `proc_macro` tokens alone so that the
//! feature-off build validates exactly like the feature-on build without depending on
//! `syn`. The literals' values are read in [`lit`], the input of the function-like
//! macros in [`flow`], and where an attribute sits in [`item`].

use proc_macro::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

mod flow;
mod item;
mod lit;

pub use flow::{flow_call, FlowCall, FlowMacro};
pub use item::{expect_fn, expect_impl_or_mod};
use lit::{parse_int, parse_number, unquote};

use crate::limits::{is_limit_key, Limit};

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
    /// `limit = N` and `<section>_limit = N`, in the order written.
    pub limits: Vec<Limit>,
    pub output_path: Option<Literal>,
    pub timeout: Option<u64>,
    /// `overhead_budget = PERCENT` (integer or decimal literal).
    pub overhead_budget: Option<Literal>,
    pub allocator: Option<TokenStream>,
    pub report: Option<Literal>,
}

const MAIN_KEYS: &str =
    "percentiles = [..], format = \"table\"|\"json\"|\"json-pretty\"|\"none\", \
limit = N, <section>_limit = N (a `HotpathGuardBuilder` method: functions_limit, io_limit, \
sql_limit, ...), output_path = \"..\", timeout = MS, overhead_budget = PERCENT, \
allocator = path::Type, report = \"..\"";

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

    /// A number literal (integer or decimal) from 0 to 100.
    fn number(&self, expected: &str) -> Result<Literal, Error> {
        let err = |span| Error::new(span, format!("`{}` expects {expected}", self.key));
        match self.single()? {
            TokenTree::Literal(l) => {
                let v: Option<f64> = l.to_string().replace('_', "").parse().ok();
                match v {
                    Some(v) if (0.0..=100.0).contains(&v) => Ok(l.clone()),
                    _ => Err(err(l.span())),
                }
            }
            other => Err(err(other.span())),
        }
    }

    /// `Ok`, or the error of a key given twice when it was `given` before.
    fn once(&self, given: bool) -> Result<(), Error> {
        if given {
            Err(Error::new(
                self.key.span(),
                format!("`{}` given twice", self.key),
            ))
        } else {
            Ok(())
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
        match key.as_str() {
            "percentiles" => {
                arg.once(a.percentiles.is_some())?;
                a.percentiles = Some(percentiles(&arg)?);
            }
            "format" => {
                arg.once(a.format.is_some())?;
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
            "output_path" => {
                arg.once(a.output_path.is_some())?;
                let (lit, s) = arg.string()?;
                if s.is_empty() {
                    return Err(Error::new(lit.span(), "`output_path` must not be empty"));
                }
                a.output_path = Some(lit);
            }
            "timeout" => {
                arg.once(a.timeout.is_some())?;
                let ms = arg.int()?;
                if ms == 0 {
                    return Err(Error::new(
                        arg.value[0].span(),
                        "`timeout` must be at least 1 ms",
                    ));
                }
                a.timeout = Some(ms);
            }
            "overhead_budget" => {
                arg.once(a.overhead_budget.is_some())?;
                a.overhead_budget = Some(arg.number("a percentage from 0 to 100")?);
            }
            "allocator" => {
                arg.once(a.allocator.is_some())?;
                a.allocator = Some(type_path(&arg)?);
            }
            "report" => {
                arg.once(a.report.is_some())?;
                a.report = Some(arg.string()?.0);
            }
            _ if is_limit_key(&key) => {
                arg.once(a.limits.iter().any(|l| l.method.to_string() == key))?;
                let rows = arg.int()?;
                a.limits.push(Limit {
                    method: arg.key.clone(),
                    rows,
                });
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
