//! The Rust edits: `#[hotpath::main]` on `main` and `#[hotpath::measure]` on chosen
//! functions. Files are parsed with `syn` only to find where each function's signature
//! starts; the attribute is then inserted as text above that line, below every attribute
//! already there (so under `#[tokio::main]`), which keeps formatting and comments.

use std::path::Path;

use proc_macro2::LineColumn;
use syn::{Attribute, ImplItem, Item, Signature, Visibility};

use super::error::InitError;

/// Text to insert at a byte offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Insertion {
    /// Byte offset in the file.
    pub offset: usize,
    /// What to insert there.
    pub text: String,
}

/// Applies insertions (in any order; each offset refers to the original text).
pub fn apply(src: &str, insertions: &[Insertion]) -> String {
    let mut sorted: Vec<&Insertion> = insertions.iter().collect();
    sorted.sort_by_key(|i| i.offset);
    sorted.dedup_by_key(|i| i.offset);
    let mut out = String::with_capacity(src.len() + 32 * sorted.len());
    let mut at = 0;
    for i in sorted {
        out.push_str(&src[at..i.offset]);
        out.push_str(&i.text);
        at = i.offset;
    }
    out.push_str(&src[at..]);
    out
}

/// A parsed source file and what is needed to turn spans into byte offsets.
pub struct Source<'a> {
    text: &'a str,
    /// Bytes before what syn saw (a byte order mark).
    skipped: usize,
    line_starts: Vec<usize>,
    newline: &'static str,
    file: syn::File,
}

impl<'a> Source<'a> {
    /// Parses `text`, read from `path` (for errors).
    pub fn parse(path: &Path, text: &'a str) -> Result<Self, InitError> {
        let skipped = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let file = syn::parse_file(&text[skipped..]).map_err(|e| {
            let start = e.span().start();
            InitError::Parse {
                path: path.to_path_buf(),
                line: start.line,
                column: start.column + 1,
                message: e.to_string(),
            }
        })?;
        let mut line_starts = vec![skipped];
        line_starts.extend(
            text[skipped..]
                .match_indices('\n')
                .map(|(i, _)| skipped + i + 1),
        );
        Ok(Source {
            text,
            skipped,
            line_starts,
            newline: if text.contains("\r\n") { "\r\n" } else { "\n" },
            file,
        })
    }

    fn offset(&self, lc: LineColumn) -> usize {
        let start = self.line_starts[lc.line - 1];
        let line = &self.text[start..];
        start
            + line
                .char_indices()
                .nth(lc.column)
                .map_or(line.len(), |(i, _)| i)
    }

    /// Inserts `#[attr]` before the token at `at`: on a line of its own above, with the
    /// same indentation, when the token starts its line; else just before it.
    fn insertion(&self, at: LineColumn, attr: &str) -> Insertion {
        let offset = self.offset(at);
        let line_start = self.line_starts[at.line - 1].max(self.skipped);
        let before = &self.text[line_start..offset];
        if before.chars().all(char::is_whitespace) {
            Insertion {
                offset: line_start,
                text: format!("{before}#[{attr}]{}", self.newline),
            }
        } else {
            Insertion {
                offset,
                text: format!("#[{attr}] "),
            }
        }
    }

    /// Where `#[hotpath::main]` goes on this binary's `main`: `Ok(None)` when it is
    /// already there.
    pub fn main_insertion(&self, path: &Path) -> Result<Option<Insertion>, InitError> {
        // A `fn main` under `#![no_main]` is an exported symbol, not the Rust entry point.
        if self.file.attrs.iter().any(|a| a.path().is_ident("no_main")) {
            return Err(InitError::NoMain {
                path: path.to_path_buf(),
                no_main_attr: true,
            });
        }
        let main = self.file.items.iter().find_map(|item| match item {
            Item::Fn(f) if f.sig.ident == "main" => Some(f),
            _ => None,
        });
        let Some(main) = main else {
            let invocation = self.file.items.iter().find_map(|item| match item {
                Item::Macro(m) if !m.mac.path.is_ident("macro_rules") => Some(m),
                _ => None,
            });
            return Err(match invocation {
                Some(m) => InitError::MainInMacro {
                    path: path.to_path_buf(),
                    macro_name: path_text(&m.mac.path),
                    line: m.mac.bang_token.span.start().line,
                },
                None => InitError::NoMain {
                    path: path.to_path_buf(),
                    no_main_attr: self.file.attrs.iter().any(|a| a.path().is_ident("no_main")),
                },
            });
        };
        if main.attrs.iter().any(|a| is_hotpath(a, "main")) {
            return Ok(None);
        }
        Ok(Some(self.insertion(
            signature_start(&main.vis, None, &main.sig),
            "hotpath::main",
        )))
    }

