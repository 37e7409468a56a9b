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
pub(crate) struct PerfAttr {
    pub(crate) type_: u32,
    pub(crate) size: u32,
    pub(crate) config: u64,
    pub(crate) sample_period: u64,
    pub(crate) sample_type: u64,
    pub(crate) read_format: u64,
    pub(crate) flags: u64,
    pub(crate) wakeup_events: u32,
    pub(crate) bp_type: u32,
    pub(crate) config1: u64,
    pub(crate) config2: u64,
    pub(crate) branch_sample_type: u64,
    pub(crate) sample_regs_user: u64,
    pub(crate) sample_stack_user: u32,
    pub(crate) clockid: i32,
    pub(crate) sample_regs_intr: u64,
    pub(crate) aux_watermark: u32,
    pub(crate) sample_max_stack: u16,
    pub(crate) reserved: u16,
}

const PERF_TYPE_HARDWARE: u32 = 0;
pub(crate) const PERF_TYPE_SOFTWARE: u32 = 1;
const PERF_COUNT_HW_CPU_CYCLES: u64 = 0;
const PERF_COUNT_HW_INSTRUCTIONS: u64 = 1;
pub(crate) const PERF_COUNT_SW_TASK_CLOCK: u64 = 1;
pub(crate) const FLAG_DISABLED: u64 = 1 << 0;
pub(crate) const FLAG_EXCLUDE_KERNEL: u64 = 1 << 5;
pub(crate) const FLAG_EXCLUDE_HV: u64 = 1 << 6;
const PERF_FORMAT_GROUP: u64 = 1 << 3;
const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 8;
pub(crate) const IOC_DISABLE: libc::c_ulong = 0x2401;
pub(crate) const IOC_REFRESH: libc::c_ulong = 0x2402;
pub(crate) const IOC_RESET: libc::c_ulong = 0x2403;

static SIMULATE_DENIED: AtomicBool = AtomicBool::new(false);
static SIMULATE_NO_PMU: AtomicBool = AtomicBool::new(false);

pub(crate) fn simulate_failures(perf_denied: bool, no_pmu: bool) {
    SIMULATE_DENIED.store(perf_denied, Relaxed);
    SIMULATE_NO_PMU.store(no_pmu, Relaxed);
}

fn paranoid() -> Option<i32> {
    parse_paranoid(&std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid").ok()?)
}

/// The level in the text of `/proc/sys/kernel/perf_event_paranoid` (`"2\n"`).
fn parse_paranoid(text: &str) -> Option<i32> {
    text.trim().parse().ok()
}

/// What a failed `perf_event_open` means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refusal {
    /// Refused while counting kernel mode too: try again without it (a paranoia level
    /// of 2 allows user-space counting only).
    RetryUserOnly,
    /// Refused even so: [`CpuError::Denied`].
    Denied,
    /// A hardware event the machine does not have: [`CpuError::NoPmu`].
    NoPmu,
    /// Anything else: [`CpuError::Os`].
    Os,
}

/// What the error `errno` of an open with attribute flags `flags` means.
fn refusal(errno: Option<i32>, flags: u64, hardware: bool) -> Refusal {
    match errno {
        Some(libc::EACCES) | Some(libc::EPERM) if flags & FLAG_EXCLUDE_KERNEL == 0 => {
            Refusal::RetryUserOnly
        }
        Some(libc::EACCES) | Some(libc::EPERM) => Refusal::Denied,
        Some(libc::ENOENT) | Some(libc::ENODEV) | Some(libc::EOPNOTSUPP) if hardware => {
            Refusal::NoPmu
        }
        _ => Refusal::Os,
    }
}

/// Opens a perf event for the calling thread on any CPU; retries without kernel samples
/// when the paranoia level refuses them.
pub(crate) fn perf_open(
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
    // At most two attempts: a retry excludes kernel mode, which is never retried.
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
        match refusal(e.raw_os_error(), attr.flags, hardware) {
            Refusal::RetryUserOnly => attr.flags |= FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV,
            Refusal::Denied => {
                return Err(CpuError::Denied {
                    paranoid: paranoid(),
                    source: e,
                })
            }
            Refusal::NoPmu => return Err(CpuError::NoPmu(e)),
            Refusal::Os => {
                return Err(CpuError::Os {
                    what: "perf_event_open",
                    source: e,
                })
            }
        }
    }
}

