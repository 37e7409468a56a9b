//! The arguments of `hotpath init`.

use std::path::PathBuf;

use super::agent::Agent;

/// Arguments of `hotpath init`.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(after_long_help = EXAMPLES, after_help = EXAMPLES)]
pub struct Args {
    /// The package to set up (a workspace member); default: the only package, or the one
    /// whose directory holds the current directory.
    #[arg(short, long, value_name = "NAME")]
    pub package: Option<String>,
    /// The Cargo.toml to start from, instead of the one found from the current directory.
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// Put #[hotpath::main] only on this binary's `main` (default: every binary of the
    /// package).
    #[arg(long, value_name = "NAME")]
    pub bin: Option<String>,
    /// The hotpath checkout to depend on (the directory of its Cargo.toml); written as a
    /// path relative to the package. Default: the checkout this binary was built from,
    /// if it is still there.
    #[arg(long, value_name = "DIR", conflicts_with = "git")]
    pub path: Option<PathBuf>,
    /// Depend on hotpath from this git repository instead of a path.
    #[arg(long, value_name = "URL")]
    pub git: Option<String>,
    /// With --git: the branch to use.
    #[arg(long, requires = "git", conflicts_with_all = ["tag", "rev"])]
    pub branch: Option<String>,
    /// With --git: the tag to use.
    #[arg(long, requires = "git", conflicts_with = "rev")]
    pub tag: Option<String>,
    /// With --git: the commit to use.
    #[arg(long, requires = "git")]
    pub rev: Option<String>,
    /// The name hotpath is published under, when it is not `hotpath`; written as
    /// `hotpath = { package = "NAME", ... }` so that `hotpath::` paths keep working.
    #[arg(long, value_name = "NAME")]
    pub package_name: Option<String>,
    /// A registry version of the package named by --package-name (never of `hotpath`,
    /// which on crates.io is another project's crate).
    #[arg(long, value_name = "VERSION", requires = "package_name", conflicts_with_all = ["path", "git"])]
    pub crate_version: Option<String>,
    /// Put #[hotpath::measure] on the functions under src/ that match PATTERN, a glob on
    /// the function's name, `Type::name` or `module::Type::name` (`*`: any characters
    /// within a name, `**`: across `::` too, `?`: one character). Repeatable.
    #[arg(long, value_name = "PATTERN", conflicts_with = "measure_all")]
    pub measure: Vec<String>,
    /// Put #[hotpath::measure] on every function under src/ that can take it.
    #[arg(long)]
    pub measure_all: bool,
    /// Also write the instructions this coding agent reads. Repeatable.
    #[arg(long, value_enum, value_name = "AGENT")]
    pub agent: Vec<Agent>,
    /// Print the changes as a unified diff and write nothing.
    #[arg(long, conflicts_with = "check")]
    pub dry_run: bool,
    /// Write nothing; exit 1 if anything is missing, 0 if the package is set up.
    #[arg(long)]
    pub check: bool,
    /// Do not run `cargo check` after writing.
    #[arg(long)]
    pub no_check: bool,
}

const EXAMPLES: &str = "\
Examples:
  hotpath init --path ../hotpath                 set up the package here against a checkout
  hotpath init -p server --measure 'handle_*'    a workspace member, measuring handle_* functions
  hotpath init --git https://example.org/hotpath.git --tag v0.1.0
  hotpath init --measure-all --dry-run           show the diff, write nothing
  hotpath init --check                           exit 1 when the setup is incomplete (CI)
  hotpath init --agent claude                    also write .claude/skills/hotpath/SKILL.md

Run it again at any time: it only adds what is missing. If a write or `cargo check`
fails, every file is put back as it was.";
