//! What the session writes at its end besides the report: the exports of
//! `HOTPATH_EXPORT` (the calling-context tree as folded stacks, a flame graph, pprof, a
//! flame chart) and the Chrome trace of `HOTPATH_TRACE`.
//!
//! Folded stacks, the flame chart and the trace are written here. The flame-graph SVG
//! and pprof need libraries the program should not link: for them the session runs the
//! `hotpath` CLI (`hotpath export -`, the report on its standard input), found in
//! `HOTPATH_CLI` or on `PATH`; without it, it says how to make them from a saved report.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::report::export::{self, Weight};
use crate::report::Report;
use hotpath_core::warn;

/// Formats `HOTPATH_EXPORT` accepts, for messages.
pub(crate) const ACCEPTED: &str = "a comma-separated list of FORMAT:PATH, FORMAT one of \
     folded, svg, pprof, chrome, with -cpu or -calls for another weight than wall time \
     (e.g. folded:stacks.folded,svg-cpu:cpu.svg)";

/// One format of the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Folded,
    Svg,
    Pprof,
    Chrome,
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::Folded => "folded",
            Format::Svg => "svg",
            Format::Pprof => "pprof",
            Format::Chrome => "chrome",
        }
    }
}

/// One export written at the end.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Export {
    pub format: Format,
    pub weight: Weight,
    pub path: PathBuf,
}

/// Parses `folded:out.folded,svg-cpu:cpu.svg`.
pub(crate) fn parse_list(s: &str) -> Option<Vec<Export>> {
    s.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|part| {
            let (spec, path) = part.split_once(':')?;
            let (fmt, weight) = match spec.split_once('-') {
                Some((f, w)) => (f, Weight::parse(w)?),
                None => (spec, Weight::Wall),
            };
            let format = match fmt {
                "folded" => Format::Folded,
                "svg" => Format::Svg,
                "pprof" => Format::Pprof,
                "chrome" => Format::Chrome,
                _ => return None,
            };
            (!path.is_empty()).then(|| Export {
                format,
                weight,
                path: PathBuf::from(path),
            })
        })
        .collect::<Option<Vec<_>>>()
        .filter(|v| !v.is_empty())
}

/// Writes every export of `report`; failures warn and the others go on.
pub(crate) fn write_all(exports: &[Export], report: &Report, timeout: Duration) {
    for e in exports {
        let result = match e.format {
            Format::Folded => export::folded(report, e.weight)
                .map_err(|err| err.to_string())
                .and_then(|text| write(&e.path, text.as_bytes())),
            Format::Chrome => export::chrome_tree(report)
                .map_err(|err| err.to_string())
                .and_then(|text| write(&e.path, text.as_bytes())),
            Format::Svg | Format::Pprof => export::paths(report, e.weight)
                .map_err(|err| err.to_string())
                .and_then(|_| with_cli(e, report, timeout)),
        };
        if let Err(why) = result {
            warn(&format!(
                "HOTPATH_EXPORT: {} to {} not written: {why}",
                e.format.name(),
                e.path.display()
            ));
        }
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| e.to_string())
}

/// `hotpath export - --format F --weight W -o PATH`, the report on standard input. The
/// program's exit waits for it at most `timeout`: a CLI that never reads or never exits
/// is stopped, and the export is reported not written.
fn with_cli(e: &Export, report: &Report, timeout: Duration) -> Result<(), String> {
    let cli = std::env::var_os("HOTPATH_CLI").unwrap_or_else(|| "hotpath".into());
    let weight = match e.weight {
        Weight::Wall => "wall",
        Weight::Cpu => "cpu",
        Weight::Calls => "calls",
    };
    let how = format!(
        "save the report (HOTPATH_OUTPUT_FORMAT=json HOTPATH_OUTPUT_PATH=report.json) and run \
         `hotpath export report.json --format {} --weight {weight} -o {}` (install the CLI: \
         cargo install hotpath-cli)",
        e.format.name(),
        e.path.display()
    );
    let mut child = Command::new(&cli)
        .args([
            "export",
            "-",
            "--format",
            e.format.name(),
            "--weight",
            weight,
            "-o",
        ])
        .arg(&e.path)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| {
            format!(
                "it is made by the hotpath CLI, and {} could not be run ({err}); {how}",
                Path::new(&cli).display()
            )
        })?;
    // Writing and reading on threads of their own: a CLI that does neither cannot block
    // the exit past the deadline. An early exit of the CLI shows in its status below.
    if let Some(mut stdin) = child.stdin.take() {
        let json = report.to_json();
        let _ = std::thread::Builder::new()
            .name("hotpath-export".into())
            .spawn(move || {
                let _ = stdin.write_all(json.as_bytes());
            });
    }
    let stderr = child.stderr.take().map(|mut err| {
        std::thread::Builder::new()
            .name("hotpath-export".into())
            .spawn(move || {
                let mut text = String::new();
                let _ = std::io::Read::read_to_string(&mut err, &mut text);
                text
            })
    });
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5));
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{} did not finish within {} ms (HOTPATH_EXPORT_TIMEOUT_MS) and was \
                     stopped; {how}",
                    Path::new(&cli).display(),
                    timeout.as_millis()
                ));
            }
            Err(err) => return Err(err.to_string()),
        }
    };
    if status.success() {
        return Ok(());
    }
    let stderr = stderr
        .and_then(Result::ok)
        .and_then(|t| t.join().ok())
        .unwrap_or_default();
    Err(format!("hotpath export failed: {}", stderr.trim()))
}

