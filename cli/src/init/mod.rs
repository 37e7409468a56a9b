//! `hotpath init`: sets a package up for profiling in one deterministic step.
//!
//! It adds the `hotpath` dependency and the `hotpath`, `hotpath-alloc`, `hotpath-cpu`
//! feature forwards to the package's Cargo.toml, puts `#[hotpath::main]` on `main` (a
//! library gets a guard example printed instead), and with `--measure PATTERN` or
//! `--measure-all` puts `#[hotpath::measure]` on functions under `src/`. With `--agent`
//! it also writes the instructions a coding agent reads.
//!
//! Every edit is computed before anything is written, so a layout it cannot handle (no
//! `main`, `main` made by a macro, a virtual manifest without `-p`) stops it with nothing
//! changed. Files are then written all or nothing, and `cargo check` runs with the
//! feature off and on; if a write or a check fails, every file gets its old bytes back
//! (Cargo.lock too). Running it again changes nothing.

mod agent;
mod args;
mod dependency;
mod error;
pub mod manifest;
pub mod source;
mod target;
mod write;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

pub use agent::{Agent, BEGIN, END, SKILL};
pub use args::Args;
pub use error::InitError;
pub use write::Change;

/// How `hotpath init` ended, for the exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Done, or nothing was missing.
    Done,
    /// `--check` found something missing.
    Missing,
}

/// Everything the run would change, and what to tell the user about it.
struct Plan {
    target: target::Target,
    changes: Vec<Change>,
    /// One line per thing done, e.g. `Cargo.toml: dependency hotpath = { ... }`.
    notes: Vec<String>,
    warnings: Vec<String>,
}

/// Runs `hotpath init` from `cwd`: prints to stdout (the diff, the summary, next steps)
/// and lets `cargo check` print to stderr.
pub fn run(args: &Args, cwd: &Path) -> Result<Outcome, InitError> {
    let plan = plan(args, cwd)?;
    let mut stdout = std::io::stdout().lock();
    let root = plan.target.workspace_root.clone();
    for w in &plan.warnings {
        eprintln!("warning: {w}");
    }
    if args.check {
        if plan.changes.is_empty() {
            let _ = writeln!(stdout, "hotpath init: `{}` is set up", plan.target.name);
            return Ok(Outcome::Done);
        }
        let _ = writeln!(
            stdout,
            "hotpath init: `{}` is not set up; `hotpath init` would change:",
            plan.target.name
        );
        for n in &plan.notes {
            let _ = writeln!(stdout, "  {n}");
        }
        return Ok(Outcome::Missing);
    }
    if args.dry_run {
        let _ = write!(stdout, "{}", diff(&root, &plan.changes));
        if plan.changes.is_empty() {
            eprintln!("hotpath init: nothing to change");
        }
        return Ok(Outcome::Done);
    }
    if plan.changes.is_empty() {
        let _ = writeln!(
            stdout,
            "hotpath init: `{}` is already set up; nothing changed",
            plan.target.name
        );
        print_next(&mut stdout, args, &plan.target);
        return Ok(Outcome::Done);
    }
    let mut journal = write::commit(&plan.changes)?;
    let _ = writeln!(stdout, "hotpath init: set up `{}`", plan.target.name);
    for n in &plan.notes {
        let _ = writeln!(stdout, "  {n}");
    }
    if !args.no_check {
        journal.remember(&root.join("Cargo.lock"));
        for features in [None, Some("hotpath")] {
            let _ = stdout.flush();
            if let Err(e) = cargo_check(&plan.target, features) {
                let unrestored = journal.restore();
                return Err(match e {
                    Ok(command) => InitError::Check {
                        command,
                        unrestored,
                    },
                    Err(e) => e,
                });
            }
            let _ = writeln!(stdout, "  ok: {}", check_command(&plan.target, features));
        }
    }
    print_next(&mut stdout, args, &plan.target);
    Ok(Outcome::Done)
}

fn sorted_agents(agents: &[Agent]) -> Vec<Agent> {
    let mut a = agents.to_vec();
    a.sort();
    a.dedup();
    a
}

