//! Linux: perf_event_open, clock_gettime, getrusage, timer_create and a real-time
//! sampling signal, one idea per file:
//!
//! * [`perf`]: the perf_event ABI (the attribute struct, opening an event, what a
//!   refusal means, reading a counter);
//! * [`clock`]: the calling thread's CPU clocks and counters, the process's CPU time;
//! * [`sampler`]: the CPU sampler (its signal, handler and per-thread samplers), with
//!   its safety invariants;
//! * [`exact`]: exact mode (the per-scope reader and each thread's descriptors).
//!
//! Every file descriptor and timer opened here belongs to one thread and is closed by
//! that thread.

mod clock;
mod exact;
mod perf;
mod sampler;

pub(crate) use clock::{monotonic_ns, process_cpu_ns, thread_cpu_ns, thread_switches, Clock, Hw};
pub(crate) use exact::start_exact;
pub(crate) use perf::simulate_failures;
pub(crate) use sampler::{
    blocked_threads, check_sampling, clocked_threads, signal_name, start_sampling, stop_sampling,
};
