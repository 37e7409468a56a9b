//! The live servers the session starts: the metrics server (`HOTPATH_METRICS_PORT`) and
//! the MCP server (`HOTPATH_MCP_PORT`), from the crate `hotpath-live` (features
//! `hotpath-live`, `hotpath-prometheus`, `hotpath-mcp`). A build without them that asks
//! for a server gets one warning naming the feature to add, and runs on without it.

use std::sync::Arc;

use crate::config::warn;
use crate::shared::Shared;

/// The servers of one session.
#[derive(Debug, Default)]
pub(crate) struct Servers {
    #[cfg(feature = "hotpath-live")]
    metrics: Option<hotpath_live::Server>,
    #[cfg(feature = "hotpath-live")]
    mcp: Option<hotpath_live::Server>,
}

impl Servers {
    /// Starts the servers the configuration asks for; a server that cannot start warns
    /// once and the program runs on without it.
    pub(crate) fn start(shared: &Arc<Shared>) -> Servers {
        let cfg = &shared.cfg;
        #[cfg(feature = "hotpath-live")]
        {
            let metrics = cfg.metrics_port.and_then(|port| {
                hotpath_live::start_metrics(
                    hotpath_live::Options {
                        host: cfg.metrics_host.clone(),
                        port,
                        token: cfg.metrics_token.clone(),
                        allowed_hosts: cfg.metrics_allowed_hosts.clone(),
                        on_thread_start: profiler_thread,
                    },
                    shared.clone(),
                )
            });
            let mcp = cfg.mcp_port.and_then(|port| start_mcp(port, shared));
            Servers { metrics, mcp }
        }
        #[cfg(not(feature = "hotpath-live"))]
        {
            if cfg.metrics_port.is_some() {
                warn(
                    "the metrics server (HOTPATH_METRICS_PORT, HOTPATH_METRICS_SERVER_ON, \
                     metrics_port) needs the feature hotpath-live of hotpath (or \
                     hotpath-prometheus for /metrics too); running without it",
                );
            }
            if cfg.mcp_port.is_some() {
                warn(
                    "the MCP server (HOTPATH_MCP_PORT, mcp_port) needs the feature \
                     hotpath-mcp of hotpath; running without it",
                );
            }
            Servers {}
        }
    }

    /// Stops answering and joins the servers' threads.
    pub(crate) fn stop(&mut self) {
        #[cfg(feature = "hotpath-live")]
        for mut server in [self.metrics.take(), self.mcp.take()].into_iter().flatten() {
            server.stop();
        }
    }

    /// In a forked child: the servers' threads do not exist here; nothing is joined.
    pub(crate) fn forget(&mut self) {
        #[cfg(feature = "hotpath-live")]
        {
            std::mem::forget(self.metrics.take());
            std::mem::forget(self.mcp.take());
        }
    }
}

/// A server's thread is the profiler's own (its CPU, allocations and name).
#[cfg(feature = "hotpath-live")]
fn profiler_thread(name: &'static str) {
    crate::threads::register_profiler_thread();
    crate::threads::register_profiler_thread_name(name);
}

/// The MCP server on `port`, when the build has it and its token is usable.
#[cfg(feature = "hotpath-mcp")]
fn start_mcp(port: u16, shared: &Arc<Shared>) -> Option<hotpath_live::Server> {
    let token = shared.cfg.mcp_token.clone();
    if token
        .as_deref()
        .is_some_and(|t| !crate::config::env::valid_token(t))
    {
        warn(
            "the MCP server's auth token is not valid (accepted: a non-empty token of \
             visible ASCII characters, no spaces); the MCP server is not started, so that \
             it is never open without it",
        );
        return None;
    }
    hotpath_live::mcp::start(
        hotpath_live::Options {
            host: shared.cfg.mcp_host.clone(),
            port,
            token,
            // The same names as the metrics server: HOTPATH_METRICS_ALLOWED_HOSTS.
            allowed_hosts: shared.cfg.metrics_allowed_hosts.clone(),
            on_thread_start: profiler_thread,
        },
        shared.clone(),
    )
}

