//! Valgrind client requests: the "magic" instruction sequence of `valgrind.h`, which
//! does nothing on a real CPU and which valgrind's JIT recognises and answers.
//!
//! Only x86_64 is implemented; elsewhere every request returns its default, as on a real
//! CPU (the `icount` section then says valgrind was not detected).

/// `VG_USERREQ__RUNNING_ON_VALGRIND` (`valgrind.h`).
const RUNNING_ON_VALGRIND: u64 = 0x1001;
/// `VG_USERREQ_TOOL_BASE('C', 'T')` (`callgrind.h`).
const CALLGRIND_BASE: u64 = ((b'C' as u64) << 24) | ((b'T' as u64) << 16);
/// `CALLGRIND_ZERO_STATS`.
const ZERO_STATS: u64 = CALLGRIND_BASE + 1;
/// `CALLGRIND_TOGGLE_COLLECT`.
const TOGGLE_COLLECT: u64 = CALLGRIND_BASE + 2;
/// `CALLGRIND_DUMP_STATS_AT(pos_str)`.
const DUMP_STATS_AT: u64 = CALLGRIND_BASE + 3;

/// One client request: `default` on a real CPU, valgrind's answer under it.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn request(default: u64, args: &[u64; 6]) -> u64 {
    let mut result = default;
    // SAFETY: the sequence is valgrind.h's `__SPECIAL_INSTRUCTION_PREAMBLE` and
    // `VALGRIND_DO_CLIENT_REQUEST_EXPR` for amd64. On a real CPU the four rotations of
    // `rdi` add up to 128 bits (it ends as it began; it is declared clobbered anyway) and
    // `xchg rbx, rbx` changes nothing, so the asm only clobbers the flags. Under valgrind
    // the JIT reads the request from the six words at `rax` (alive for the whole asm: a
    // borrow) and writes its answer to `rdx`. No stack is used.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") result,
            in("rax") args.as_ptr(),
            inout("rdi") 0u64 => _,
            options(nostack),
        );
    }
    result
}

#[cfg(not(target_arch = "x86_64"))]
fn request(default: u64, _: &[u64; 6]) -> u64 {
    default
}

/// How many valgrinds the process runs under (0 on a real CPU).
pub(super) fn running_on_valgrind() -> u64 {
    request(0, &[RUNNING_ON_VALGRIND, 0, 0, 0, 0, 0])
}

/// Drops what callgrind counted so far (ignored by valgrind's other tools).
pub(super) fn zero_stats() {
    request(0, &[ZERO_STATS, 0, 0, 0, 0, 0]);
}

/// Writes callgrind's counts since the last zeroing or dump to a new dump file whose
/// `desc: Trigger:` line names `tag`, and zeroes them; the file is complete when this
/// returns.
pub(super) fn dump_stats_at(tag: &std::ffi::CStr) {
    request(0, &[DUMP_STATS_AT, tag.as_ptr() as u64, 0, 0, 0, 0]);
}

/// Switches callgrind's counting on this thread off, or back on.
pub(super) fn toggle_collect() {
    request(0, &[TOGGLE_COLLECT, 0, 0, 0, 0, 0]);
}
