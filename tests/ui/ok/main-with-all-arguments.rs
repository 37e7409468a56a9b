#[hotpath::measure]
fn work(n: u64) -> u64 {
    (1..=n).sum()
}

// `format = "none"`: no report is printed and `output_path` is never written.
#[hotpath::main(
    percentiles = [50, 95, 99.9],
    format = "none",
    limit = 5,
    functions_limit = 4,
    threads_limit = 3,
    io_limit = 2,
    output_path = "hotpath-ui-report-never-written.json",
    timeout = 60_000,
    allocator = std::alloc::System,
    report = "timing",
    channels_limit = 1,
    streams_limit = 1,
    futures_limit = 1,
    rw_locks_limit = 1,
    mutexes_limit = 1,
)]
fn main() {
    assert_eq!(work(10), 55);
    assert_eq!(work(100), 5050);
}