/// Without the feature: one warning, and the program runs on.
#[cfg(all(feature = "hotpath-live", not(feature = "hotpath-mcp")))]
fn start_mcp(_port: u16, _shared: &Arc<Shared>) -> Option<hotpath_live::Server> {
    warn(
        "the MCP server (HOTPATH_MCP_PORT, mcp_port) needs the feature hotpath-mcp of \
         hotpath; running without it",
    );
    None
}

#[cfg(feature = "hotpath-live")]
mod source {
    use crate::report::{ProfilerStatus, Report, Section, SCHEMA_VERSION};
    use crate::shared::Shared;

    impl hotpath_live::Source for Shared {
        fn report(&self) -> Report {
            crate::shared::build(self)
        }

        fn metrics_limit(&self) -> usize {
            self.cfg.metrics_limit
        }

        fn status(&self) -> ProfilerStatus {
            status(self)
        }

        fn sections(&self) -> Vec<Section> {
            sections(self)
        }

        fn compiled(&self, section: Section) -> bool {
            crate::config::compiled(section)
        }
    }

    /// `/profiler_status`.
    fn status(shared: &Shared) -> ProfilerStatus {
        let mut features = vec!["hotpath".to_string()];
        for (on, name) in [
            (cfg!(feature = "hotpath-alloc"), "hotpath-alloc"),
            (cfg!(feature = "hotpath-cpu"), "hotpath-cpu"),
            (cfg!(feature = "hotpath-live"), "hotpath-live"),
            (cfg!(feature = "hotpath-prometheus"), "hotpath-prometheus"),
            (cfg!(feature = "hotpath-mcp"), "hotpath-mcp"),
            (cfg!(feature = "tokio"), "tokio"),
            (cfg!(feature = "futures-io"), "futures-io"),
            (cfg!(feature = "parking_lot"), "parking_lot"),
            (cfg!(feature = "async-lock"), "async-lock"),
            (cfg!(feature = "sqlx"), "sqlx"),
            (cfg!(feature = "diesel"), "diesel"),
            (cfg!(feature = "reqwest-0-12"), "reqwest-0-12"),
            (cfg!(feature = "reqwest-0-13"), "reqwest-0-13"),
            (cfg!(feature = "ureq-3"), "ureq-3"),
            (cfg!(feature = "axum-0-8"), "axum-0-8"),
        ] {
            if on {
                features.push(name.to_string());
            }
        }
        #[cfg(feature = "hotpath-cpu")]
        let cpu = shared.cpu.as_ref().map(|c| c.mode_and_source());
        #[cfg(not(feature = "hotpath-cpu"))]
        let cpu: Option<(&str, &str)> = None;
        crate::report::ProfilerStatus {
            schema_version: SCHEMA_VERSION,
            version: env!("CARGO_PKG_VERSION").to_string(),
            pid: std::process::id(),
            caller: shared.cfg.caller.to_string(),
            uptime_ns: shared.start.elapsed().as_nanos() as u64,
            sections: sections(shared),
            features,
            cpu_mode: cpu.map(|(m, _)| m.to_string()),
            cpu_source: cpu.map(|(_, s)| s.to_string()),
            clock: hotpath_core::clock::source().name().to_string(),
            time_sampling_rate: hotpath_core::sampling_rate(),
        }
    }

    /// The sections the session collects: configured, and measurable in this run.
    fn sections(shared: &Shared) -> Vec<Section> {
        shared
            .cfg
            .sections
            .iter()
            .copied()
            .filter(|s| match s {
                Section::Cpu => {
                    #[cfg(feature = "hotpath-cpu")]
                    let on = shared.cpu.is_some();
                    #[cfg(not(feature = "hotpath-cpu"))]
                    let on = false;
                    on
                }
                Section::Threads => shared.threads.is_some(),
                Section::Stacks => shared.cfg.stacks,
                _ => true,
            })
            .collect()
    }
}
