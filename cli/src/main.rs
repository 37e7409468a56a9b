//! `hotpath`: setup, live console, report rendering and report comparison.
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "hotpath",
    version,
    about = "Set a Rust package up for hotpath, watch a profiled program live, render, compare and export hotpath JSON reports",
    after_help = EXAMPLES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

const EXAMPLES: &str = "\
Examples:
  hotpath init --path ../hotpath               add hotpath to the package here, #[hotpath::main] on main
  cargo run --release --features hotpath       then run it: the report prints when main returns
  hotpath console --port 6770                  watch a program run with HOTPATH_METRICS_PORT=6770
  hotpath report report.json                   the tables of a saved HOTPATH_OUTPUT_FORMAT=json report
  hotpath export report.json --format svg -o flame.svg   a flame graph of a HOTPATH_STACKS=1 report
  hotpath diff base/ head/ --fail-on-regression
  hotpath completions bash > ~/.local/share/bash-completion/completions/hotpath

`hotpath <command> --help` shows each command's options and examples.";

const CONSOLE_EXAMPLES: &str = "\
Examples:
  HOTPATH_METRICS_PORT=6770 cargo run --release --features hotpath &
  hotpath console --port 6770
  hotpath console --host 10.0.0.5 --port 6770 --token \"$TOKEN\"   with HOTPATH_METRICS_AUTH_TOKEN

Keys: Tab or 1-5 switch tabs, Left/Right the view (timing, memory, CPU, ...), s sorts by the next
column, r reverses the order, Enter inspects the row, q quits.";

const REPORT_EXAMPLES: &str = "\
Examples:
  HOTPATH_OUTPUT_FORMAT=json HOTPATH_OUTPUT_PATH=report.json cargo run --release --features hotpath
  hotpath report report.json
  hotpath report report.json --limit 10";

const DIFF_EXAMPLES: &str = "\
Examples:
  hotpath diff base.json head.json                      one run a side
  hotpath diff base/ head/ --min-delta 1ms              directories of runs: medians and a U test
  hotpath diff base/ head/ --format markdown --fail-on-regression > diff.md

Exit status: 0, or 1 with --fail-on-regression when something regressed; 2 on an error.";

const EXPORT_EXAMPLES: &str = "\
Examples:
  HOTPATH_STACKS=1 HOTPATH_OUTPUT_FORMAT=json HOTPATH_OUTPUT_PATH=report.json cargo run --features hotpath
  hotpath export report.json --format svg -o flame.svg          flame graph of wall time per path
  hotpath export report.json --format svg --weight cpu -o cpu.svg   (with hotpath-cpu)
  hotpath export report.json --format pprof -o profile.pb.gz && go tool pprof -top profile.pb.gz
  hotpath export report.json --format folded | inferno-flamegraph > flame.svg
  hotpath export report.json --format chrome -o tree.json       open in ui.perfetto.dev

The report needs the stacks section (HOTPATH_STACKS=1). For a trace of individual calls,
run the program with HOTPATH_TRACE=trace.json instead.";

const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  hotpath completions bash > ~/.local/share/bash-completion/completions/hotpath
  hotpath completions zsh > ~/.zfunc/_hotpath        # with fpath+=(~/.zfunc) in ~/.zshrc
  hotpath completions fish > ~/.config/fish/completions/hotpath.fish";