    /// Every function `#[hotpath::measure]` may go on, with its path in the crate
    /// (`module`, the file's module path, first).
    pub fn functions(&self, module: &[String]) -> Vec<Function> {
        let mut out = Vec::new();
        let mut walk = Walk {
            src: self,
            out: &mut out,
        };
        walk.items(&self.file.items, module.to_vec(), false, true);
        out
    }
}

/// A function `--measure` can name.
#[derive(Debug, Clone)]
pub struct Function {
    /// Its path in the crate, e.g. `["parser", "Parser", "parse"]`.
    pub path: Vec<String>,
    /// Where `#[hotpath::measure]` goes, or `None` when it is measured already.
    pub insertion: Option<Insertion>,
}

impl Function {
    /// Its path joined by `::`.
    pub fn name(&self) -> String {
        self.path.join("::")
    }
}

struct Walk<'s, 'a> {
    src: &'s Source<'a>,
    out: &'s mut Vec<Function>,
}

impl Walk<'_, '_> {
    /// `measured`: inside `#[hotpath::measure_all]`; `top`: the file's own items.
    fn items(&mut self, items: &[Item], path: Vec<String>, measured: bool, top: bool) {
        for item in items {
            match item {
                Item::Fn(f) => {
                    if top && f.sig.ident == "main" {
                        continue;
                    }
                    self.function(&f.attrs, &f.vis, None, &f.sig, &path, measured);
                }
                Item::Impl(i) => {
                    if is_test_only(&i.attrs) {
                        continue;
                    }
                    let measured = measured || i.attrs.iter().any(|a| is_hotpath(a, "measure_all"));
                    let mut path = path.clone();
                    path.push(type_name(&i.self_ty));
                    for it in &i.items {
                        if let ImplItem::Fn(f) = it {
                            self.function(
                                &f.attrs,
                                &f.vis,
                                f.modifiers.defaultness.as_ref().map(|d| d.span.start()),
                                &f.sig,
                                &path,
                                measured,
                            );
                        }
                    }
                }
                Item::Mod(m) => {
                    let Some((_, items)) = &m.content else {
                        continue;
                    };
                    if is_test_only(&m.attrs) {
                        continue;
                    }
                    let measured = measured || m.attrs.iter().any(|a| is_hotpath(a, "measure_all"));
                    let mut path = path.clone();
                    path.push(m.ident.to_string());
                    self.items(items, path, measured, false);
                }
                _ => {}
            }
        }
    }

    fn function(
        &mut self,
        attrs: &[Attribute],
        vis: &Visibility,
        default_at: Option<LineColumn>,
        sig: &Signature,
        path: &[String],
        measured: bool,
    ) {
        if sig.constness.is_some() || is_test_only(attrs) || attrs.iter().any(is_entry_point) {
            return;
        }
        if attrs
            .iter()
            .any(|a| is_hotpath(a, "skip") || is_hotpath(a, "main"))
        {
            return;
        }
        let mut path = path.to_vec();
        path.push(sig.ident.to_string());
        let already = measured
            || attrs
                .iter()
                .any(|a| is_hotpath(a, "measure") || is_hotpath(a, "future_fn"));
        let insertion = (!already).then(|| {
            self.src
                .insertion(signature_start(vis, default_at, sig), "hotpath::measure")
        });
        self.out.push(Function { path, insertion });
    }
}

