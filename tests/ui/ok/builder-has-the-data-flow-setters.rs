#[hotpath::main(channels_limit = 5, streams_limit = 6, futures_limit = 7, format = "none")]
fn main() {
    let g = hotpath::HotpathGuardBuilder::new("other")
        .channels_limit(1)
        .streams_limit(2)
        .futures_limit(3)
        .channels_time_sampling_rate(0.5)
        .streams_time_sampling_rate(0.25)
        .futures_time_sampling_rate(0.0)
        .format(hotpath::Format::None)
        .build();
    // A session is already running: the second guard is inert.
    assert!(!g.is_active());
}
