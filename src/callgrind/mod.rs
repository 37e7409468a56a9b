//! Instructions per function under `valgrind --tool=callgrind` (feature
//! `hotpath-callgrind`, section `icount`).
//!
//! # How the counts are made
//!
//! Callgrind has no request that tells a program how many instructions it has run, so
//! the counting is left to callgrind and read back once, at the end:
//!
//! 1. With the feature, every measured function that is not `async` is compiled
//!    `#[inline(never)]`: it has a frame and a symbol of its own, and callgrind counts
//!    the instructions of its own code (its self cost) and of every call into it, from
//!    entry to return (the inclusive cost of the call).
//! 2. When the session starts, `RUNNING_ON_VALGRIND` (a client request) says whether the
//!    process runs under valgrind. If it does, the session times nothing (every time
//!    sampling rate is 0: calls, operations and messages are counted, never timed), so
//!    that the profiler's own instructions inside a measured function do not depend on
//!    the clock (a histogram's bucket groups are made when a time first falls in them)
//!    and two runs count the same; times under valgrind would mean nothing anyway. Last,
//!    `CALLGRIND_ZERO_STATS` drops what was counted before (the program's and the
//!    loader's start-up, the session's set-up).
//!    From then on the slow entry of a measured scope (a thread's or a site's first call,
//!    which allocates and registers, and whose work depends on what the profiler's own
//!    threads did first) runs with callgrind's collection toggled off
//!    (`CALLGRIND_TOGGLE_COLLECT` before and after): the instructions a measured call
//!    adds are the same in every run.
//! 3. The report at the end of the session issues `CALLGRIND_DUMP_STATS_AT` with a tag
//!    naming this process; callgrind writes its counts since the zeroing to a new file
//!    (`<out file>.<n>`) before the request returns. The profiler finds that file by the
//!    tag on its `desc: Trigger:` line (never by guessing which file is newest), reads it
//!    and matches functions by name.
//!
//! A function's `inclusive` is the inclusive cost of the calls into its first level of
//! recursion: callgrind folds a direct recursion into the outermost call
//! (`--skip-direct-rec=yes`, its default) and names deeper levels of an indirect one
//! `f'2` (`--separate-recs=2`, its default), so a recursion counts once. Its `self` is
//! callgrind's own cost of the function at every level. `calls` is the profiler's count.
//!
//! Outside valgrind the only cost is the frame of step 1 (one call where the compiler
//! would have inlined) and one client request when the session starts (a few
//! instructions that do nothing on a real CPU); the section then says why it is empty.

mod dump;
#[allow(unsafe_code)]
mod request;

use std::collections::HashMap;
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// What the session knows about callgrind from its start.
struct Start {
    /// `RUNNING_ON_VALGRIND` at the start (0: a real CPU).
    valgrinds: u64,
    /// The dump's base name: `HOTPATH_CALLGRIND_OUT_FILE` (`%p`, `%q{VAR}` and `%%`
    /// expanded as valgrind does), by default `callgrind.out.<pid>`, relative to the
    /// working directory at the start.
    out_file: PathBuf,
}

static START: OnceLock<Start> = OnceLock::new();

/// Dumps this process asked for (a forked child counts its own).
static DUMPS: AtomicU32 = AtomicU32::new(0);

/// Called when a session starts: whether the process runs under valgrind.
pub(crate) fn detect() -> bool {
    start().valgrinds > 0
}

/// Called last when a session starts, under valgrind: zeroes callgrind's counts and
/// leaves the profiler's first-use work out of them.
pub(crate) fn zero() {
    if start().valgrinds > 0 {
        hotpath_core::hook::set_cold_hook(cold);
        request::zero_stats();
    }
}

/// Around the profiler's first-use work in a measured call (`false` before, `true`
/// after; `hotpath_core::hook::set_cold_hook`): a thread's shard, a chunk of slots, a
/// site's number. What `malloc` and the registry's lock do there depends on the heap
/// and on the profiler's other threads, so callgrind does not count it. The client
/// request itself executes the same instructions every time.
fn cold(done: bool) {
    let _ = done;
    request::toggle_collect();
}

fn start() -> &'static Start {
    START.get_or_init(|| {
        let valgrinds = request::running_on_valgrind();
        let template = std::env::var("HOTPATH_CALLGRIND_OUT_FILE")
            .ok()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "callgrind.out.%p".to_string());
        let path = PathBuf::from(expand(&template, std::process::id()));
        let out_file = if path.is_absolute() {
            path
        } else {
            std::env::current_dir().map_or(path.clone(), |cwd| cwd.join(&path))
        };
        Start {
            valgrinds,
            out_file,
        }
    })
}

