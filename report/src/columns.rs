//! The columns of every table the report is shown in, declared once: the exit report's
//! text tables ([`crate::render_table`]) and the console's views (`hotpath console`)
//! both build their tables from these. A column has a title, an alignment, which
//! renderer shows it, and how a row gives its cell: the text shown and the value it
//! sorts by. Each section's columns are in a module of their own.

mod alloc;
mod common;
mod cpu;
mod flow;
mod icount;
mod io;
mod locks;
mod service;
mod stacks;
mod threads;
mod timing;

pub use alloc::{alloc, alloc_rows, alloc_unattributed, AllocRow};
pub use common::{function_name, percentile_title, Align, Cell, Column, Columns, Key, Show};
pub use cpu::{cpu, cpu_exact, cpu_rows, cpu_unattributed, CpuRow};
pub use flow::{
    channel_kind, channel_rows, channels, future_rows, futures, stream_rows, streams, ChannelRow,
    FutureRow, StreamRow,
};
pub use icount::{icount, icount_rows, IcountRow};
pub use io::{
    io_directions, io_errors, io_function_rows, io_functions, io_overview, io_reads, io_reads_any,
    io_rows, io_writes, io_writes_any, DirectionRow, IoFunctionRow, IoRow,
};
pub use locks::{
    any_sampled, debug, holder_rows, holders, mutex_rows, mutexes, rw_lock_rows, rw_locks, waits,
    waits_rows, HolderRow, RwLockRow, WaitsRow, SAMPLED_LEGEND, SAMPLED_MARK,
};
pub use service::{http, server, sql, sql_rows, tokio, tokio_rows, TokioRow};
pub use stacks::{stack_name, stack_rows, stacks, StackRow};
pub use threads::threads;
pub use timing::{overlapped, share_of_run, timing};
