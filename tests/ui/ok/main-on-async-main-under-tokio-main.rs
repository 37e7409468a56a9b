#[hotpath::measure]
async fn fetch(x: u32) -> u32 {
    tokio::task::yield_now().await;
    x + 1
}

#[tokio::main]
#[hotpath::main(format = "none", percentiles = [99])]
async fn main() {
    let a = tokio::spawn(fetch(1));
    let b = fetch(2).await;
    assert_eq!(a.await.unwrap() + b, 5);
}
