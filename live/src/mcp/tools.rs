//! What each MCP tool answers, as JSON, from the running session: pure functions over
//! a [`Source`] (and for [`compare`], a saved report), tested without a socket or the
//! SDK. The SDK's side (names, descriptions, argument schemas) is in [`super::server`].
//!
//! Everything is cut from the same [`Report`] the live routes serve, and what is
//! generic stays generic: sections come from [`Section::ALL`] and
//! [`Report::fragment`], and a metric can be any numeric path into a function's JSON, so
//! a section or per-function object added to the report is served without code here.

use serde_json::{json, Map, Value};

use crate::source::Source;
use hotpath_report::{Function, Group, Report, Section};

/// A tool's answer: JSON, or a message for the client (sent as a tool error, which the
/// model reads).
pub(crate) type Answer = Result<Value, String>;

/// Rows of a list unless a tool is told otherwise.
pub(crate) const DEFAULT_ROWS: usize = 20;
/// Bytes of a baseline report read at most.
pub(crate) const MAX_BASELINE_BYTES: u64 = 64 * 1024 * 1024;

/// `status`: the profiler and the program.
pub(crate) fn status(source: &dyn Source) -> Answer {
    to_value(&source.status())
}

/// `sections`: every section this version of hotpath knows, whether this build has it
/// and whether the session collects it.
pub(crate) fn sections(source: &dyn Source) -> Answer {
    let collected = source.sections();
    let list: Vec<Value> = Section::ALL
        .iter()
        .map(|&s| {
            let compiled = source.compiled(s);
            json!({
                "name": s.name(),
                "collected": compiled && collected.contains(&s),
                "compiled": compiled,
                "feature": match s.features() {
                    [one] => Some(*one),
                    _ => None,
                },
                "features": s.features(),
                "why_not": crate::source::unavailable(source, s).map(|(why, _)| why),
                "route": s.route(),
            })
        })
        .collect();
    Ok(json!({ "sections": list }))
}

/// `section`: one section's fragment, as its live route answers it, with at most `limit`
/// rows in each list (0: all) and without histograms unless asked.
pub(crate) fn section(source: &dyn Source, name: &str, limit: usize, histograms: bool) -> Answer {
    let section = Section::parse(name.trim()).ok_or_else(|| {
        format!(
            "no section {name:?}; sections: {}",
            Section::join(&Section::ALL, ", ")
        )
    })?;
    if let Some((why, _)) = crate::source::unavailable(source, section) {
        return Err(why);
    }
    let mut v = source.report().fragment(section);
    if !histograms {
        strip_histograms(&mut v);
    }
    truncate_lists(&mut v, limit);
    Ok(v)
}

/// A metric `top_functions` ranks by: its names, unit, and how a function gives it.
struct Metric {
    names: &'static [&'static str],
    unit: &'static str,
    about: &'static str,
    value: fn(&Function) -> Option<f64>,
}

