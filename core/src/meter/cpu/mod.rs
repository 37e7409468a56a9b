//! CPU meter: how much of a function's wall time was spent on a CPU.
//!
//! Two ways to know it, chosen per session by the `hotpath-cpu` crate:
//!
//! * **exact**: the thread CPU clock (and context-switch counts) are read at every scope
//!   entry and exit through the [`Reader`] registered with [`set_exact`]: per-call CPU
//!   time and percentiles, at the cost of the reads (syscalls);
//! * **sampled**: a per-thread CPU-time signal calls [`crate::credit_cpu_sample`], which
//!   credits one sampling period to every distinct function on the interrupted thread's
//!   scope stack (inclusive) and to the one on top (self): `CpuSlot::sampled` and
//!   `CpuSlot::self_sampled`. Nothing is added to the per-call path.
//!
//! The meter's parts, each below the shards that hold them: the clock readings, the
//! reader and thread hooks of the mode (`clock`), the per-call-site numbers (`slot`).
//! This file is the public face, above the registry: [`this_thread_unsampled`] acts on
//! the calling thread's shard. The shard, its stack and the signal handler's entry point
//! are the registry's.

pub(crate) mod clock;
pub(crate) mod slot;

pub use clock::{
    exact, set_exact, set_thread_hooks, set_unsampled_reader, CpuDelta, Reader, ThreadHook,
};
pub use slot::{CpuCounts, CpuCountsMerged};

/// The calling thread cannot be sampled (it blocks the sampling signal): until the next
/// session its measured scopes read the CPU clock at entry and exit, with the reader of
/// [`set_unsampled_reader`], as in exact mode. Called by the thread-start hook.
pub fn this_thread_unsampled() {
    if let Some(shard) = crate::registry::current_raw() {
        shard.read_cpu_clock();
    }
}
