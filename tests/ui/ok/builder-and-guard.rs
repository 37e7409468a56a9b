use std::time::Duration;

#[hotpath::measure]
fn work() -> u32 {
    7
}

fn main() {
    let guard: hotpath::HotpathGuard = hotpath::HotpathGuardBuilder::new("ui::builder_and_guard")
        .percentiles(&[50.0, 95.0, 99.9])
        .format(hotpath::Format::None)
        .limit(5)
        .functions_limit(4)
        .threads_limit(3)
        .io_limit(2)
        .mutexes_limit(2)
        .rw_locks_limit(2)
        .mutexes_time_sampling_rate(1.0)
        .rw_locks_time_sampling_rate(0.5)
        .output_path(std::env::temp_dir().join("hotpath-ui-builder-never-written.json"))
        .timeout(Duration::from_secs(60))
        .time_sampling_rate(1.0)
        .functions_time_sampling_rate(1.0)
        .report("all")
        .build();
    assert_eq!(work(), 7);
    // True with the `hotpath` feature, false without it; both states compile the same.
    let _active: bool = guard.is_active();
    drop(guard);

    // A second, inert session after the first ended.
    let again = hotpath::HotpathGuardBuilder::new("ui::again")
        .format(hotpath::Format::None)
        .build();
    assert_eq!(work(), 7);
    drop(again);
}