fn plan(args: &Args, cwd: &Path) -> Result<Plan, InitError> {
    if let (Some(v), None | Some("hotpath")) = (&args.crate_version, args.package_name.as_deref()) {
        return Err(InitError::BareRegistryVersion { version: v.clone() });
    }
    let target = target::locate(args.manifest_path.as_deref(), args.package.as_deref(), cwd)?;
    let mut changes = Vec::new();
    let mut notes = Vec::new();
    let mut warnings = Vec::new();
    let rel = |p: &Path| display_path(&target.workspace_root, p);

    // Cargo.toml.
    let manifest_path = target.manifest_path.clone();
    let text = read(&manifest_path)?;
    let root_manifest = target.root_manifest();
    let workspace_dep = if root_manifest == manifest_path {
        manifest::workspace_dependency(&manifest_path, &text)?
    } else {
        match std::fs::read_to_string(&root_manifest) {
            Ok(t) => manifest::workspace_dependency(&root_manifest, &t)?,
            Err(_) => None,
        }
    };
    let edit = manifest::edit(&manifest_path, &text, workspace_dep.as_deref(), || {
        dependency::resolve(args, target.dir())
    })?;
    if let Some(d) = &edit.dependency {
        notes.push(format!("{}: dependency `{d}`", rel(&manifest_path)));
    }
    if !edit.features.is_empty() {
        notes.push(format!(
            "{}: features {}",
            rel(&manifest_path),
            edit.features.join(", ")
        ));
    }
    warnings.extend(edit.warnings);
    if (args.path.is_some() || args.git.is_some()) && workspace_dep.is_some() {
        warnings.push(
            "the workspace declares hotpath in [workspace.dependencies], so the member inherits it \
             (`hotpath = { workspace = true }`); --path / --git were not used"
                .to_string(),
        );
    }
    changes.push(Change {
        path: manifest_path.clone(),
        old: Some(text),
        new: edit.text,
    });

    // Sources: `main` of each binary, then --measure.
    let mut sources: Vec<(PathBuf, String, Vec<source::Insertion>)> = Vec::new();
    let bins: Vec<&(String, PathBuf)> = match &args.bin {
        Some(name) => vec![target.bins.iter().find(|(n, _)| n == name).ok_or_else(|| {
            InitError::NoSuchBin {
                name: name.clone(),
                bins: target.bins.iter().map(|(n, _)| n.clone()).collect(),
            }
        })?],
        None => target.bins.iter().collect(),
    };
    for (_, path) in bins {
        let text = read(path)?;
        let parsed = source::Source::parse(path, &text)?;
        let ins = parsed.main_insertion(path)?;
        if ins.is_some() {
            notes.push(format!("{}: #[hotpath::main] on `main`", rel(path)));
        }
        let entry = source_entry(&mut sources, path, text.clone());
        entry.extend(ins);
    }
    if args.measure_all || !args.measure.is_empty() {
        measure(args, &target, &mut sources, &mut notes, &mut warnings)?;
    }
    for (path, old, ins) in sources {
        let new = source::apply(&old, &ins);
        changes.push(Change {
            path,
            old: Some(old),
            new,
        });
    }

    // Agents, last: a new file in a new directory is the likeliest write to fail.
    for a in sorted_agents(&args.agent) {
        let c = a.change(&target.workspace_root)?;
        if c.old.as_deref() != Some(c.new.as_str()) {
            notes.push(format!("{}: instructions for {}", a.file(), a.name()));
        }
        changes.push(c);
    }
    changes.retain(|c| c.old.as_deref() != Some(c.new.as_str()));
    Ok(Plan {
        target,
        changes,
        notes,
        warnings,
    })
}

fn source_entry<'a>(
    sources: &'a mut Vec<(PathBuf, String, Vec<source::Insertion>)>,
    path: &Path,
    text: String,
) -> &'a mut Vec<source::Insertion> {
    let i = match sources.iter().position(|(p, _, _)| p == path) {
        Some(i) => i,
        None => {
            sources.push((path.to_path_buf(), text, Vec::new()));
            sources.len() - 1
        }
    };
    &mut sources[i].2
}

/// `--measure` / `--measure-all` over every `.rs` file under the package's `src/`.
fn measure(
    args: &Args,
    target: &target::Target,
    sources: &mut Vec<(PathBuf, String, Vec<source::Insertion>)>,
    notes: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> Result<(), InitError> {
    let src_dir = target.dir().join("src");
    let patterns: Vec<source::Pattern> = args
        .measure
        .iter()
        .map(|p| source::Pattern::new(p))
        .collect();
    let mut matched = vec![false; patterns.len()];
    let mut files = Vec::new();
    rust_files(&src_dir, &mut files);
    files.sort();
    for path in files {
        let text = read(&path)?;
        let parsed = match source::Source::parse(&path, &text) {
            Ok(p) => p,
            Err(e) => {
                warnings.push(format!("{e} (left alone by --measure)"));
                continue;
            }
        };
        let module = source::module_path(path.strip_prefix(&src_dir).unwrap_or(&path));
        let mut names = Vec::new();
        let mut insertions = Vec::new();
        for f in parsed.functions(&module) {
            let mut hit = args.measure_all;
            for (i, p) in patterns.iter().enumerate() {
                if p.matches(&f.path) {
                    matched[i] = true;
                    hit = true;
                }
            }
            if let (true, Some(ins)) = (hit, f.insertion) {
                names.push(f.path.join("::"));
                insertions.push(ins);
            }
        }
        if insertions.is_empty() {
            continue;
        }
        notes.push(format!(
            "{}: #[hotpath::measure] on {}",
            display_path(&target.workspace_root, &path),
            names.join(", ")
        ));
        source_entry(sources, &path, text).extend(insertions);
    }
    if let Some(i) = matched.iter().position(|m| !m) {
        return Err(InitError::NoMatch {
            pattern: args.measure[i].clone(),
        });
    }
    Ok(())
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => rust_files(&p, out),
            Ok(t) if t.is_file() && p.extension().is_some_and(|x| x == "rs") => out.push(p),
            _ => {}
        }
    }
}

