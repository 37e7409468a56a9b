use futures_util::{FutureExt, StreamExt};

#[hotpath::future_fn]
async fn fetch() -> u8 {
    1
}

#[hotpath::future_fn(log = true)]
async fn fetch_logged() -> u8 {
    2
}

#[hotpath::measure(future = true, label = "both")]
async fn both() -> u8 {
    3
}

fn main() {
    let s: hotpath::wrap::Stream<futures_util::stream::Iter<std::ops::Range<u8>>> =
        hotpath::stream!(futures_util::stream::iter(0..3u8));
    let v: Vec<u8> = s.collect().now_or_never().unwrap();
    assert_eq!(v, [0, 1, 2]);
    let n = hotpath::stream!(futures_util::stream::iter(0..3u8), label = "s", log = true, iter = true)
        .count()
        .now_or_never()
        .unwrap();
    assert_eq!(n, 3);

    let f: hotpath::wrap::Future<std::future::Ready<u8>> = hotpath::future!(std::future::ready(4));
    assert_eq!(f.now_or_never(), Some(4));
    let x = hotpath::future!(async { 5 }, log = true, label = "five").now_or_never();
    assert_eq!(x, Some(5));
    assert_eq!(fetch().now_or_never(), Some(1));
    assert_eq!(fetch_logged().now_or_never(), Some(2));
    assert_eq!(both().now_or_never(), Some(3));
}
