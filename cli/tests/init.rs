//! `hotpath init` end to end on the fixture crates of `tests/fixtures/init/`: each is
//! copied to a temporary directory (outside this workspace, which would otherwise claim
//! it) next to a stand-in hotpath checkout `hotpath/`, and the built binary runs on it.
//! The files it leaves are compared byte for byte with snapshots; a second run must
//! change no byte; `--dry-run` must write nothing and print exactly the diff the real
//! run makes; a failed write or `cargo check` must leave every file as it was.
//!
//! Only `init_with_cargo_check_builds_against_this_checkout` and
//! `skill_snippets_compile_with_the_feature_off_and_on` run cargo on real code; they share
//! one target directory under `CARGO_TARGET_TMPDIR`, so only their first run builds the
//! dependencies.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use hotpath_cli::init::{Change, BEGIN, END, SKILL};

/// A fixture copied into a fresh temporary directory as `project/`, beside a stand-in
/// hotpath checkout `hotpath/` (a package with the three features and an empty library:
/// enough for `--path`, and for `cargo metadata --no-deps`, which reads path dependencies).
struct Project {
    tmp: tempfile::TempDir,
}

impl Project {
    fn new(fixture: &str) -> Project {
        let tmp = tempfile::Builder::new()
            .prefix("hotpath-init-test")
            .tempdir()
            .expect("temporary directory");
        let from = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/init")
            .join(fixture);
        copy_dir(&from, &tmp.path().join("project"));
        let checkout = tmp.path().join("hotpath");
        std::fs::create_dir_all(&checkout).expect("mkdir");
        std::fs::write(
            checkout.join("Cargo.toml"),
            "[package]\nname = \"hotpath\"\nversion = \"0.1.0\"\n\n[features]\nhotpath = []\n\
             hotpath-alloc = []\nhotpath-cpu = []\n",
        )
        .expect("write the stand-in checkout");
        std::fs::create_dir_all(checkout.join("src")).expect("mkdir");
        std::fs::write(checkout.join("src/lib.rs"), "").expect("write the stand-in checkout");
        Project { tmp }
    }

    fn root(&self) -> PathBuf {
        self.tmp.path().join("project")
    }

    /// Runs `hotpath` with `args` in `project/<cwd>`.
    fn run_in(&self, cwd: &str, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_hotpath"))
            .args(args)
            .current_dir(self.root().join(cwd))
            .output()
            .expect("run hotpath")
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_in("", args)
    }

    /// Every file under `project/`, by path relative to it.
    fn files(&self) -> BTreeMap<String, Vec<u8>> {
        let mut out = BTreeMap::new();
        collect(&self.root(), &self.root(), &mut out);
        out
    }

    /// `text` with the temporary directory's path replaced by `[TMP]`.
    fn scrub(&self, text: &str) -> String {
        let tmp = self.tmp.path().to_string_lossy().into_owned();
        let canonical = std::fs::canonicalize(self.tmp.path())
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| tmp.clone());
        text.replace(&canonical, "[TMP]").replace(&tmp, "[TMP]")
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read fixture") {
        let e = e.expect("entry");
        let target = to.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).expect("copy");
        }
    }
}

fn collect(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
    for e in std::fs::read_dir(dir).expect("read dir") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            collect(root, &p, out);
        } else {
            let rel = p.strip_prefix(root).expect("under root");
            out.insert(
                rel.to_string_lossy().replace('\\', "/"),
                std::fs::read(&p).expect("read"),
            );
        }
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

