//! `flow_memory N`: N messages through one `channel!` (send, then receive, on one
//! thread), then prints the peak resident memory (`peak_kib=`) on stderr. Memory must
//! not grow with N.

fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

#[hotpath::main]
fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let (tx, rx) = hotpath::channel!(std::sync::mpsc::sync_channel::<u64>(1024), label = "mem");
    let mut acc = 0u64;
    for i in 0..n {
        tx.send(i).unwrap();
        acc = acc.wrapping_add(rx.recv().unwrap());
    }
    std::hint::black_box(acc);
    eprintln!("peak_kib={}", peak_kib());
}