/// The named metrics; any other name is a percentile (`p99`) or a path into a
/// function's JSON (`cpu.wait_ns`).
const METRICS: &[Metric] = &[
    Metric {
        names: &["total"],
        unit: "ns",
        about: "wall time, inclusive, with calls still running",
        value: |f| timed(f).then(|| f.total_with_running() as f64),
    },
    Metric {
        names: &["self"],
        unit: "ns",
        about: "wall time outside measured children, with calls still running",
        value: |f| timed(f).then(|| f.self_with_running() as f64),
    },
    Metric {
        names: &["calls"],
        unit: "calls",
        about: "calls completed (exact, also when sampling)",
        value: |f| Some(f.calls as f64),
    },
    Metric {
        names: &["avg", "mean"],
        unit: "ns",
        about: "mean wall time of one call",
        value: |f| f.wall_ns.as_ref().map(|w| w.mean as f64),
    },
    Metric {
        names: &["max"],
        unit: "ns",
        about: "longest call",
        value: |f| f.wall_ns.as_ref().map(|w| w.max as f64),
    },
    Metric {
        names: &["min"],
        unit: "ns",
        about: "shortest call",
        value: |f| f.wall_ns.as_ref().map(|w| w.min as f64),
    },
    Metric {
        names: &["alloc_bytes", "alloc"],
        unit: "bytes",
        about: "bytes allocated, inclusive (hotpath-alloc)",
        value: |f| f.alloc.as_ref().map(|a| a.bytes as f64),
    },
    Metric {
        names: &["self_alloc_bytes"],
        unit: "bytes",
        about: "bytes allocated outside measured children (hotpath-alloc)",
        value: |f| f.alloc.as_ref().map(|a| a.self_bytes as f64),
    },
    Metric {
        names: &["alloc_count", "allocs"],
        unit: "allocations",
        about: "allocations, inclusive (hotpath-alloc)",
        value: |f| f.alloc.as_ref().map(|a| a.count as f64),
    },
    Metric {
        names: &["alloc_per_call"],
        unit: "bytes",
        about: "mean bytes allocated by one call (hotpath-alloc)",
        value: |f| f.alloc.as_ref().map(|a| a.per_call_bytes as f64),
    },
    Metric {
        names: &["retained_bytes", "retained"],
        unit: "bytes",
        about: "bytes allocated and not freed by the calls (hotpath-alloc)",
        value: |f| f.alloc.as_ref().map(|a| a.retained_bytes as f64),
    },
    Metric {
        names: &["cpu"],
        unit: "ns",
        about: "CPU time, inclusive (hotpath-cpu)",
        value: |f| f.cpu.as_ref().map(|c| c.cpu_ns as f64),
    },
    Metric {
        names: &["self_cpu"],
        unit: "ns",
        about: "CPU time outside measured children (hotpath-cpu)",
        value: |f| f.cpu.as_ref().map(|c| c.self_cpu_ns as f64),
    },
    Metric {
        names: &["off_cpu", "wait"],
        unit: "ns",
        about: "wall time not on a CPU: blocked, sleeping, waiting (hotpath-cpu)",
        value: |f| f.cpu.as_ref().map(|c| c.wait_ns as f64),
    },
    Metric {
        names: &["waited"],
        unit: "ns",
        about: "own time waiting in wrapped operations: I/O, locks, channels, SQL, HTTP (section waits)",
        value: |f| f.waits.as_ref().map(|w| w.waited_ns() as f64),
    },
    Metric {
        names: &["lock_wait"],
        unit: "ns",
        about: "own time waiting for measured locks and their condition variables (section waits)",
        value: |f| f.waits.as_ref().map(|w| w.lock_ns as f64),
    },
    Metric {
        names: &["channel_wait"],
        unit: "ns",
        about: "own time waiting to send on full or receive from empty channels (section waits)",
        value: |f| {
            f.waits
                .as_ref()
                .map(|w| w.channel_send_ns.saturating_add(w.channel_recv_ns) as f64)
        },
    },
    Metric {
        names: &["io"],
        unit: "ns",
        about: "time inside io! operations while the function was innermost",
        value: |f| f.io.as_ref().map(|i| i.io_ns as f64),
    },
    Metric {
        names: &["io_bytes"],
        unit: "bytes",
        about: "bytes read and written by io! operations while the function was innermost",
        value: |f| {
            f.io.as_ref()
                .map(|i| i.read_bytes.saturating_add(i.write_bytes) as f64)
        },
    },
];

/// Whether a function's times were measured (or it has calls running).
fn timed(f: &Function) -> bool {
    f.wall_ns.is_some() || f.running.is_some()
}

/// Every metric name, for messages and the tool's description.
pub(crate) fn metric_names() -> String {
    let names: Vec<&str> = METRICS.iter().map(|m| m.names[0]).collect();
    format!(
        "{}, a percentile such as p99, or a path into a function's JSON such as \
         cpu.wait_ns or alloc.p50",
        names.join(", ")
    )
}

/// `top_functions`: the `limit` functions with the largest `metric` (0: all).
pub(crate) fn top_functions(source: &dyn Source, metric: &str, limit: usize) -> Answer {
    let report = source.report();
    let metric = metric.trim();
    let (name, unit, about, values) = metric_values(&report, metric)?;
    let mut rows: Vec<(f64, &Function)> = report
        .functions
        .iter()
        .zip(values)
        .filter_map(|(f, v)| v.map(|v| (v, f)))
        .collect();
    let without = report.functions.len() - rows.len();
    rows.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
    let total = rows.len();
    let rows: Vec<Value> = rows
        .into_iter()
        .take(if limit == 0 { usize::MAX } else { limit })
        .map(|(v, f)| {
            json!({
                "name": f.name,
                "label": f.label,
                "display_name": f.display_name(),
                "file": f.file,
                "line": f.line,
                "value": number(v),
                "calls": f.calls,
                "total_ns": timed(f).then(|| f.total_with_running()),
                "self_ns": timed(f).then(|| f.self_with_running()),
                "mean_ns": f.wall_ns.as_ref().map(|w| w.mean),
            })
        })
        .collect();
    Ok(json!({
        "metric": name,
        "unit": unit,
        "about": about,
        "elapsed_ns": report.elapsed_ns,
        "functions": rows,
        "functions_with_metric": total,
        "functions_without_metric": without,
    }))
}