fn ok(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// Checks the command failed with status 2 and nothing on stdout; returns its stderr.
fn failed(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(2),
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert_eq!(text(&out.stdout), "");
    text(&out.stderr)
}

/// The files that differ between two states, each in full as it is after.
fn changed(before: &BTreeMap<String, Vec<u8>>, after: &BTreeMap<String, Vec<u8>>) -> String {
    let mut out = String::new();
    for (path, bytes) in after {
        if before.get(path) != Some(bytes) {
            out.push_str(&format!("=== {path}\n{}", text(bytes)));
        }
    }
    for path in before.keys().filter(|p| !after.contains_key(*p)) {
        out.push_str(&format!("=== {path} (removed)\n"));
    }
    out
}

/// The unified diff from `before` to `after`, as `hotpath init --dry-run` prints it.
fn diff(
    root: &Path,
    before: &BTreeMap<String, Vec<u8>>,
    after: &BTreeMap<String, Vec<u8>>,
) -> String {
    let changes: Vec<Change> = after
        .iter()
        .filter(|(p, b)| before.get(*p) != Some(*b))
        .map(|(p, b)| Change {
            path: root.join(p),
            old: before.get(p).map(|o| text(o)),
            new: text(b),
        })
        .collect();
    hotpath_cli::init::diff(root, &changes)
}

/// Runs `args` on a fresh copy of `fixture`, checking on the way that `--check` exits 1
/// before, that `--dry-run` writes nothing and prints the diff the run then makes, and
/// that a second run and `--check` afterwards change nothing and exit 0. Returns the
/// project, the run's stdout and the files it changed.
fn init(fixture: &str, args: &[&str]) -> (Project, String, String) {
    let p = Project::new(fixture);
    let with = |extra: &'static str| {
        let mut a = vec!["init", extra];
        a.extend_from_slice(args);
        a
    };
    let before = p.files();

    let check = p.run(&with("--check"));
    assert_eq!(check.status.code(), Some(1), "{}", text(&check.stderr));
    assert_eq!(p.files(), before, "--check wrote something");

    let dry = ok(&p.run(&with("--dry-run")));
    assert_eq!(p.files(), before, "--dry-run wrote something");

    let out = ok(&p.run(&with("--no-check")));
    let after = p.files();
    assert_eq!(dry, diff(&p.root(), &before, &after), "--dry-run diff");

    let again = ok(&p.run(&with("--no-check")));
    assert!(
        again.contains("is already set up; nothing changed"),
        "{again}"
    );
    assert_eq!(p.files(), after, "the second run changed something");
    assert_eq!(ok(&p.run(&with("--check"))).lines().count(), 1);
    let changes = changed(&before, &after);
    (p, out, changes)
}

#[test]
fn plain_bin_gets_dependency_features_main_and_measured_functions() {
    let (p, out, files) = init(
        "plain-bin",
        &[
            "--path",
            "../hotpath",
            "--measure",
            "parse*",
            "--measure",
            "total",
        ],
    );
    insta::assert_snapshot!(format!("{}\n{files}", p.scrub(&out)));
}

#[test]
fn measure_all_skips_main_const_fn_trait_declarations_and_tests() {
    let (_p, _out, files) = init("plain-bin", &["--path", "../hotpath", "--measure-all"]);
    insta::assert_snapshot!(files);
}

