#[hotpath::measure]
fn leaf(x: u64) -> Vec<u8> {
    vec![x as u8; 100]
}

#[hotpath::measure]
fn parent(x: u64) -> usize {
    let a = leaf(x);
    let b = leaf(x + 1);
    let s = String::from("hello");
    a.len() + b.len() + s.len()
}

#[hotpath::measure]
fn fib(n: u64) -> Vec<u64> {
    let mut v = vec![n];
    if n >= 2 {
        v.extend(fib(n - 1));
        v.extend(fib(n - 2));
    }
    v
}

#[hotpath::measure]
async fn sleepy(ms: u64) -> usize {
    let v = vec![1u8; 1000];
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    let w = vec![2u8; 500];
    v.len() + w.len()
}

#[tokio::main]
#[hotpath::main(percentiles = [50, 99])]
async fn main() {
    let mut acc = 0;
    for i in 0..1000 {
        acc += parent(i);
    }
    acc += fib(10).len();
    let hs: Vec<_> = (0..4).map(|i| tokio::spawn(sleepy(5 + i))).collect();
    for h in hs {
        acc += h.await.unwrap();
    }
    let outside = vec![0u8; 12345];
    std::thread::spawn(|| {
        let v = vec![0u8; 4096];
        v.len()
    })
    .join()
    .unwrap();
    println!("{acc} {}", outside.len());
}