/// Instructions of one function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Icount {
    pub inclusive: u64,
    pub self_: u64,
}

/// What the end of the session counted.
#[derive(Debug)]
pub(crate) struct Counts {
    pub tool: Option<String>,
    pub dump: PathBuf,
    pub total: Option<u64>,
    /// By function name without generic arguments ([`dump::normalise`]).
    by_name: HashMap<String, Icount>,
}

impl Counts {
    /// The counts of the function named `name` (as the profiler names it), if callgrind
    /// saw it return.
    pub(crate) fn of(&self, name: &str) -> Option<Icount> {
        self.by_name.get(&dump::normalise(name)).copied()
    }
}

/// The outcome: counts, or why there are none.
pub(crate) type Outcome = Result<Counts, String>;

/// Dumps callgrind's counts and reads them (the report at the end of a session).
pub(crate) fn finish() -> Outcome {
    let Some(start) = START.get() else {
        return Err("the session did not start callgrind counting".to_string());
    };
    if start.valgrinds == 0 {
        return Err(if cfg!(target_arch = "x86_64") {
            "not running under valgrind (run `valgrind --tool=callgrind <program>`)".to_string()
        } else {
            "valgrind client requests are implemented for x86_64 only".to_string()
        });
    }
    let n = DUMPS.fetch_add(1, Ordering::Relaxed) + 1;
    let tag = format!("hotpath {} {n}", std::process::id());
    let Ok(c_tag) = CString::new(tag.clone()) else {
        return Err("internal: a tag with a NUL byte".to_string());
    };
    request::dump_stats_at(&c_tag);
    let (path, text) = find(&start.out_file, &format!("Client Request: {tag}"))?;
    let d = dump::parse(&text).map_err(|e| format!("{}: {}", path.display(), e.0))?;
    let mut by_name: HashMap<String, Icount> = HashMap::new();
    for (name, ir) in &d.self_ir {
        let (base, _) = dump::level(name);
        by_name.entry(dump::normalise(base)).or_default().self_ += ir;
    }
    for (name, ir) in &d.called_ir {
        if let (base, 1) = dump::level(name) {
            by_name.entry(dump::normalise(base)).or_default().inclusive += ir;
        }
    }
    Ok(Counts {
        tool: d.creator,
        dump: path,
        total: d.total,
        by_name,
    })
}

/// The dump whose trigger is `trigger`: `<base>.<k>` for the first `k` whose file has it
/// (other dumps, `--dump-every-bb` or the program's own client requests, take numbers
/// too).
fn find(base: &Path, trigger: &str) -> Result<(PathBuf, String), String> {
    for k in 1..=u32::MAX {
        let mut p = base.as_os_str().to_owned();
        p.push(format!(".{k}"));
        let path = PathBuf::from(p);
        let Ok(text) = std::fs::read_to_string(&path) else {
            break;
        };
        let found = text
            .lines()
            .take(64)
            .any(|l| l.strip_prefix("desc: Trigger: ") == Some(trigger));
        if found {
            return Ok((path, text));
        }
    }
    Err(format!(
        "callgrind's dump was not found at {}.<n> (run valgrind with \
         `--callgrind-out-file=<file>` and set HOTPATH_CALLGRIND_OUT_FILE to the same \
         <file>, or leave both unset)",
        base.display()
    ))
}

/// `%p` → `pid`, `%q{VAR}` → `$VAR`, `%%` → `%`, as valgrind expands
/// `--callgrind-out-file`.
fn expand(template: &str, pid: u32) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 1..];
        if let Some(t) = tail.strip_prefix('p') {
            out.push_str(&pid.to_string());
            rest = t;
        } else if let Some(t) = tail.strip_prefix('%') {
            out.push('%');
            rest = t;
        } else if let Some((var, t)) = tail.strip_prefix("q{").and_then(|t| t.split_once('}')) {
            out.push_str(&std::env::var(var).unwrap_or_default());
            rest = t;
        } else {
            out.push('%');
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn out_file_templates_expand_as_valgrind_does() {
        std::env::set_var("HOTPATH_CG_TEST_VAR", "x");
        assert_eq!(
            super::expand("cg.%p.%q{HOTPATH_CG_TEST_VAR}%%", 42),
            "cg.42.x%"
        );
        assert_eq!(super::expand("plain", 1), "plain");
    }
}
