#[hotpath::measure]
fn leaf(x: u64) -> u64 {
    std::hint::black_box(x).wrapping_mul(31)
}

#[hotpath::measure]
fn parent(x: u64) -> u64 {
    leaf(x) + leaf(x + 1)
}

#[hotpath::measure]
fn fib(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

#[hotpath::measure]
async fn sleepy(ms: u64) -> u64 {
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    leaf(ms)
}

struct P;
#[hotpath::measure_all]
impl std::fmt::Display for P {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "P")
    }
}
#[hotpath::measure_all]
impl std::fmt::Debug for P {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "P")
    }
}

#[tokio::main]
#[hotpath::main(percentiles = [50, 99.9])]
async fn main() {
    let mut acc = 0;
    for i in 0..100_000 {
        acc += parent(i);
    }
    acc += fib(20);
    let hs: Vec<_> = (0..4).map(|i| tokio::spawn(sleepy(5 + i))).collect();
    for h in hs {
        acc += h.await.unwrap();
    }
    println!("{} {:?} {acc}", P, P);
    std::thread::spawn(|| {
        for i in 0..1000 {
            leaf(i);
        }
    })
    .join()
    .unwrap();
}