/// Closes a descriptor this module opened.
pub(crate) fn close(fd: libc::c_int) {
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

/// A counting (not sampling) task-clock event.
fn task_clock_attr() -> PerfAttr {
    PerfAttr {
        type_: PERF_TYPE_SOFTWARE,
        config: PERF_COUNT_SW_TASK_CLOCK,
        ..Default::default()
    }
}

/// A counting (not sampling) task-clock event for the calling thread.
pub(crate) fn task_clock_fd() -> Result<libc::c_int, CpuError> {
    perf_open(&mut task_clock_attr(), -1, false)
}

/// The CPU time a task-clock event counted, ns (0 if it cannot be read).
pub(crate) fn read_task_clock(fd: libc::c_int) -> u64 {
    read_u64s::<1>(fd)[0]
}

/// Hardware event `config` as a member of a group read as a whole, user space only.
fn hw_attr(config: u64) -> PerfAttr {
    PerfAttr {
        type_: PERF_TYPE_HARDWARE,
        config,
        read_format: PERF_FORMAT_GROUP,
        flags: FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV,
        ..Default::default()
    }
}

/// A hardware group for the calling thread: (cycles leader, instructions member).
pub(crate) fn hw_fds() -> Result<(libc::c_int, libc::c_int), CpuError> {
    let leader = perf_open(&mut hw_attr(PERF_COUNT_HW_CPU_CYCLES), -1, true)?;
    match perf_open(&mut hw_attr(PERF_COUNT_HW_INSTRUCTIONS), leader, true) {
        Ok(member) => Ok((leader, member)),
        Err(e) => {
            close(leader);
            Err(e)
        }
    }
}

/// (instructions, cycles) of the group [`hw_fds`] opened, read through its leader;
/// (0, 0) if it cannot be read.
pub(crate) fn read_hw(leader: libc::c_int) -> (u64, u64) {
    decode_hw_group(read_u64s::<3>(leader))
}

/// (instructions, cycles) from a `PERF_FORMAT_GROUP` read of the group: the number of
/// events, then each one's value in the order they joined (cycles, the leader, first);
/// (0, 0) unless it holds both.
fn decode_hw_group([n, cycles, instructions]: [u64; 3]) -> (u64, u64) {
    if n != 2 {
        return (0, 0);
    }
    (instructions, cycles)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn the_attribute_struct_has_the_kernels_ver5_layout() {
        // include/uapi/linux/perf_event.h, PERF_ATTR_SIZE_VER5; the bit fields are the
        // one u64 at 40.
        assert_eq!(size_of::<PerfAttr>(), 112);
        let offsets = [
            (offset_of!(PerfAttr, type_), 0),
            (offset_of!(PerfAttr, size), 4),
            (offset_of!(PerfAttr, config), 8),
            (offset_of!(PerfAttr, sample_period), 16),
            (offset_of!(PerfAttr, sample_type), 24),
            (offset_of!(PerfAttr, read_format), 32),
            (offset_of!(PerfAttr, flags), 40),
            (offset_of!(PerfAttr, wakeup_events), 48),
            (offset_of!(PerfAttr, bp_type), 52),
            (offset_of!(PerfAttr, config1), 56),
            (offset_of!(PerfAttr, config2), 64),
            (offset_of!(PerfAttr, branch_sample_type), 72),
            (offset_of!(PerfAttr, sample_regs_user), 80),
            (offset_of!(PerfAttr, sample_stack_user), 88),
            (offset_of!(PerfAttr, clockid), 92),
            (offset_of!(PerfAttr, sample_regs_intr), 96),
            (offset_of!(PerfAttr, aux_watermark), 104),
            (offset_of!(PerfAttr, sample_max_stack), 108),
            (offset_of!(PerfAttr, reserved), 110),
        ];
        for (i, (got, want)) in offsets.into_iter().enumerate() {
            assert_eq!(got, want, "field {i}");
        }
    }

    #[test]
    fn the_task_clock_counter_counts_software_task_clock_with_every_flag_clear() {
        let a = task_clock_attr();
        // PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK.
        assert_eq!((a.type_, a.config), (1, 1));
        // Counting, enabled at once, kernel mode included (perf_open drops it if refused).
        assert_eq!((a.sample_period, a.read_format, a.flags), (0, 0, 0));
        assert_eq!(a.size, 0, "perf_open sets the size");
    }

    #[test]
    fn hardware_events_are_a_user_space_group_read_as_a_whole() {
        // PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES and _INSTRUCTIONS.
        let cycles = hw_attr(PERF_COUNT_HW_CPU_CYCLES);
        let instructions = hw_attr(PERF_COUNT_HW_INSTRUCTIONS);
        assert_eq!((cycles.type_, cycles.config), (0, 0));
        assert_eq!((instructions.type_, instructions.config), (0, 1));
        for a in [cycles, instructions] {
            // PERF_FORMAT_GROUP; exclude_kernel (bit 5) and exclude_hv (bit 6), enabled.
            assert_eq!(a.read_format, 0b1000);
            assert_eq!(a.flags, 0b110_0000);
            assert_eq!(a.sample_period, 0);
        }
    }

    #[test]
    fn a_refusal_counting_the_kernel_is_retried_in_user_space_only_once() {
        let user_only = FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV;
        for errno in [libc::EACCES, libc::EPERM] {
            for hardware in [false, true] {
                assert_eq!(
                    refusal(Some(errno), 0, hardware),
                    Refusal::RetryUserOnly,
                    "{errno}"
                );
                assert_eq!(
                    refusal(Some(errno), FLAG_DISABLED, hardware),
                    Refusal::RetryUserOnly
                );
                assert_eq!(refusal(Some(errno), user_only, hardware), Refusal::Denied);
                assert_eq!(
                    refusal(Some(errno), FLAG_EXCLUDE_KERNEL, hardware),
                    Refusal::Denied
                );
            }
        }
    }

    #[test]
    fn a_missing_event_means_no_pmu_only_for_hardware_events() {
        for errno in [libc::ENOENT, libc::ENODEV, libc::EOPNOTSUPP] {
            assert_eq!(refusal(Some(errno), 0, true), Refusal::NoPmu, "{errno}");
            assert_eq!(refusal(Some(errno), 0, false), Refusal::Os, "{errno}");
        }
        for errno in [
            Some(libc::EINVAL),
            Some(libc::EMFILE),
            Some(libc::E2BIG),
            None,
        ] {
            assert_eq!(refusal(errno, 0, true), Refusal::Os, "{errno:?}");
            assert_eq!(refusal(errno, 0, false), Refusal::Os, "{errno:?}");
        }
    }

    #[test]
    fn the_paranoia_level_is_read_from_the_procfs_text() {
        assert_eq!(parse_paranoid("2\n"), Some(2));
        assert_eq!(parse_paranoid("-1\n"), Some(-1));
        assert_eq!(parse_paranoid("4"), Some(4));
        assert_eq!(parse_paranoid(""), None);
        assert_eq!(parse_paranoid("two\n"), None);
    }

    #[test]
    fn a_group_read_gives_instructions_and_cycles_only_when_both_are_in_it() {
        assert_eq!(decode_hw_group([2, 3_000, 7_000]), (7_000, 3_000));
        assert_eq!(decode_hw_group([0, 0, 0]), (0, 0));
        assert_eq!(decode_hw_group([1, 3_000, 7_000]), (0, 0));
        assert_eq!(decode_hw_group([3, 3_000, 7_000]), (0, 0));
    }

    /// A pipe holding `bytes`, its write end closed.
    fn pipe_with(bytes: &[u8]) -> libc::c_int {
        let mut fds = [0; 2];
        // SAFETY: `fds` is writable for the two descriptors pipe returns.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: `bytes` is readable for its length; the pipe's buffer holds it.
        let n = unsafe { libc::write(fds[1], bytes.as_ptr().cast(), bytes.len()) };
        assert_eq!(n, bytes.len() as isize);
        close(fds[1]);
        fds[0]
    }

    #[test]
    fn a_counter_is_read_whole_or_as_zeros() {
        let fd = pipe_with(&123_456_789u64.to_ne_bytes());
        assert_eq!(read_task_clock(fd), 123_456_789);
        // Nothing left to read (end of file): zero.
        assert_eq!(read_task_clock(fd), 0);
        close(fd);

        let group: Vec<u8> = [2u64, 11, 13]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        let fd = pipe_with(&group);
        assert_eq!(read_hw(fd), (13, 11));
        close(fd);

        // A short read (two of the three values) is no reading.
        let fd = pipe_with(&group[..16]);
        assert_eq!(read_hw(fd), (0, 0));
        close(fd);
    }
}