/// The first token after a function's attributes.
fn signature_start(
    vis: &Visibility,
    default_at: Option<LineColumn>,
    sig: &Signature,
) -> LineColumn {
    match vis {
        Visibility::Public(p) => return p.span.start(),
        Visibility::Restricted(r) => return r.pub_token.span.start(),
        Visibility::Inherited => {}
    }
    if let Some(d) = default_at {
        return d;
    }
    if let Some(t) = &sig.constness {
        return t.span.start();
    }
    if let Some(t) = &sig.asyncness {
        return t.span.start();
    }
    if let syn::Safety::Unsafe(t) = &sig.safety {
        return t.span.start();
    }
    if let Some(abi) = &sig.abi {
        return abi.extern_token.span.start();
    }
    sig.fn_token.span.start()
}

fn path_text(p: &syn::Path) -> String {
    let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
    segs.join("::")
}

/// `#[hotpath::NAME]` (or `#[::hotpath::NAME]`).
fn is_hotpath(a: &Attribute, name: &str) -> bool {
    path_text(a.path()) == format!("hotpath::{name}")
}

/// `#[test]`, `#[tokio::test]`, `#[bench]`, `#[cfg(test)]` and the like.
fn is_test_only(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        let last = a.path().segments.last().map(|s| s.ident.to_string());
        if matches!(last.as_deref(), Some("test" | "bench")) {
            return true;
        }
        if a.path().is_ident("cfg") {
            if let syn::Meta::List(l) = &a.meta {
                return l.tokens.clone().into_iter().any(|t| contains_test(&t));
            }
        }
        false
    })
}

fn contains_test(t: &proc_macro2::TokenTree) -> bool {
    match t {
        proc_macro2::TokenTree::Ident(i) => i == "test",
        proc_macro2::TokenTree::Group(g) => g.stream().into_iter().any(|t| contains_test(&t)),
        _ => false,
    }
}

/// Proc-macro entry points, which a measure attribute cannot wrap usefully.
fn is_entry_point(a: &Attribute) -> bool {
    ["proc_macro", "proc_macro_derive", "proc_macro_attribute"]
        .iter()
        .any(|n| a.path().is_ident(n))
}

/// The last name of an `impl` block's type (`Index` for `impl<T> Index<T>`, `&Index`).
fn type_name(t: &syn::Type) -> String {
    match t {
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .map_or_else(|| "_".to_string(), |s| s.ident.to_string()),
        syn::Type::Reference(r) => type_name(&r.elem),
        syn::Type::Paren(p) => type_name(&p.elem),
        syn::Type::Group(g) => type_name(&g.elem),
        _ => "_".to_string(),
    }
}

/// A glob on function paths: `*` is any characters within one name, `**` any characters
/// across `::` too, `?` one character. It matches a function when it matches its name,
/// `Type::name`, or any longer tail of its path up to the whole `module::Type::name`.
#[derive(Debug, Clone)]
pub struct Pattern(String);

impl Pattern {
    /// A pattern from its text.
    pub fn new(text: &str) -> Self {
        Pattern(text.to_string())
    }

    /// Does it name this function?
    pub fn matches(&self, path: &[String]) -> bool {
        (0..path.len()).any(|i| glob(self.0.as_bytes(), path[i..].join("::").as_bytes()))
    }
}

/// One element of a pattern.
#[derive(Clone, Copy, PartialEq)]
enum Token {
    /// `**`: any bytes.
    Any,
    /// `*`: any bytes but `:`.
    Name,
    /// `?`: one byte but `:`.
    One,
    /// Itself.
    Byte(u8),
}