fn read(path: &Path) -> Result<String, InitError> {
    std::fs::read_to_string(path).map_err(|error| InitError::Read {
        path: path.to_path_buf(),
        error,
    })
}

/// A path as shown to the user: relative to the workspace root when inside it.
fn display_path(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The unified diff of every change, file by file in path order, with `a/`, `b/` paths
/// relative to `root` (new files from `/dev/null`), as `git apply` reads it from there.
pub fn diff(root: &Path, changes: &[Change]) -> String {
    let mut sorted: Vec<&Change> = changes.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    let mut out = String::new();
    for c in sorted {
        let name = display_path(root, &c.path);
        let old = c.old.as_deref().unwrap_or("");
        let a = if c.old.is_some() {
            format!("a/{name}")
        } else {
            "/dev/null".to_string()
        };
        out.push_str(
            &similar::TextDiff::from_lines(old, &c.new)
                .unified_diff()
                .context_radius(3)
                .header(&a, &format!("b/{name}"))
                .to_string(),
        );
    }
    out
}

fn check_command(target: &target::Target, features: Option<&str>) -> String {
    let mut c = String::from("cargo check");
    if target.in_workspace {
        c.push_str(&format!(" -p {}", target.name));
    }
    if let Some(f) = features {
        c.push_str(&format!(" --features {f}"));
    }
    c
}

/// Runs `cargo check` on the package; `Err(Ok(command))` when it failed.
fn cargo_check(
    target: &target::Target,
    features: Option<&str>,
) -> Result<(), Result<String, InitError>> {
    let cargo = target::cargo();
    let mut cmd = Command::new(&cargo);
    cmd.arg("check")
        .arg("--manifest-path")
        .arg(&target.manifest_path);
    if let Some(f) = features {
        cmd.args(["--features", f]);
    }
    // Cargo's progress and errors go to the user's terminal, not into our stdout.
    cmd.stdout(std::process::Stdio::null());
    match cmd.status() {
        Ok(s) if s.success() => Ok(()),
        Ok(_) => Err(Ok(check_command(target, features))),
        Err(error) => Err(Err(InitError::CargoNotRun {
            cargo: cargo.to_string_lossy().into_owned(),
            error,
        })),
    }
}

fn print_next(out: &mut impl std::io::Write, args: &Args, target: &target::Target) {
    let p = if target.in_workspace {
        format!(" -p {}", target.name)
    } else {
        String::new()
    };
    if target.bins.is_empty() {
        let _ = writeln!(
            out,
            "\n`{}` has no binary, so there is no `main` for #[hotpath::main]. Start a session where \
             the program that uses it starts (a test, an example, a benchmark); the report is \
             written when the guard drops:\n\n    \
             let _guard = hotpath::HotpathGuardBuilder::new(\"{}::run\").build();\n\n\
             then run that with `--features hotpath`, e.g. cargo test{p} --features hotpath -- --nocapture",
            target.name,
            target.name.replace('-', "_"),
        );
    } else {
        let bin = match (&args.bin, target.bins.len()) {
            (Some(b), _) => format!(" --bin {b}"),
            (None, 1) => String::new(),
            (None, _) => " --bin NAME".to_string(),
        };
        let run = format!("cargo run --release{p}{bin} --features hotpath");
        let _ = writeln!(
            out,
            "\nnext:\n  \
             {run}\n      \
             the report when main returns (hotpath-alloc adds allocations, hotpath-cpu CPU vs waiting)\n  \
             HOTPATH_OUTPUT_FORMAT=json HOTPATH_OUTPUT_PATH=report.json {run}\n      \
             the report as JSON: `hotpath report report.json` prints it, `hotpath diff a.json b.json` compares two\n  \
             HOTPATH_METRICS_PORT=6770 {run}\n      \
             live data while it runs: watch it with `hotpath console --port 6770`"
        );
    }
    let agents = sorted_agents(&args.agent);
    if !agents.is_empty() {
        let _ = writeln!(out, "\nstart the agent (hotpath never starts one):");
        for a in agents {
            let (command, how) = a.how_to_start(&target.workspace_root);
            let _ = writeln!(out, "  {command}\n      {how} ({})", a.file());
        }
        let _ = writeln!(
            out,
            "  then ask, e.g.: \"profile this program with hotpath and tell me where the time goes\""
        );
    }
}