#[test]
fn check_lists_what_is_missing() {
    let p = Project::new("plain-bin");
    let out = p.run(&[
        "init",
        "--check",
        "--path",
        "../hotpath",
        "--agent",
        "codex",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "hotpath init: `plain-bin` is not set up; `hotpath init` would change:\n  \
         Cargo.toml: dependency `hotpath = { path = \"../hotpath\" }`\n  \
         Cargo.toml: features hotpath, hotpath-alloc, hotpath-cpu\n  \
         src/main.rs: #[hotpath::main] on `main`\n  \
         AGENTS.md: instructions for codex\n"
    );
}

#[test]
fn tokio_main_gets_hotpath_main_below_tokio_main() {
    let (_p, _out, files) = init(
        "tokio-main",
        &["--path", "../hotpath", "--measure", "fetch"],
    );
    insta::assert_snapshot!(files);
}

#[test]
fn workspace_member_inherits_the_workspace_dependency() {
    let (p, out, files) = init("workspace", &["-p", "app"]);
    insta::assert_snapshot!(format!("{}\n{files}", p.scrub(&out)));
}

#[test]
fn workspace_member_is_found_from_its_directory_or_manifest_path() {
    let p = Project::new("workspace");
    let out = ok(&p.run_in("app/src", &["init", "--dry-run"]));
    assert!(
        out.starts_with("--- a/app/Cargo.toml\n+++ b/app/Cargo.toml\n"),
        "{out}"
    );
    assert!(out.contains("+hotpath = { workspace = true }\n"), "{out}");
    let from_root = ok(&p.run(&["init", "--dry-run", "--manifest-path", "app/Cargo.toml"]));
    assert_eq!(from_root, out);
}

#[test]
fn virtual_manifest_without_package_lists_the_members() {
    let p = Project::new("workspace");
    let before = p.files();
    let err = failed(&p.run(&["init", "--path", "../hotpath"]));
    assert_eq!(
        p.scrub(&err),
        "hotpath: init: the workspace at [TMP]/project has 2 members (app, tools): choose one \
         with -p NAME, or run `hotpath init` inside its directory\n"
    );
    assert_eq!(p.files(), before);
    let err = failed(&p.run(&["init", "-p", "nope"]));
    assert_eq!(
        err,
        "hotpath: init: no package `nope` in this workspace; members: app, tools\n"
    );
}

#[test]
fn features_table_keeps_comments_order_and_default() {
    let (_p, _out, files) = init("features-with-comments", &["--path", "../hotpath"]);
    insta::assert_snapshot!(files);
}

#[test]
fn library_gets_manifest_edits_and_a_guard_example() {
    let (p, out, files) = init("library", &["--path", "../hotpath"]);
    insta::assert_snapshot!(format!("{}\n{files}", p.scrub(&out)));
}

#[test]
fn initialized_crate_is_left_alone() {
    let p = Project::new("initialized");
    let before = p.files();
    let out = ok(&p.run(&["init", "--path", "../hotpath", "--measure", "work"]));
    assert!(
        out.starts_with("hotpath init: `initialized` is already set up; nothing changed\n"),
        "{out}"
    );
    assert_eq!(p.files(), before);
    let out = ok(&p.run(&["init", "--check"]));
    assert_eq!(out, "hotpath init: `initialized` is set up\n");
    assert_eq!(ok(&p.run(&["init", "--dry-run"])), "");
}

#[test]
fn main_made_by_a_macro_is_refused_with_nothing_written() {
    let p = Project::new("macro-main");
    let before = p.files();
    let err = failed(&p.run(&["init", "--path", "../hotpath"]));
    assert_eq!(
        p.scrub(&err),
        "hotpath: init: [TMP]/project/src/main.rs:7: `main` is generated by the macro `entry!`; \
         nothing was changed. Put #[hotpath::main] on the function the macro expands to, or start \
         a session by hand: `let _guard = hotpath::HotpathGuardBuilder::new(\"my_app::run\").build();`\n"
    );
    assert_eq!(p.files(), before);
}

#[test]
fn no_main_is_refused_with_nothing_written() {
    let p = Project::new("no-main");
    let before = p.files();
    let err = failed(&p.run(&["init", "--path", "../hotpath"]));
    assert_eq!(
        p.scrub(&err),
        "hotpath: init: [TMP]/project/src/main.rs has no `fn main` (it says #![no_main]); nothing \
         was changed. Start a session by hand where the program starts: `let _guard = \
         hotpath::HotpathGuardBuilder::new(\"my_app::run\").build();` (or pick another binary \
         with --bin NAME)\n"
    );
    assert_eq!(p.files(), before);
}

#[test]
fn a_failed_write_restores_every_file() {
    let p = Project::new("plain-bin");
    // `.claude` is a file, so the skill's directory cannot be made: the last write fails
    // after Cargo.toml and src/main.rs were written.
    std::fs::write(p.root().join(".claude"), "not a directory\n").expect("write");
    let before = p.files();
    let err = failed(&p.run(&[
        "init",
        "--no-check",
        "--path",
        "../hotpath",
        "--agent",
        "claude",
    ]));
    assert!(
        p.scrub(&err).starts_with(
            "hotpath: init: cannot write [TMP]/project/.claude/skills/hotpath/SKILL.md: "
        ),
        "{err}"
    );
    assert!(err.ends_with("; every file was restored\n"), "{err}");
    assert_eq!(p.files(), before);
}

#[test]
fn a_failed_cargo_check_restores_every_file_and_cargo_lock() {
    let p = Project::new("plain-bin");
    // A cargo that answers `metadata` and fails `check` after writing Cargo.lock, as a
    // real one does before compiling.
    let fake = p.tmp.path().join("fake-cargo");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nif [ \"$1\" = check ]; then\n  echo 'version = 4' > '{}'\n  \
             echo 'error: simulated' >&2\n  exit 101\nfi\nexec '{}' \"$@\"\n",
            p.root().join("Cargo.lock").display(),
            env!("CARGO")
        ),
    )
    .expect("write the fake cargo");
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let before = p.files();
    assert!(!before.contains_key("Cargo.lock"));
    let out = Command::new(env!("CARGO_BIN_EXE_hotpath"))
        .args(["init", "--path", "../hotpath"])
        .current_dir(p.root())
        .env("CARGO", &fake)
        .output()
        .expect("run hotpath");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        "error: simulated\nhotpath: init: `cargo check` failed (its errors are above); every \
         file was restored\nif the package did not build before, fix that first; or re-run with \
         --no-check to keep the edits\n"
    );
    assert_eq!(p.files(), before);
}

#[test]
fn git_source_with_a_package_name_keeps_hotpath_paths() {
    let p = Project::new("plain-bin");
    let out = ok(&p.run(&[
        "init",
        "--dry-run",
        "--git",
        "https://example.org/hotpath.git",
        "--tag",
        "v0.1.0",
        "--package-name",
        "hotpath-profiler",
    ]));
    assert!(
        out.contains(
            "\n+hotpath = { package = \"hotpath-profiler\", git = \"https://example.org/hotpath.git\", tag = \"v0.1.0\" }\n"
        ),
        "{out}"
    );
}

