fn main() {
    let _ = hotpath::stream!(futures_util::stream::iter(0..3u8), capacity = 3);
}