#[derive(Subcommand)]
enum Command {
    /// Set a package up for profiling: dependency, features, #[hotpath::main], and more.
    ///
    /// Adds the hotpath dependency and the `hotpath`, `hotpath-alloc` and `hotpath-cpu`
    /// feature forwards to Cargo.toml (formatting and comments kept), puts
    /// #[hotpath::main] on `main` (below #[tokio::main]), and with --measure or
    /// --measure-all puts #[hotpath::measure] on functions. Then runs `cargo check` with
    /// the feature off and on. Exit status: 0 done, 1 with --check when something is
    /// missing, 2 on an error (nothing is left half-written).
    Init(hotpath_cli::init::Args),
    /// Watch a running program through its metrics server (HOTPATH_METRICS_PORT).
    #[command(after_help = CONSOLE_EXAMPLES)]
    Console {
        /// Host of the metrics server.
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// Port of the metrics server.
        #[arg(long, default_value_t = 6770)]
        port: u16,
        /// Bearer token, if the program set HOTPATH_METRICS_AUTH_TOKEN.
        #[arg(long, env = "HOTPATH_METRICS_AUTH_TOKEN", hide_env_values = true)]
        token: Option<String>,
        /// Milliseconds between refreshes.
        #[arg(long, default_value_t = 1000)]
        refresh_ms: u64,
    },
    /// Render a saved JSON report as the tables printed at exit.
    #[command(after_help = REPORT_EXAMPLES)]
    Report {
        /// The report (HOTPATH_OUTPUT_FORMAT=json).
        file: PathBuf,
        /// Rows per table, 0 = all.
        #[arg(long, default_value_t = 0)]
        limit: usize,
    },
    /// Compare saved JSON reports: one run a side, or a directory of runs a side.
    #[command(after_help = DIFF_EXAMPLES)]
    Diff {
        /// The report before the change, or a directory of runs of it (every *.json).
        base: PathBuf,
        /// The report after it, or a directory of runs of it.
        head: PathBuf,
        /// Relative change in a time below which it is noise, e.g. `10%` or `0.1`.
        // Hyphen values reach `parse_threshold`, which explains why `-5%` is refused.
        #[arg(long, default_value = "10%", allow_hyphen_values = true)]
        threshold: String,
        /// Absolute floor: a time that moved by less than this is noise, e.g. `100us`, `1ms`;
        /// a per-call time (avg, pNN) is multiplied by the function's calls first.
        #[arg(long, default_value = "0")]
        min_delta: String,
        /// With directories of runs: the largest one-sided p-value (Mann-Whitney U) that
        /// counts as a change.
        #[arg(long, default_value_t = hotpath_cli::diff::SIGNIFICANCE)]
        significance: f64,
        /// Output format.
        #[arg(long, value_enum, default_value_t = DiffFormat::Table)]
        format: DiffFormat,
        /// Exit with status 1 when something regressed.
        #[arg(long)]
        fail_on_regression: bool,
    },
    /// Export a report's calling-context tree: folded stacks, flame-graph SVG, pprof, Chrome trace.
    #[command(after_help = EXPORT_EXAMPLES)]
    Export {
        /// The report (HOTPATH_STACKS=1 HOTPATH_OUTPUT_FORMAT=json), or - for standard input.
        file: PathBuf,
        /// Output format.
        #[arg(long, value_enum)]
        format: ExportFormat,
        /// What a path weighs: its own wall time (ns), CPU time (ns, with hotpath-cpu) or calls.
        #[arg(long, value_enum, default_value_t = ExportWeight::Wall)]
        weight: ExportWeight,
        /// Output file; standard output when absent.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Print a shell completion script for hotpath.
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum ExportFormat {
    /// Folded stacks: `main;parse;read 1200` per line.
    Folded,
    /// A flame graph (inferno).
    Svg,
    /// pprof profile.proto, gzipped (go tool pprof).
    Pprof,
    /// The tree as a flame chart in the Trace Event Format (Perfetto).
    Chrome,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExportWeight {
    /// Wall time on exactly the path, ns.
    #[value(alias = "self")]
    Wall,
    /// CPU time on exactly the path, ns.
    Cpu,
    /// Calls on the path.
    Calls,
}

#[derive(Clone, Copy, ValueEnum)]
enum DiffFormat {
    Table,
    Markdown,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Init(args) => init(&args),
        Command::Completions { shell } => {
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "hotpath",
                &mut std::io::stdout(),
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Console {
            host,
            port,
            token,
            refresh_ms,
        } => hotpath_cli::console::run(hotpath_cli::console::Options {
            host,
            port,
            token,
            refresh: std::time::Duration::from_millis(refresh_ms.max(100)),
        })
        .map(|()| ExitCode::SUCCESS)
        .map_err(|e| format!("console: cannot use the terminal: {e}")),
        Command::Export {
            file,
            format,
            weight,
            output,
        } => export(&file, format, weight, output.as_deref()),
        Command::Report { file, limit } => hotpath_cli::read_report(&file)
            .map(|r| {
                print!("{}", r.to_table(limit));
                ExitCode::SUCCESS
            })
            .map_err(|e| e.to_string()),
        Command::Diff {
            base,
            head,
            threshold,
            min_delta,
            significance,
            format,
            fail_on_regression,
        } => diff(
            &base,
            &head,
            &threshold,
            &min_delta,
            significance,
            format,
            fail_on_regression,
        ),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("hotpath: {e}");
            ExitCode::from(2)
        }
    }
}

fn export(
    file: &std::path::Path,
    format: ExportFormat,
    weight: ExportWeight,
    output: Option<&std::path::Path>,
) -> Result<ExitCode, String> {
    use hotpath_cli::export::Format;
    use hotpath_report::export::Weight;
    let report = hotpath_cli::read_report(file).map_err(|e| e.to_string())?;
    let format = match format {
        ExportFormat::Folded => Format::Folded,
        ExportFormat::Svg => Format::Svg,
        ExportFormat::Pprof => Format::Pprof,
        ExportFormat::Chrome => Format::Chrome,
    };
    let weight = match weight {
        ExportWeight::Wall => Weight::Wall,
        ExportWeight::Cpu => Weight::Cpu,
        ExportWeight::Calls => Weight::Calls,
    };
    let bytes = hotpath_cli::export::export(&report, format, weight)
        .map_err(|e| format!("export: {}: {e}", file.display()))?;
    match output {
        Some(path) => std::fs::write(path, &bytes)
            .map_err(|e| format!("export: cannot write {}: {e}", path.display()))?,
        None => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            out.write_all(&bytes)
                .and_then(|()| out.flush())
                .map_err(|e| format!("export: cannot write the standard output: {e}"))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn init(args: &hotpath_cli::init::Args) -> Result<ExitCode, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("init: no current directory: {e}"))?;
    match hotpath_cli::init::run(args, &cwd) {
        Ok(hotpath_cli::init::Outcome::Done) => Ok(ExitCode::SUCCESS),
        Ok(hotpath_cli::init::Outcome::Missing) => Ok(ExitCode::from(1)),
        Err(e) => Err(format!("init: {e}")),
    }
}

fn diff(
    base: &std::path::Path,
    head: &std::path::Path,
    threshold: &str,
    min_delta: &str,
    significance: f64,
    format: DiffFormat,
    fail_on_regression: bool,
) -> Result<ExitCode, String> {
    let threshold =
        hotpath_cli::diff::parse_threshold(threshold).map_err(|e| format!("--threshold: {e}"))?;
    let min_delta =
        hotpath_cli::diff::parse_min_delta(min_delta).map_err(|e| format!("--min-delta: {e}"))?;
    if !(significance > 0.0 && significance < 1.0) {
        return Err(format!(
            "--significance: {significance} is not a p-value between 0 and 1, such as 0.01"
        ));
    }
    let read = |p| hotpath_cli::read_runs(p).map_err(|e| e.to_string());
    let (base, head) = (read(base)?, read(head)?);
    let d = hotpath_cli::diff::diff_runs(&base, &head, threshold, min_delta, significance)
        .ok_or("a side without a run")?;
    match format {
        DiffFormat::Table => print!("{}", d.to_table()),
        DiffFormat::Markdown => print!("{}", d.to_markdown()),
    }
    Ok(if fail_on_regression && d.has_regression() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