#[test]
fn registry_version_needs_a_package_name_of_its_own() {
    let p = Project::new("plain-bin");
    let err = failed(&p.run(&[
        "init",
        "--package-name",
        "hotpath",
        "--crate-version",
        "0.1",
    ]));
    assert_eq!(
        err,
        "hotpath: init: --crate-version 0.1 without --package-name: on crates.io the name \
         `hotpath` is another project's crate; give the name this crate is published under \
         (--package-name NAME), or use --path / --git\n"
    );
    let out = ok(&p.run(&[
        "init",
        "--dry-run",
        "--package-name",
        "hotpath-profiler",
        "--crate-version",
        "0.1",
    ]));
    assert!(
        out.contains("\n+hotpath = { package = \"hotpath-profiler\", version = \"0.1\" }\n"),
        "{out}"
    );
}

#[test]
fn path_must_be_a_hotpath_checkout() {
    let p = Project::new("plain-bin");
    let err = failed(&p.run(&["init", "--path", "src"]));
    assert!(
        err.starts_with("hotpath: init: src is not a hotpath checkout: no readable Cargo.toml ("),
        "{err}"
    );
    assert!(
        err.ends_with("); --path takes the directory that holds hotpath's own Cargo.toml\n"),
        "{err}"
    );
}

#[test]
fn bare_crates_io_dependency_is_kept_with_a_warning() {
    let p = Project::new("plain-bin");
    let manifest = p.root().join("Cargo.toml");
    let mut t = std::fs::read_to_string(&manifest).expect("read");
    t.push_str("hotpath = \"0.30\"\n");
    std::fs::write(&manifest, t).expect("write");
    let out = p.run(&["init", "--dry-run"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stderr),
        "warning: Cargo.toml: `hotpath = \"0.30\"` comes from crates.io, where `hotpath` is \
         another project's crate (its macros have the same names, so these edits work with it \
         too); to profile with this one, replace it with `hotpath = { path = \"DIR\" }` or \
         `{ git = \"URL\" }`\n"
    );
    assert!(!text(&out.stdout).contains("+hotpath = {"));
}

#[test]
fn measure_pattern_that_matches_nothing_is_refused() {
    let p = Project::new("plain-bin");
    let before = p.files();
    let err = failed(&p.run(&["init", "--path", "../hotpath", "--measure", "prase*"]));
    assert_eq!(
        err,
        "hotpath: init: --measure \"prase*\" matches no function in src/; a pattern is a glob on \
         a function's name, `Type::name` or `module::Type::name` (`*` any characters within a \
         name, `**` across `::` too, `?` one character); nothing was changed\n"
    );
    assert_eq!(p.files(), before);
}

#[test]
fn agents_get_their_files_and_agents_md_keeps_its_text() {
    let p = Project::new("plain-bin");
    std::fs::write(p.root().join("AGENTS.md"), "# Project\n\nRun `make`.\n").expect("write");
    let args = [
        "init",
        "--no-check",
        "--path",
        "../hotpath",
        "--agent",
        "opencode",
        "--agent",
        "claude",
        "--agent",
        "codex",
    ];
    let out = ok(&p.run(&args));
    let files = p.files();
    assert_eq!(text(&files[".claude/skills/hotpath/SKILL.md"]), SKILL);
    assert_eq!(text(&files[".opencode/skills/hotpath/SKILL.md"]), SKILL);
    let agents = text(&files["AGENTS.md"]);
    let body = SKILL.split_once("\n---\n").expect("front matter").1;
    assert_eq!(
        agents,
        format!("# Project\n\nRun `make`.\n\n{BEGIN}\n{body}{END}\n")
    );
    insta::assert_snapshot!(p.scrub(&out));

    // A later run replaces an edited block in place and leaves the rest.
    let edited = agents.replace("# Profiling with hotpath", "# Old title");
    std::fs::write(p.root().join("AGENTS.md"), format!("{edited}\nMore.\n")).expect("write");
    ok(&p.run(&args));
    assert_eq!(text(&p.files()["AGENTS.md"]), format!("{agents}\nMore.\n"));
    ok(&p.run(&args));
    assert_eq!(text(&p.files()["AGENTS.md"]), format!("{agents}\nMore.\n"));
}

/// The one target directory shared by the tests that run cargo on real code.
fn shared_target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("init-cargo-target")
}

/// This checkout: the directory of the facade's Cargo.toml.
fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("cli/..")
        .to_path_buf()
}