/// Whether `p` matches all of `s`, in time linear in `s` for each element of `p` (the
/// pattern as an automaton of its elements, every position at once: no backtracking, so
/// `*a*a*a*a*a*ab` over a long name is as quick as `a`).
fn glob(p: &[u8], s: &[u8]) -> bool {
    let mut tokens = Vec::with_capacity(p.len());
    let mut i = 0;
    while i < p.len() {
        tokens.push(match (p[i], p.get(i + 1)) {
            (b'*', Some(b'*')) => {
                i += 1;
                Token::Any
            }
            (b'*', _) => Token::Name,
            (b'?', _) => Token::One,
            (c, _) => Token::Byte(c),
        });
        i += 1;
    }
    // `at[k]`: the first k elements can match what was read so far.
    let mut at = vec![false; tokens.len() + 1];
    let close = |at: &mut [bool]| {
        // A star can match nothing: being before it is being after it too.
        for k in 0..tokens.len() {
            if at[k] && matches!(tokens[k], Token::Any | Token::Name) {
                at[k + 1] = true;
            }
        }
    };
    at[0] = true;
    close(&mut at);
    for &c in s {
        let mut next = vec![false; tokens.len() + 1];
        for (k, t) in tokens.iter().enumerate() {
            if !at[k] {
                continue;
            }
            match *t {
                Token::Any => next[k] = true,
                Token::Name if c != b':' => next[k] = true,
                Token::One if c != b':' => next[k + 1] = true,
                Token::Byte(b) if b == c => next[k + 1] = true,
                _ => {}
            }
        }
        close(&mut next);
        if !next.contains(&true) {
            return false;
        }
        at = next;
    }
    at[tokens.len()]
}