/// A metric's name, unit, description and value for each of the report's functions.
#[allow(clippy::type_complexity)]
fn metric_values(
    report: &Report,
    metric: &str,
) -> Result<(String, String, String, Vec<Option<f64>>), String> {
    if let Some(m) = METRICS.iter().find(|m| m.names.contains(&metric)) {
        let values = report.functions.iter().map(m.value).collect();
        return Ok((
            m.names[0].to_string(),
            m.unit.to_string(),
            m.about.to_string(),
            values,
        ));
    }
    if let Some(p) = metric.strip_prefix('p').and_then(|p| p.parse::<f64>().ok()) {
        if !report.percentiles.contains(&p) {
            let have: Vec<String> = report
                .percentiles
                .iter()
                .map(|p| hotpath_report::percentile_key(*p))
                .collect();
            return Err(format!(
                "percentile {metric} is not measured; this report has {}",
                have.join(", ")
            ));
        }
        let values = report
            .functions
            .iter()
            .map(|f| {
                f.wall_ns
                    .as_ref()
                    .and_then(|w| w.percentiles.get(p))
                    .map(|v| v as f64)
            })
            .collect();
        return Ok((
            hotpath_report::percentile_key(p),
            "ns".into(),
            format!("wall time of one call at percentile {p}"),
            values,
        ));
    }
    // A path into each function's JSON.
    let path: Vec<&str> = metric.split('.').collect();
    if metric.is_empty() || path.iter().any(|p| p.is_empty()) {
        return Err(format!("no metric {metric:?}; metrics: {}", metric_names()));
    }
    let mut found = false;
    let mut values = Vec::with_capacity(report.functions.len());
    for f in &report.functions {
        let v = serde_json::to_value(f).map_err(|e| e.to_string())?;
        let leaf = path.iter().try_fold(&v, |v, key| v.get(key));
        found |= leaf.is_some();
        values.push(leaf.and_then(Value::as_f64));
    }
    if !found && !report.functions.is_empty() {
        return Err(format!("no metric {metric:?}; metrics: {}", metric_names()));
    }
    Ok((
        metric.to_string(),
        "as in the report's JSON (ns, bytes, counts)".into(),
        format!("the function's `{metric}` in the report's JSON"),
        values,
    ))
}

/// `function`: one function's row with its percentiles and its alloc, cpu and io
/// objects (and whatever else the report holds for it), found by name.
pub(crate) fn function(source: &dyn Source, query: &str, histograms: bool) -> Answer {
    let report = source.report();
    let f = find_function(&report, query.trim())?;
    let mut row = to_value(f)?;
    if !histograms {
        strip_histograms(&mut row);
    }
    let total = f.total_with_running();
    Ok(json!({
        "function": row,
        "share_of_run": (report.elapsed_ns > 0 && timed(f))
            .then(|| number(total as f64 / report.elapsed_ns as f64)),
        "elapsed_ns": report.elapsed_ns,
        "percentiles": report.percentiles,
        "sections": report.sections,
    }))
}

/// The function `query` names: its full name, label, short name or `file:line`; else
/// the only one whose name ends with `::query` or contains it.
fn find_function<'a>(report: &'a Report, query: &str) -> Result<&'a Function, String> {
    if query.is_empty() {
        return Err("give a function's name".into());
    }
    let at = |f: &Function| format!("{}:{}", f.file, f.line);
    let tiers: [&dyn Fn(&Function) -> bool; 3] = [
        &|f| {
            f.name == query
                || f.label.as_deref() == Some(query)
                || f.short_name.as_deref() == Some(query)
                || at(f) == query
        },
        &|f| f.name.ends_with(&format!("::{query}")),
        &|f| f.name.contains(query) || f.label.as_deref().is_some_and(|l| l.contains(query)),
    ];
    for matches in tiers {
        let hits: Vec<&Function> = report.functions.iter().filter(|f| matches(f)).collect();
        match hits.as_slice() {
            [] => continue,
            [one] => return Ok(one),
            many => {
                let names: Vec<String> = many
                    .iter()
                    .take(20)
                    .map(|f| format!("{} ({})", f.full_display_name(), at(f)))
                    .collect();
                return Err(format!(
                    "{} functions match {query:?}: {}{}; give a full name or file:line",
                    many.len(),
                    names.join(", "),
                    if many.len() > 20 { ", ..." } else { "" }
                ));
            }
        }
    }
    Err(format!(
        "no function matches {query:?} among {} measured; top_functions lists them",
        report.functions.len()
    ))
}