/// A copy of this workspace's Cargo.lock, so the fixture resolves the dependencies this
/// workspace already uses (no newer versions fetched, the same builds reused).
fn copy_lock(to: &Path) {
    std::fs::copy(checkout().join("Cargo.lock"), to.join("Cargo.lock")).expect("copy Cargo.lock");
}

#[test]
fn init_with_cargo_check_builds_against_this_checkout() {
    let p = Project::new("plain-bin");
    copy_lock(&p.root());
    let path = checkout();
    let out = Command::new(env!("CARGO_BIN_EXE_hotpath"))
        .args(["init", "--measure-all", "--path"])
        .arg(&path)
        .current_dir(p.root())
        .env("CARGO_TARGET_DIR", shared_target_dir())
        .output()
        .expect("run hotpath");
    let stdout = ok(&out);
    assert!(
        stdout.contains("\n  ok: cargo check\n  ok: cargo check --features hotpath\n"),
        "{stdout}"
    );
    // The dependency resolved to this checkout, not to crates.io.
    let meta = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--offline"])
        .current_dir(p.root())
        .env("CARGO_TARGET_DIR", shared_target_dir())
        .output()
        .expect("cargo metadata");
    let meta: serde_json::Value = serde_json::from_slice(&meta.stdout).expect("metadata JSON");
    let hotpath: Vec<&str> = meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .filter(|p| p["name"] == "hotpath")
        .filter_map(|p| p["manifest_path"].as_str())
        .collect();
    let expected = std::fs::canonicalize(path.join("Cargo.toml")).expect("canonical");
    assert_eq!(hotpath, [expected.to_str().expect("UTF-8")]);
}

/// Every ```rust block of the skill file is a whole program; each becomes a binary of a
/// crate set up by `hotpath init`, checked with the feature off and with every feature on.
#[test]
fn skill_snippets_compile_with_the_feature_off_and_on() {
    let blocks: Vec<&str> = SKILL
        .split("```rust\n")
        .skip(1)
        .map(|b| b.split_once("\n```").expect("closed block").0)
        .collect();
    assert_eq!(blocks.len(), 4, "the skill's Rust blocks");
    let tmp = tempfile::Builder::new()
        .prefix("hotpath-skill-test")
        .tempdir()
        .expect("temporary directory");
    let root = tmp.path();
    std::fs::create_dir_all(root.join("src/bin")).expect("mkdir");
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"skill-snippets\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [dependencies]\ntokio = { version = \"1\", features = [\"rt-multi-thread\", \"macros\"] }\n",
    )
    .expect("write");
    for (i, b) in blocks.iter().enumerate() {
        std::fs::write(
            root.join(format!("src/bin/snippet{i}.rs")),
            format!("{b}\n"),
        )
        .expect("write");
    }
    copy_lock(root);
    let out = Command::new(env!("CARGO_BIN_EXE_hotpath"))
        .args(["init", "--no-check", "--path"])
        .arg(checkout())
        .current_dir(root)
        .output()
        .expect("run hotpath");
    ok(&out);
    for features in [None, Some("hotpath-alloc,hotpath-cpu")] {
        let mut cmd = Command::new(env!("CARGO"));
        cmd.args(["check", "--bins", "--quiet"])
            .current_dir(root)
            .env("CARGO_TARGET_DIR", shared_target_dir());
        if let Some(f) = features {
            cmd.args(["--features", f]);
        }
        let out = cmd.output().expect("cargo check");
        assert!(
            out.status.success(),
            "snippets with features {features:?}:\n{}",
            text(&out.stderr)
        );
    }
}

#[test]
fn without_path_or_git_the_checkout_this_binary_was_built_from_is_used() {
    let p = Project::new("plain-bin");
    ok(&p.run(&["init", "--no-check"]));
    // `cargo metadata --no-deps` gives each path dependency's directory, absolute.
    let meta = Command::new(env!("CARGO"))
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(p.root())
        .output()
        .expect("cargo metadata");
    let meta: serde_json::Value = serde_json::from_slice(&meta.stdout).expect("metadata JSON");
    let deps = meta["packages"][0]["dependencies"]
        .as_array()
        .expect("dependencies");
    let paths: Vec<(&str, &str)> = deps
        .iter()
        .map(|d| {
            (
                d["name"].as_str().unwrap_or(""),
                d["path"].as_str().unwrap_or(""),
            )
        })
        .collect();
    let expected = std::fs::canonicalize(checkout()).expect("canonical");
    assert_eq!(paths, [("hotpath", expected.to_str().expect("UTF-8"))]);
}
