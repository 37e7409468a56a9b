//! The MCP side of the tools: names, descriptions and argument schemas for the SDK's
//! `#[tool]` macros, each a thin call into [`super::tools`].

use std::sync::Arc;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{tool, tool_handler, tool_router, ErrorData, ServerHandler};
use serde::Deserialize;

use super::tools::{self, Answer, DEFAULT_ROWS};
use crate::source::Source;

/// What the server tells a client about itself on connecting.
const INSTRUCTIONS: &str = "Profile of the running program, measured in process by hotpath. \
Start with `status` (sections, CPU mode, clock) and `top_functions` (by total, self, calls, \
avg, p99, alloc_bytes, cpu, off_cpu, waited, lock_wait, io, ...); `function` gives one \
function's percentiles, allocations, CPU time and what its own time waited on (I/O, locks, \
channels, ...). `io`, `threads` and `data_flow` (channels, streams, futures, locks) cover the rest; `section` serves any \
section. Times are nanoseconds, sizes bytes. The numbers are of the run so far: calls and \
totals grow while the program runs. `compare` checks the run against a saved JSON report \
(HOTPATH_OUTPUT_FORMAT=json).";

/// The tools, over one running session.
#[derive(Clone)]
pub(crate) struct Tools {
    source: Arc<dyn Source>,
}

impl Tools {
    pub(crate) fn new(source: Arc<dyn Source>) -> Tools {
        Tools { source }
    }
}

/// Arguments of `section`.
#[derive(Debug, Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub(crate) struct SectionArgs {
    /// The section, as `sections` lists it: timing, alloc, cpu, io, threads, or any other
    /// this build has.
    pub name: String,
    /// Most rows of each list in the answer; 0 for all. Default 20.
    #[serde(default)]
    pub limit: Option<usize>,
    /// Also the histograms behind the percentiles (long). Default false.
    #[serde(default)]
    pub histograms: Option<bool>,
}

/// Arguments of `top_functions`.
#[derive(Debug, Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub(crate) struct TopArgs {
    /// What to rank by: total, self, calls, avg, max, min, a percentile such as p99,
    /// alloc_bytes, self_alloc_bytes, alloc_count, alloc_per_call, retained_bytes, cpu,
    /// self_cpu, off_cpu, waited, lock_wait, channel_wait, io, io_bytes, or a path into a
    /// function's JSON such as waits.sql_ns or cpu.wait_ns. Default total.
    #[serde(default)]
    pub metric: Option<String>,
    /// Most functions listed; 0 for all. Default 20.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Arguments of `function`.
#[derive(Debug, Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub(crate) struct FunctionArgs {
    /// The function: its full name (`app::parser::parse`), its label, its short name
    /// (`parser::parse`), its `file:line`, or a part of its name that only it has.
    pub name: String,
    /// Also the histograms behind the percentiles (long). Default false.
    #[serde(default)]
    pub histograms: Option<bool>,
}

/// Arguments of `io`, `threads` and `data_flow`.
#[derive(Debug, Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub(crate) struct LimitArgs {
    /// Most rows of each list; 0 for all. Default 20.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Arguments of `compare`.
#[derive(Debug, Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub(crate) struct CompareArgs {
    /// Path of the saved JSON report (HOTPATH_OUTPUT_FORMAT=json), on the machine the
    /// program runs on; a relative path is relative to the program's working directory.
    pub baseline: String,
    /// A mean time per call that changed by more than this many percent is slower or
    /// faster. Default 10.
    #[serde(default)]
    pub threshold_percent: Option<f64>,
    /// Most functions listed; 0 for all. Default 20.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// A tool's answer as the SDK sends it: JSON text, or a tool error the model can read.
fn result(answer: Answer) -> Result<CallToolResult, ErrorData> {
    Ok(match answer {
        Ok(v) => CallToolResult::success(vec![ContentBlock::text(v.to_string())]),
        Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
    })
}

#[tool_router]
impl Tools {
    /// The profiler and the program: hotpath version, pid, uptime, the function that
    /// started profiling, sections collected, Cargo features, CPU mode and source, clock,
    /// time sampling rate.
    #[tool(annotations(read_only_hint = true))]
    fn status(&self) -> Result<CallToolResult, ErrorData> {
        result(tools::status(&*self.source))
    }