/// `io`: the I/O entries (by bytes moved) and the functions that made I/O.
pub(crate) fn io(source: &dyn Source, limit: usize) -> Answer {
    section(source, Section::Io.name(), limit, false)
}

/// `threads`: every thread seen (by CPU time) and the process's memory.
pub(crate) fn threads(source: &dyn Source, limit: usize) -> Answer {
    section(source, Section::Threads.name(), limit, false)
}

/// `data_flow`: each data-flow section this session serves, as its route answers it
/// (rows cut to `limit`, 0: all; no histograms), and why the others are absent.
pub(crate) fn data_flow(source: &dyn Source, limit: usize) -> Answer {
    let mut sections = Map::new();
    let mut absent = Map::new();
    for s in Group::DataFlow.sections() {
        match crate::source::unavailable(source, s) {
            Some((why, _)) => {
                absent.insert(s.name().into(), json!(why));
            }
            None => {
                sections.insert(s.name().into(), section(source, s.name(), limit, false)?);
            }
        }
    }
    Ok(json!({ "sections": sections, "absent": absent }))
}

/// `compare`: the report so far against a saved JSON report at `path`.
pub(crate) fn compare(
    source: &dyn Source,
    path: &str,
    threshold_percent: f64,
    limit: usize,
) -> Answer {
    if !(threshold_percent.is_finite() && threshold_percent >= 0.0) {
        return Err(format!(
            "threshold_percent {threshold_percent} is not a number from 0 up"
        ));
    }
    let baseline = read_baseline(path)?;
    let v = super::compare::compare(&baseline, &source.report(), threshold_percent, limit);
    let mut v = to_value(&v)?;
    if let Some(m) = v.as_object_mut() {
        m.insert("baseline_path".into(), json!(path));
    }
    Ok(v)
}

/// Reads a JSON report of at most [`MAX_BASELINE_BYTES`] from a regular file.
fn read_baseline(path: &str) -> Result<Report, String> {
    use std::io::Read;
    let path = path.trim();
    if path.is_empty() {
        return Err("give the path of a JSON report (HOTPATH_OUTPUT_FORMAT=json)".into());
    }
    // Only a regular file: opening a FIFO would block the server's one thread until a
    // writer came, and a device could be read without end.
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot open {path}: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "{path} is not a regular file; give the path of a JSON report \
             (HOTPATH_OUTPUT_FORMAT=json)"
        ));
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open {path}: {e}"))?;
    let mut text = String::new();
    file.take(MAX_BASELINE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read {path}: {e}"))?;
    if text.len() as u64 > MAX_BASELINE_BYTES {
        return Err(format!(
            "{path} is larger than {} MiB; not a report this tool reads",
            MAX_BASELINE_BYTES >> 20
        ));
    }
    Report::from_json(&text).map_err(|e| format!("{path}: {e}"))
}

fn to_value<T: serde::Serialize>(v: &T) -> Answer {
    serde_json::to_value(v).map_err(|e| format!("could not serialize the answer: {e}"))
}

/// An integer when the value is one, so that `1000` is not written `1000.0`.
fn number(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

/// Removes every `hist` key: the buckets behind percentiles, long and rarely needed.
pub(crate) fn strip_histograms(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("hist");
            m.values_mut().for_each(strip_histograms);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_histograms),
        _ => {}
    }
}

/// Cuts each list of rows (an array of objects: `functions`, `io`, `threads`, ...) at
/// the top of `v` to `limit` items (0: all), and says in `truncated` how many each had.
/// Other lists (`percentiles`, `notes`) are kept whole.
fn truncate_lists(v: &mut Value, limit: usize) {
    let Some(m) = v.as_object_mut() else { return };
    if limit == 0 {
        return;
    }
    let mut truncated = Map::new();
    for (k, item) in m.iter_mut() {
        if let Value::Array(a) = item {
            if a.len() > limit && a.iter().all(Value::is_object) {
                truncated.insert(k.clone(), json!(a.len()));
                a.truncate(limit);
            }
        }
    }
    if !truncated.is_empty() {
        m.insert("truncated".into(), Value::Object(truncated));
    }
}
