//! The Cargo.toml edit: the `hotpath` dependency and the three feature forwards, made
//! with `toml_edit` so that formatting, order and comments stay as they were.

use std::path::Path;

use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, TableLike, Value};

use super::error::InitError;

/// The features a package forwards to hotpath's, in the order they are added.
pub const FEATURES: [&str; 3] = ["hotpath", "hotpath-alloc", "hotpath-cpu"];

/// Where the dependency comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A path, relative to the package's directory (or absolute).
    Path(String),
    /// A git repository, with `branch`, `tag` or `rev` and its value.
    Git {
        /// The repository URL.
        url: String,
        /// `("branch" | "tag" | "rev", value)`.
        reference: Option<(&'static str, String)>,
    },
    /// A registry version; only with a package name of our own (see
    /// [`InitError::BareRegistryVersion`]).
    Registry(String),
}

/// The dependency line to write: its source and, when the package is not named
/// `hotpath`, the package name (`hotpath = { package = "...", ... }` keeps `hotpath::`
/// paths working).
#[derive(Debug, Clone, PartialEq)]
pub struct Dependency {
    /// Where it comes from.
    pub source: Source,
    /// The package name, when it is not `hotpath`.
    pub package: Option<String>,
}

impl Dependency {
    fn to_inline(&self) -> InlineTable {
        let mut t = InlineTable::new();
        if let Some(p) = &self.package {
            t.insert("package", p.as_str().into());
        }
        match &self.source {
            Source::Path(p) => {
                t.insert("path", p.as_str().into());
            }
            Source::Git { url, reference } => {
                t.insert("git", url.as_str().into());
                if let Some((k, v)) = reference {
                    t.insert(*k, v.as_str().into());
                }
            }
            Source::Registry(v) => {
                t.insert("version", v.as_str().into());
            }
        }
        t.fmt();
        t
    }
}

/// What the edit of one Cargo.toml did.
#[derive(Debug, Default)]
pub struct ManifestEdit {
    /// The new text (equal to the old when nothing was missing).
    pub text: String,
    /// The dependency line added, e.g. `hotpath = { path = "../hotpath" }`.
    pub dependency: Option<String>,
    /// Features added or given a missing item.
    pub features: Vec<String>,
    /// Things the user should know (a `hotpath` dependency that resolves to another
    /// project's crate).
    pub warnings: Vec<String>,
}

fn parse(path: &Path, text: &str) -> Result<DocumentMut, InitError> {
    text.parse::<DocumentMut>()
        .map_err(|e| InitError::Manifest {
            path: path.to_path_buf(),
            message: format!("not valid TOML: {e}"),
        })
}

/// The `hotpath` entry of `[workspace.dependencies]` of a workspace root manifest, as
/// text, if it has one.
pub fn workspace_dependency(path: &Path, text: &str) -> Result<Option<String>, InitError> {
    let doc = parse(path, text)?;
    Ok(doc
        .get("workspace")
        .and_then(|w| w.get("dependencies"))
        .and_then(|d| d.get("hotpath"))
        .map(|i| i.to_string().trim().to_string()))
}

/// Why a `hotpath` dependency item resolves to the crates.io crate of that name, or
/// `None` when it names a path, a git repository, another package or registry.
fn from_crates_io(item: &Item) -> bool {
    if item.is_str() {
        return true;
    }
    match item.as_table_like() {
        Some(t) => ["path", "git", "workspace", "package", "registry"]
            .iter()
            .all(|k| !t.contains_key(k)),
        None => false,
    }
}

fn crates_io_warning(file: &str, line: &str) -> String {
    format!(
        "{file}: `{line}` comes from crates.io, where `hotpath` is another project's crate (its macros \
         have the same names, so these edits work with it too); to profile with this one, replace it with \
         `hotpath = {{ path = \"DIR\" }}` or `{{ git = \"URL\" }}`"
    )
}