    /// Every section of the report this hotpath knows (timing, alloc, cpu, io, threads,
    /// and data-flow sections such as channels, streams and futures when the build has
    /// them): whether this build has it, whether this run collects it, and why not.
    #[tool(annotations(read_only_hint = true))]
    fn sections(&self) -> Result<CallToolResult, ErrorData> {
        result(tools::sections(&*self.source))
    }

    /// One section of the report so far as JSON, the same keys as the exit report and the
    /// metrics server's route for it (`functions` with only that section's object, `io`,
    /// `threads`, ...). Works for every section `sections` lists as collected.
    #[tool(annotations(read_only_hint = true))]
    fn section(&self, Parameters(a): Parameters<SectionArgs>) -> Result<CallToolResult, ErrorData> {
        result(tools::section(
            &*self.source,
            &a.name,
            a.limit.unwrap_or(DEFAULT_ROWS),
            a.histograms.unwrap_or(false),
        ))
    }

    /// The functions with the largest value of a metric so far, largest first, each with
    /// its calls, total, self and mean time (ns). Functions the metric does not apply to
    /// (no allocations measured, no I/O) are left out and counted.
    #[tool(annotations(read_only_hint = true))]
    fn top_functions(
        &self,
        Parameters(a): Parameters<TopArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        result(tools::top_functions(
            &*self.source,
            a.metric.as_deref().unwrap_or("total"),
            a.limit.unwrap_or(DEFAULT_ROWS),
        ))
    }

    /// One function in detail: calls, wall time (total, self, mean, min, max,
    /// percentiles), async polls, calls still running, and when measured its allocations
    /// (`alloc`), CPU time and time off the CPU (`cpu`: cpu_ns, wait_ns, cpu_share), I/O
    /// (`io`), and `waits`: its own time split into CPU, I/O, lock, channel, SQL, HTTP
    /// and other; with `share_of_run` (total wall time / elapsed time: above 1 when calls
    /// overlap on several threads).
    #[tool(annotations(read_only_hint = true))]
    fn function(
        &self,
        Parameters(a): Parameters<FunctionArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        result(tools::function(
            &*self.source,
            &a.name,
            a.histograms.unwrap_or(false),
        ))
    }

    /// I/O through `io!`: each entry's operations, bytes, errors, latency percentiles and
    /// rate per direction (read, write, flush, shutdown, seek), by bytes moved, and the
    /// functions that made I/O with their bytes and time.
    #[tool(annotations(read_only_hint = true))]
    fn io(&self, Parameters(a): Parameters<LimitArgs>) -> Result<CallToolResult, ErrorData> {
        result(tools::io(&*self.source, a.limit.unwrap_or(DEFAULT_ROWS)))
    }

    /// Data moving between threads and tasks: the locks (`mutexes`, `rw_locks`: per
    /// `mutex!`/`rw_lock!` site, acquisitions, contention, wait and hold times and their
    /// percentiles, the functions that waited and held longest), each as its section's
    /// route answers it; sections absent from this run are listed with the reason.
    #[tool(annotations(read_only_hint = true))]
    fn data_flow(&self, Parameters(a): Parameters<LimitArgs>) -> Result<CallToolResult, ErrorData> {
        result(tools::data_flow(
            &*self.source,
            a.limit.unwrap_or(DEFAULT_ROWS),
        ))
    }

    /// Every thread seen (the profiler's own marked): state, CPU share average and peak,
    /// user and system time, bytes allocated and freed; and the process's memory.
    #[tool(annotations(read_only_hint = true))]
    fn threads(&self, Parameters(a): Parameters<LimitArgs>) -> Result<CallToolResult, ErrorData> {
        result(tools::threads(
            &*self.source,
            a.limit.unwrap_or(DEFAULT_ROWS),
        ))
    }

    /// The run so far against a saved JSON report (a baseline): functions matched by name
    /// and label, each with a verdict (slower, faster, same) on its mean time per call
    /// against the threshold, and its calls, percentiles, totals, allocations per call and
    /// CPU time on both sides; functions only in one of them are listed.
    #[tool(annotations(read_only_hint = true))]
    fn compare(&self, Parameters(a): Parameters<CompareArgs>) -> Result<CallToolResult, ErrorData> {
        result(tools::compare(
            &*self.source,
            &a.baseline,
            a.threshold_percent.unwrap_or(10.0),
            a.limit.unwrap_or(DEFAULT_ROWS),
        ))
    }
}

#[tool_handler]
impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("hotpath", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS.to_string())
    }
}
