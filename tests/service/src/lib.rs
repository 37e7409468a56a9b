//! Helpers for the service tests: a PostgreSQL cluster of their own on a free loopback
//! port, running a scenario program for its JSON report, and comparing the logs of a
//! differential script's plain and wrapped runs.
//!
//! A missing PostgreSQL fails the test that needs it (CI installs the `postgresql`
//! package, see `.ci/run`); it is never skipped.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A PostgreSQL server started for one test: `initdb` in a temporary directory as the
/// `postgres` user (the server refuses to run as root), `pg_ctl start` on a free
/// loopback port, stopped and removed on drop.
pub struct Postgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    /// `postgres://postgres@127.0.0.1:<port>/postgres`.
    pub url: String,
}

/// The directory of the newest installed PostgreSQL's programs.
fn pg_bin() -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL is not installed (/usr/lib/postgresql): apt-get install postgresql")
        .filter_map(|e| Some(e.ok()?.path().join("bin")))
        .filter(|p| p.join("initdb").exists())
        .collect();
    dirs.sort();
    dirs.pop()
        .expect("no /usr/lib/postgresql/*/bin/initdb: apt-get install postgresql")
}

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn as_postgres(bin: &Path, program: &str) -> Command {
    let running_as_root = unsafe_free_is_root();
    if running_as_root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(bin.join(program));
        c
    } else {
        Command::new(bin.join(program))
    }
}

fn unsafe_free_is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

fn run(c: &mut Command, what: &str) {
    let out = c.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

impl Postgres {
    /// Starts a new cluster; panics (fails the test) when PostgreSQL is missing.
    pub fn start() -> Postgres {
        let bin = pg_bin();
        let dir = tempfile::Builder::new()
            .prefix("hotpath-pg-")
            .tempdir()
            .unwrap();
        if unsafe_free_is_root() {
            run(
                Command::new("chown").arg("postgres:").arg(dir.path()),
                "chown the cluster directory to postgres",
            );
        }
        let data = dir.path().join("data");
        run(
            as_postgres(&bin, "initdb").arg("-D").arg(&data).args([
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
            ]),
            "initdb",
        );
        let port = free_port();
        let opts = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=20",
            dir.path().display()
        );
        run(
            as_postgres(&bin, "pg_ctl")
                .arg("-D")
                .arg(&data)
                .args(["-o", &opts, "-w", "-t", "60", "-l"])
                .arg(dir.path().join("log"))
                .arg("start"),
            "pg_ctl start",
        );
        Postgres {
            url: format!("postgres://postgres@127.0.0.1:{port}/postgres"),
            dir,
            bin,
        }
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = as_postgres(&self.bin, "pg_ctl")
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .args(["-m", "immediate", "-w", "stop"])
            .output();
    }
}

/// A scenario program's run: its report and stderr.
pub struct Run {
    /// The report.
    pub report: hotpath::report::Report,
    /// Its JSON text.
    pub json: String,
    /// What the program printed on stderr.
    pub stderr: String,
}

/// Runs `bin` with `args`, the report as JSON on stdout, no inherited `HOTPATH_*`.
pub fn report(bin: &str, args: &[&str]) -> Run {
    let mut c = Command::new(bin);
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("HOTPATH_") {
            c.env_remove(k);
        }
    }
    let out = c
        .args(args)
        .env("HOTPATH_OUTPUT_FORMAT", "json")
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{bin} {args:?}: {stderr}");
    let json = String::from_utf8(out.stdout).unwrap();
    Run {
        report: hotpath::report::Report::from_json(&json).unwrap_or_else(|e| panic!("{e}: {json}")),
        json,
        stderr,
    }
}

/// How many lines of a diff [`assert_same_log`] shows.
const DIFF_LINES: usize = 80;

/// Asserts that a differential script's wrapped run logged exactly what its plain run
/// did, showing a line diff of the two logs when not.
#[track_caller]
pub fn assert_same_log(what: &str, plain: &str, wrapped: &str) {
    if plain == wrapped {
        return;
    }
    let text = similar::TextDiff::from_lines(plain, wrapped)
        .unified_diff()
        .context_radius(3)
        .header("plain", "wrapped")
        .to_string();
    let total = text.lines().count();
    let shown: Vec<&str> = text.lines().take(DIFF_LINES).collect();
    panic!(
        "{what}: the wrapped run's log differs from the plain run's (`-` plain, `+` wrapped):\n{}{}",
        shown.join("\n"),
        if total > DIFF_LINES {
            format!("\n... ({} more diff lines)", total - DIFF_LINES)
        } else {
            String::new()
        }
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_differing_log_fails_with_the_lines_that_differ() {
        super::assert_same_log("same", "a\nb\n", "a\nb\n");
        let failed = std::panic::catch_unwind(|| {
            super::assert_same_log("log", "a\nb\nc\n", "a\nB\nc\n");
        })
        .unwrap_err();
        let text = failed.downcast_ref::<String>().unwrap();
        assert!(
            text.starts_with("log: the wrapped run's log differs"),
            "{text}"
        );
        assert!(text.contains("\n-b\n+B\n"), "{text}");
    }
}
