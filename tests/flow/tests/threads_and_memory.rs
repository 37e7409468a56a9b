//! No thread per channel, stream or future, and memory that does not grow with messages.
#![cfg(all(feature = "hotpath", target_os = "linux"))]

use std::process::Command;

use futures_util::{FutureExt, StreamExt};

fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}

#[test]
fn a_thousand_channels_streams_and_futures_start_no_thread() {
    let _g = hotpath::HotpathGuardBuilder::new("threads_test")
        .format(hotpath::Format::None)
        .report("timing,channels,streams,futures")
        .build();
    let before = threads();
    let mut keep = Vec::new();
    for i in 0..1000u64 {
        let (tx, rx) = hotpath::channel!(std::sync::mpsc::channel::<u64>());
        tx.send(i).unwrap();
        assert_eq!(rx.recv().unwrap(), i);
        let (ctx, crx) = hotpath::channel!(crossbeam_channel::bounded::<u64>(1));
        ctx.send(i).unwrap();
        let (ttx, mut trx) = hotpath::channel!(tokio::sync::mpsc::unbounded_channel::<u64>());
        ttx.send(i).unwrap();
        assert_eq!(trx.try_recv().unwrap(), i);
        let n = hotpath::stream!(futures_util::stream::iter(0..3u8))
            .count()
            .now_or_never()
            .unwrap();
        assert_eq!(n, 3);
        assert_eq!(hotpath::future!(async move { i }).now_or_never(), Some(i));
        keep.push((tx, rx, ctx, crx));
    }
    assert_eq!(threads(), before);
}

fn peak_kib(n: u64) -> u64 {
    let out = Command::new(env!("CARGO_BIN_EXE_flow_memory"))
        .arg(n.to_string())
        .env("HOTPATH_OUTPUT_FORMAT", "none")
        .env("HOTPATH_METRICS_SERVER_OFF", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{stderr}");
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("peak_kib="))
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn ten_million_messages_peak_within_one_mib_of_one_million() {
    let small = peak_kib(1_000_000);
    let large = peak_kib(10_000_000);
    assert!(
        large <= small + 1024,
        "peak {large} KiB after 10 M messages, {small} KiB after 1 M"
    );
}
