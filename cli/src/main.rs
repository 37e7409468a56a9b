//! `hotpath`: live console, report rendering and report comparison.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "hotpath",
    version,
    about = "Watch a profiled program live, render and compare hotpath JSON reports"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Watch a running program through its metrics server (HOTPATH_METRICS_PORT).
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
    Report {
        /// The report (HOTPATH_OUTPUT_FORMAT=json).
        file: PathBuf,
        /// Rows per table, 0 = all.
        #[arg(long, default_value_t = 0)]
        limit: usize,
    },
    /// Compare saved JSON reports: one run a side, or a directory of runs a side.
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
}

#[derive(Clone, Copy, ValueEnum)]
enum DiffFormat {
    Table,
    Markdown,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
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
        Command::Report { file, limit } => hotpath_cli::read_report(&file).map(|r| {
            print!("{}", r.to_table(limit));
            ExitCode::SUCCESS
        }),
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
    let (base, head) = (hotpath_cli::read_runs(base)?, hotpath_cli::read_runs(head)?);
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
