//! The perf_event ABI: the attribute struct, opening an event for the calling thread and
//! what a refusal means, reading a counter, and closing it.
//!
//! Every descriptor opened here belongs to the thread that opened it (pid 0: the calling
//! thread) and is closed by that thread.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use crate::CpuError;

/// `struct perf_event_attr` up to `PERF_ATTR_SIZE_VER5` (112 bytes), which every kernel
/// since 4.1 accepts.
#[repr(C)]
#[derive(Default)]
pub(super) struct PerfAttr {
    pub(super) type_: u32,
    pub(super) size: u32,
    pub(super) config: u64,
    pub(super) sample_period: u64,
    pub(super) sample_type: u64,
    pub(super) read_format: u64,
    pub(super) flags: u64,
    pub(super) wakeup_events: u32,
    pub(super) bp_type: u32,
    pub(super) config1: u64,
    pub(super) config2: u64,
    pub(super) branch_sample_type: u64,
    pub(super) sample_regs_user: u64,
    pub(super) sample_stack_user: u32,
    pub(super) clockid: i32,
    pub(super) sample_regs_intr: u64,
    pub(super) aux_watermark: u32,
    pub(super) sample_max_stack: u16,
    pub(super) reserved: u16,
}

const PERF_TYPE_HARDWARE: u32 = 0;
pub(super) const PERF_TYPE_SOFTWARE: u32 = 1;
const PERF_COUNT_HW_CPU_CYCLES: u64 = 0;
const PERF_COUNT_HW_INSTRUCTIONS: u64 = 1;
pub(super) const PERF_COUNT_SW_TASK_CLOCK: u64 = 1;
pub(super) const FLAG_DISABLED: u64 = 1 << 0;
pub(super) const FLAG_EXCLUDE_KERNEL: u64 = 1 << 5;
pub(super) const FLAG_EXCLUDE_HV: u64 = 1 << 6;
const PERF_FORMAT_GROUP: u64 = 1 << 3;
const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 8;
pub(super) const IOC_DISABLE: libc::c_ulong = 0x2401;
pub(super) const IOC_REFRESH: libc::c_ulong = 0x2402;
pub(super) const IOC_RESET: libc::c_ulong = 0x2403;

static SIMULATE_DENIED: AtomicBool = AtomicBool::new(false);
static SIMULATE_NO_PMU: AtomicBool = AtomicBool::new(false);

pub(crate) fn simulate_failures(perf_denied: bool, no_pmu: bool) {
    SIMULATE_DENIED.store(perf_denied, Relaxed);
    SIMULATE_NO_PMU.store(no_pmu, Relaxed);
}

fn paranoid() -> Option<i32> {
    std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Opens a perf event for the calling thread on any CPU; retries without kernel samples
/// when the paranoia level refuses them.
pub(super) fn perf_open(
    attr: &mut PerfAttr,
    group: libc::c_int,
    hardware: bool,
) -> Result<libc::c_int, CpuError> {
    if SIMULATE_DENIED.load(Relaxed) {
        let source = io::Error::from_raw_os_error(libc::EACCES);
        return Err(CpuError::Denied {
            paranoid: paranoid(),
            source,
        });
    }
    if hardware && SIMULATE_NO_PMU.load(Relaxed) {
        return Err(CpuError::NoPmu(io::Error::from_raw_os_error(libc::ENOENT)));
    }
    attr.size = std::mem::size_of::<PerfAttr>() as u32;
    let mut retried = false;
    loop {
        // SAFETY: `attr` is a valid `perf_event_attr` of the size it declares; pid 0 and
        // cpu -1 mean "the calling thread, on any CPU".
        let fd = unsafe {
            libc::syscall(
                libc::SYS_perf_event_open,
                attr as *const PerfAttr,
                0,
                -1,
                group,
                PERF_FLAG_FD_CLOEXEC,
            )
        } as libc::c_int;
        if fd >= 0 {
            return Ok(fd);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EACCES) | Some(libc::EPERM)
                if !retried && attr.flags & FLAG_EXCLUDE_KERNEL == 0 =>
            {
                attr.flags |= FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV;
                retried = true;
            }
            Some(libc::EACCES) | Some(libc::EPERM) => {
                return Err(CpuError::Denied {
                    paranoid: paranoid(),
                    source: e,
                })
            }
            Some(libc::ENOENT) | Some(libc::ENODEV) | Some(libc::EOPNOTSUPP) if hardware => {
                return Err(CpuError::NoPmu(e))
            }
            _ => {
                return Err(CpuError::Os {
                    what: "perf_event_open",
                    source: e,
                })
            }
        }
    }
}

/// Closes a descriptor this module opened.
pub(super) fn close(fd: libc::c_int) {
    // SAFETY: `fd` is a descriptor this module opened and still owns.
    unsafe { libc::close(fd) };
}

fn read_u64s<const N: usize>(fd: libc::c_int) -> [u64; N] {
    let mut buf = [0u64; N];
    // SAFETY: `buf` is writable for `8 * N` bytes.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), 8 * N) };
    if n != (8 * N) as isize {
        return [0; N];
    }
    buf
}

/// A counting (not sampling) task-clock event for the calling thread.
pub(super) fn task_clock_fd() -> Result<libc::c_int, CpuError> {
    let mut a = PerfAttr {
        type_: PERF_TYPE_SOFTWARE,
        config: PERF_COUNT_SW_TASK_CLOCK,
        ..Default::default()
    };
    perf_open(&mut a, -1, false)
}

/// The CPU time a task-clock event counted, ns (0 if it cannot be read).
pub(super) fn read_task_clock(fd: libc::c_int) -> u64 {
    read_u64s::<1>(fd)[0]
}

/// A hardware group for the calling thread: (cycles leader, instructions member).
pub(super) fn hw_fds() -> Result<(libc::c_int, libc::c_int), CpuError> {
    let flags = FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV;
    let mut cycles = PerfAttr {
        type_: PERF_TYPE_HARDWARE,
        config: PERF_COUNT_HW_CPU_CYCLES,
        read_format: PERF_FORMAT_GROUP,
        flags,
        ..Default::default()
    };
    let leader = perf_open(&mut cycles, -1, true)?;
    let mut instr = PerfAttr {
        type_: PERF_TYPE_HARDWARE,
        config: PERF_COUNT_HW_INSTRUCTIONS,
        read_format: PERF_FORMAT_GROUP,
        flags,
        ..Default::default()
    };
    match perf_open(&mut instr, leader, true) {
        Ok(member) => Ok((leader, member)),
        Err(e) => {
            close(leader);
            Err(e)
        }
    }
}

/// (instructions, cycles) of the group [`hw_fds`] opened, read through its leader;
/// (0, 0) if it cannot be read.
pub(super) fn read_hw(leader: libc::c_int) -> (u64, u64) {
    let [n, cycles, instructions] = read_u64s::<3>(leader);
    if n != 2 {
        return (0, 0);
    }
    (instructions, cycles)
}