/// Writes the Chrome trace (Trace Event Format, JSON) of every thread's ring to `path`:
/// a complete event (`X`) per sync call and per poll of an async fn (`name (poll)`), and
/// an async slice (`b`/`e`, its own `id2`) per async call; times in µs from `origin`
/// (a clock reading at the start of the session).
pub(crate) fn write_trace(path: &Path, caller: &str, origin: u64) -> Result<(), String> {
    let t = hotpath_core::trace::collect();
    let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let mut w = std::io::BufWriter::new(file);
    trace_json(&t, caller, origin, &mut w)
        .and_then(|()| w.flush())
        .map_err(|e| e.to_string())
}

/// The trace as JSON, one event at a time (the file can hold millions).
fn trace_json(
    t: &hotpath_core::trace::Trace,
    caller: &str,
    origin: u64,
    w: &mut impl Write,
) -> std::io::Result<()> {
    use hotpath_core::trace::Kind;
    use serde_json::json;
    let ns = |tick: u64| tick.saturating_sub(origin) as f64 * t.ns_per_tick;
    let pid = std::process::id();
    let mut first = true;
    let mut event = |w: &mut dyn Write, v: serde_json::Value| -> std::io::Result<()> {
        if !std::mem::take(&mut first) {
            w.write_all(b",\n")?;
        }
        serde_json::to_writer(&mut *w, &v).map_err(std::io::Error::other)
    };
    w.write_all(b"{\"traceEvents\":[\n")?;
    event(
        w,
        json!({"name": "process_name", "ph": "M", "pid": pid, "tid": 0,
            "args": {"name": caller}}),
    )?;
    let mut id: u64 = 0;
    for th in &t.threads {
        event(
            w,
            json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": th.tid,
                "args": {"name": th.name}}),
        )?;
        for e in &th.events {
            let name = e.site.label().unwrap_or(e.site.name());
            let (start, end) = (ns(e.start), ns(e.end));
            let (ts, dur) = (export::micros(start), export::micros(end - start));
            match e.kind {
                Kind::Sync => event(
                    w,
                    json!({"name": name, "cat": "sync", "ph": "X", "ts": ts, "dur": dur,
                        "pid": pid, "tid": th.tid}),
                )?,
                Kind::Poll => event(
                    w,
                    json!({"name": format!("{name} (poll)"), "cat": "poll", "ph": "X",
                        "ts": ts, "dur": dur, "pid": pid, "tid": th.tid}),
                )?,
                Kind::Async => {
                    id += 1;
                    let id2 = json!({"local": format!("0x{id:x}")});
                    for (ph, at) in [("b", ts), ("e", export::micros(end))] {
                        event(
                            w,
                            json!({"name": name, "cat": "async", "ph": ph, "ts": at,
                                "pid": pid, "tid": th.tid, "id2": id2}),
                        )?;
                    }
                }
            }
        }
    }
    let dropped: u64 = t.threads.iter().map(|th| th.dropped).sum();
    let other = json!({
        "hotpath_version": env!("CARGO_PKG_VERSION"),
        "capacity_per_thread": t.capacity,
        "dropped_events": dropped,
        "dropped_threads": t.threads_dropped,
    });
    w.write_all(b"],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":")?;
    serde_json::to_writer(&mut *w, &other).map_err(std::io::Error::other)?;
    w.write_all(b"}\n")
}