/// Adds what is missing to the package manifest `text`: the dependency (`{ workspace =
/// true }` when the workspace declares it, else `dependency()`, called only then) and
/// the feature forwards. Leaves a present dependency, `default` and every other key
/// alone.
pub fn edit(
    path: &Path,
    text: &str,
    workspace_dep: Option<&str>,
    dependency: impl FnOnce() -> Result<Dependency, InitError>,
) -> Result<ManifestEdit, InitError> {
    let mut doc = parse(path, text)?;
    let mut edit = ManifestEdit::default();
    let bad = |what: &str| InitError::Manifest {
        path: path.to_path_buf(),
        message: format!("`{what}` is not a table; fix it (cargo would not read it either)"),
    };

    let deps = doc
        .entry("dependencies")
        .or_insert_with(|| Item::Table(Table::new()));
    if let Some(t) = deps.as_table_mut() {
        t.set_implicit(false);
    }
    let deps: &mut dyn TableLike = deps
        .as_table_like_mut()
        .ok_or_else(|| bad("dependencies"))?;
    match deps.get("hotpath") {
        Some(item) => {
            let inherits = item
                .as_table_like()
                .and_then(|t| t.get("workspace"))
                .and_then(Item::as_bool)
                == Some(true);
            if from_crates_io(item) {
                let line = format!("hotpath = {}", item.to_string().trim());
                edit.warnings.push(crates_io_warning("Cargo.toml", &line));
            } else if inherits {
                if let Some(ws) = workspace_dep {
                    let ws_item: Item = ws.parse::<Value>().map(Item::Value).unwrap_or(Item::None);
                    if from_crates_io(&ws_item) {
                        let line = format!("hotpath = {ws}");
                        edit.warnings.push(crates_io_warning(
                            "the workspace's Cargo.toml ([workspace.dependencies])",
                            &line,
                        ));
                    }
                }
            }
        }
        None => {
            let value = match workspace_dep {
                Some(_) => {
                    let mut t = InlineTable::new();
                    t.insert("workspace", true.into());
                    t.fmt();
                    t
                }
                None => dependency()?.to_inline(),
            };
            let line = format!("hotpath = {value}");
            deps.insert("hotpath", Item::Value(Value::InlineTable(value)));
            edit.dependency = Some(line);
        }
    }

    let features = doc
        .entry("features")
        .or_insert_with(|| Item::Table(Table::new()));
    let features: &mut dyn TableLike = features
        .as_table_like_mut()
        .ok_or_else(|| bad("features"))?;
    for name in FEATURES {
        let forward = format!("hotpath/{name}");
        match features.get_mut(name) {
            None => {
                let mut a = Array::new();
                a.push(forward.as_str());
                features.insert(name, Item::Value(Value::Array(a)));
                edit.features.push(name.to_string());
            }
            Some(item) => {
                let a = item
                    .as_array_mut()
                    .ok_or_else(|| bad(&format!("features.{name}")))?;
                if !a.iter().any(|v| v.as_str() == Some(forward.as_str())) {
                    push_like_the_others(a, &forward);
                    edit.features.push(name.to_string());
                }
            }
        }
    }
    edit.text = line_ends_of(text, doc.to_string());
    Ok(edit)
}

/// `edited` with the line ends of `original`: toml_edit writes the lines it makes, and
/// those of a file it re-reads, with LF, so a file whose lines all end in CRLF gets CRLF
/// back on every line (those it kept byte for byte, and the new ones).
fn line_ends_of(original: &str, edited: String) -> String {
    let crlf = original.contains("\r\n") && !original.replace("\r\n", "").contains('\n');
    if !crlf {
        return edited;
    }
    let mut out = String::with_capacity(edited.len() + edited.len() / 16);
    let mut prev = '\0';
    for c in edited.chars() {
        if c == '\n' && prev != '\r' {
            out.push('\r');
        }
        out.push(c);
        prev = c;
    }
    out
}