/// The module path of a source file under `src/`: `[]` for crate roots (`main.rs`,
/// `lib.rs`, `bin/*.rs`), `["a", "b"]` for `a/b.rs` or `a/b/mod.rs`.
pub fn module_path(relative_to_src: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative_to_src
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts.first().map(String::as_str) == Some("bin") {
        return Vec::new();
    }
    let Some(last) = parts.pop() else {
        return parts;
    };
    let stem = last.strip_suffix(".rs").unwrap_or(&last);
    let crate_root = parts.is_empty() && matches!(stem, "main" | "lib");
    if stem != "mod" && !crate_root {
        parts.push(stem.to_string());
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn main_of(src: &str) -> String {
        let s = Source::parse(Path::new("main.rs"), src).expect("parse");
        let ins = s.main_insertion(Path::new("main.rs")).expect("main");
        apply(src, &ins.into_iter().collect::<Vec<_>>())
    }

    #[test]
    fn main_gets_the_attribute_below_the_others() {
        assert_eq!(
            main_of("/// Doc.\n#[tokio::main]\nasync fn main() {}\n"),
            "/// Doc.\n#[tokio::main]\n#[hotpath::main]\nasync fn main() {}\n"
        );
        assert_eq!(
            main_of("#[tokio::main] async fn main() {}\n"),
            "#[tokio::main] #[hotpath::main] async fn main() {}\n"
        );
        assert_eq!(
            main_of("pub fn main() {}\r\n"),
            "#[hotpath::main]\r\npub fn main() {}\r\n"
        );
        let marked = "#[hotpath::main(limit = 5)]\nfn main() {}\n";
        assert_eq!(main_of(marked), marked);
    }

    #[test]
    fn globs_match_names_tails_and_paths() {
        let m = |p: &str, path: &str| {
            Pattern::new(p).matches(&path.split("::").map(String::from).collect::<Vec<_>>())
        };
        assert!(m("parse", "app::parse"));
        assert!(m("Parser::*", "app::Parser::next"));
        assert!(
            !m("Parser*next", "app::Parser::next"),
            "* stays within a name"
        );
        assert!(m("app::**::next", "app::a::b::Parser::next"));
        assert!(m("**next", "app::Parser::next"));
        assert!(m("pa?se", "parse") && !m("pa?se", "pase"));
        assert!(!m("a?b", "a::b"), "? is not `:`");
        assert!(m("*", "x") && m("**", "a::b"));
        assert!(!m("parse", "parser"));
        assert!(glob(b"", b"") && !glob(b"", b"a") && glob(b"*", b""));
    }

    /// Stars in a row used to backtrack exponentially (`*a*a*a*a*a*a*ab` over 30 names:
    /// 13 s; seven stars: over 120 s): the matcher reads each name once per element.
    #[test]
    fn many_stars_do_not_backtrack() {
        let p = Pattern::new("*a*a*a*a*a*a*a*a*a*a*a*a*ab");
        let names: Vec<String> = (0..200).map(|_| "a".repeat(60)).collect();
        let start = std::time::Instant::now();
        for n in &names {
            assert!(!p.matches(std::slice::from_ref(n)));
        }
        assert!(Pattern::new("*a*a*ab").matches(&["xaxaxab".to_string()]));
        // Not a timing assertion (machines vary): what this guards is that the loop
        // above finishes at all; print the time for whoever looks.
        eprintln!("{:?}", start.elapsed());
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        assert_eq!(
            main_of("\u{feff}const É: &str = \"é\"; fn main() {}\n"),
            "\u{feff}const É: &str = \"é\"; #[hotpath::main] fn main() {}\n"
        );
    }

    #[test]
    fn main_missing_or_in_a_macro_is_an_error() {
        let s = Source::parse(Path::new("m.rs"), "macro_rules! m { () => {} }\nm! {}\n")
            .expect("parse");
        match s.main_insertion(Path::new("m.rs")) {
            Err(InitError::MainInMacro {
                macro_name, line, ..
            }) => {
                assert_eq!((macro_name.as_str(), line), ("m", 2));
            }
            other => panic!("{other:?}"),
        }
        let s = Source::parse(
            Path::new("m.rs"),
            "#![no_main]\nextern \"C\" fn main() {}\n",
        )
        .expect("parse");
        assert!(matches!(
            s.main_insertion(Path::new("m.rs")),
            Err(InitError::NoMain {
                no_main_attr: true,
                ..
            })
        ));
    }

    #[test]
    fn functions_skip_what_cannot_or_need_not_be_measured() {
        let src = "fn main() {}\nfn a() {}\nconst fn b() {}\n#[hotpath::measure]\nfn c() {}\n\
                   struct S;\nimpl S {\n    pub(crate) fn d(&self) {}\n}\n\
                   trait T { fn e(&self); fn f(&self) {} }\n\
                   #[cfg(test)]\nmod tests {\n    fn g() {}\n}\n\
                   mod inner {\n    #[test]\n    fn h() {}\n    async unsafe fn i() {}\n}\n";
        let s = Source::parse(Path::new("lib.rs"), src).expect("parse");
        let fs = s.functions(&["m".to_string()]);
        let names: Vec<(String, bool)> = fs
            .iter()
            .map(|f| (f.name(), f.insertion.is_some()))
            .collect();
        assert_eq!(
            names,
            [
                ("m::a".to_string(), true),
                ("m::c".to_string(), false),
                ("m::S::d".to_string(), true),
                ("m::inner::i".to_string(), true),
            ]
        );
        let all: Vec<Insertion> = fs.into_iter().filter_map(|f| f.insertion).collect();
        let out = apply(src, &all);
        assert!(out.contains("#[hotpath::measure]\nfn a() {}"));
        assert!(out.contains("impl S {\n    #[hotpath::measure]\n    pub(crate) fn d"));
        assert!(out.contains("    #[hotpath::measure]\n    async unsafe fn i() {}"));
    }

    #[test]
    fn patterns_match_a_tail_of_the_path() {
        let p = |s: &str| s.split("::").map(str::to_string).collect::<Vec<_>>();
        let f = p("parser::Parser::parse_line");
        let yes = [
            "parse_line",
            "parse*",
            "Parser::*",
            "parser::*::*",
            "parser::**",
            "**line",
            "*::parse_?ine",
        ];
        for y in yes {
            assert!(Pattern::new(y).matches(&f), "{y}");
        }
        let no = [
            "parse",
            "parser::*",
            "arser::**",
            "line",
            "*line::*",
            "Parser?parse_line",
            "pars*_line::**",
        ];
        for n in no {
            assert!(!Pattern::new(n).matches(&f), "{n}");
        }
        assert!(Pattern::new("parse*").matches(&p("parser::parse")));
        assert!(!Pattern::new("parse*").matches(&p("parser::Parser::new")));
    }

    #[test]
    fn module_paths_follow_the_file_layout() {
        let m = |s: &str| module_path(Path::new(s)).join("::");
        assert_eq!(m("main.rs"), "");
        assert_eq!(m("lib.rs"), "");
        assert_eq!(m("bin/tool.rs"), "");
        assert_eq!(m("parser.rs"), "parser");
        assert_eq!(m("parser/mod.rs"), "parser");
        assert_eq!(m("parser/line.rs"), "parser::line");
        assert_eq!(m("a/main.rs"), "a::main");
    }
}