/// Appends `item` laid out as the array's elements are: on its own line in a
/// multi-line array (a comment after the last element stays on that element's line),
/// after a space in a one-line one.
fn push_like_the_others(a: &mut Array, item: &str) {
    let raw =
        |r: Option<&toml_edit::RawString>| r.and_then(|r| r.as_str()).unwrap_or("").to_string();
    let mut v: Value = item.into();
    let Some(last) = a.len().checked_sub(1) else {
        a.push_formatted(v);
        return;
    };
    let prefix = raw(a.get(last).and_then(|v| v.decor().prefix()));
    if !prefix.contains('\n') {
        v.decor_mut().set_prefix(" ");
        a.push_formatted(v);
        return;
    }
    let indent = prefix.rsplit('\n').next().unwrap_or("").to_string();
    // What follows the last element up to `]`: the array's trailing text after a trailing
    // comma (`"x", # note\n]`), else the element's own suffix (`"x" # note\n]`). Its
    // last line break moves to after the new element, so a comment stays where it was.
    let tail = if a.trailing_comma() {
        a.trailing().as_str().unwrap_or("").to_string()
    } else {
        raw(a.get(last).and_then(|v| v.decor().suffix()))
    };
    match tail.rsplit_once('\n') {
        Some((line, before_bracket)) => {
            v.decor_mut().set_prefix(format!("{line}\n{indent}"));
            if a.trailing_comma() {
                a.set_trailing(format!("\n{before_bracket}"));
            } else {
                if let Some(l) = a.get_mut(last) {
                    l.decor_mut().set_suffix("");
                }
                v.decor_mut().set_suffix(format!("\n{before_bracket}"));
            }
        }
        None => v.decor_mut().set_prefix(prefix),
    }
    a.push_formatted(v);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path_dep() -> Result<Dependency, InitError> {
        Ok(Dependency {
            source: Source::Path("../hotpath".into()),
            package: None,
        })
    }

    fn run(text: &str) -> ManifestEdit {
        edit(Path::new("Cargo.toml"), text, None, path_dep).expect("edit")
    }

    /// A CRLF manifest stays CRLF: the edit of its LF twin, with every line ending in CRLF
    /// (it used to come back with LF line ends).
    #[test]
    fn a_crlf_manifest_keeps_its_line_ends() {
        let lf = "[package]\nname = \"app\" # the app\nversion = \"0.1.0\"\n\n[dependencies]\nserde = \"1\"\n";
        let crlf = lf.replace('\n', "\r\n");
        let e = run(&crlf);
        assert_eq!(e.text, run(lf).text.replace('\n', "\r\n"));
        assert!(!e.text.replace("\r\n", "").contains('\n'), "{:?}", e.text);
        assert!(e
            .text
            .starts_with(&crlf[..crlf.find("[dependencies]").unwrap()]));
        // A file with LF line ends, or mixed ones, is left as toml_edit writes it.
        assert!(!run(lf).text.contains('\r'));
    }

    #[test]
    fn adds_dependency_and_features_to_a_fresh_manifest() {
        let e = run("[package]\nname = \"app\"\nversion = \"0.1.0\"\n\n[dependencies]\n");
        assert_eq!(
            e.text,
            "[package]\nname = \"app\"\nversion = \"0.1.0\"\n\n[dependencies]\nhotpath = { path = \"../hotpath\" }\n\n\
             [features]\nhotpath = [\"hotpath/hotpath\"]\nhotpath-alloc = [\"hotpath/hotpath-alloc\"]\n\
             hotpath-cpu = [\"hotpath/hotpath-cpu\"]\n"
        );
        assert_eq!(
            e.dependency.as_deref(),
            Some("hotpath = { path = \"../hotpath\" }")
        );
        assert_eq!(e.features, FEATURES);
    }

    #[test]
    fn extends_arrays_in_their_own_layout() {
        let text = "[features]\nhotpath = [\n    \"x\",\n    \"y\",\n]\nhotpath-alloc = [\"x\"]\n\
                    hotpath-cpu = [\"hotpath/hotpath-cpu\"]\n\n[dependencies]\nhotpath = { path = \"h\" }\n";
        let e = run(text);
        assert_eq!(
            e.text,
            "[features]\nhotpath = [\n    \"x\",\n    \"y\",\n    \"hotpath/hotpath\",\n]\n\
             hotpath-alloc = [\"x\", \"hotpath/hotpath-alloc\"]\nhotpath-cpu = [\"hotpath/hotpath-cpu\"]\n\n\
             [dependencies]\nhotpath = { path = \"h\" }\n"
        );
        assert_eq!(e.dependency, None);
        assert_eq!(e.features, ["hotpath", "hotpath-alloc"]);
    }

    #[test]
    fn a_comment_after_the_last_item_stays_on_its_line() {
        let text = "[features]\nhotpath = [\n  \"x\", # keep x\n  # the end\n]\n";
        let e = run(text);
        assert!(
            e.text.starts_with(
                "[features]\nhotpath = [\n  \"x\", # keep x\n  # the end\n  \"hotpath/hotpath\",\n]\n"
            ),
            "{}",
            e.text
        );
        let e = run("[features]\nhotpath = [\n  \"x\" # no comma\n]\n");
        assert!(
            e.text.starts_with(
                "[features]\nhotpath = [\n  \"x\", # no comma\n  \"hotpath/hotpath\"\n]\n"
            ),
            "{}",
            e.text
        );
    }

    #[test]
    fn a_second_edit_changes_nothing() {
        let once = run("[package]\nname = \"a\"\n").text;
        let twice = run(&once);
        assert_eq!(twice.text, once);
        assert_eq!(twice.dependency, None);
        assert!(twice.features.is_empty());
    }

    #[test]
    fn bare_registry_dependency_is_left_with_a_warning() {
        let e = run("[dependencies]\nhotpath = \"0.30\"\n");
        assert!(e.text.starts_with("[dependencies]\nhotpath = \"0.30\"\n"));
        assert_eq!(e.warnings.len(), 1);
        assert!(
            e.warnings[0].starts_with("Cargo.toml: `hotpath = \"0.30\"` comes from crates.io"),
            "{}",
            e.warnings[0]
        );
    }

    #[test]
    fn renamed_package_is_not_warned_about() {
        let e = run("[dependencies]\nhotpath = { package = \"hotpath-x\", version = \"1\" }\n");
        assert!(e.warnings.is_empty());
    }

    #[test]
    fn workspace_dependency_is_inherited_and_source_not_asked() {
        let e = edit(
            Path::new("Cargo.toml"),
            "[package]\nname = \"m\"\n",
            Some("{ path = \"hotpath\" }"),
            || panic!("the source is not needed"),
        )
        .expect("edit");
        assert_eq!(
            e.dependency.as_deref(),
            Some("hotpath = { workspace = true }")
        );
    }

    #[test]
    fn features_not_a_table_is_an_error() {
        let e = edit(Path::new("Cargo.toml"), "features = 3\n", None, path_dep);
        assert!(matches!(e, Err(InitError::Manifest { .. })), "{e:?}");
    }
}
