use std::time::{Duration, Instant};

fn thread_cpu() -> Duration {
    let mut ts = libc_timespec();
    unsafe { clock_gettime(3, &mut ts) };
    Duration::new(ts.0 as u64, ts.1 as u32)
}
#[repr(C)]
struct Ts(i64, i64);
fn libc_timespec() -> Ts {
    Ts(0, 0)
}
extern "C" {
    fn clock_gettime(clk: i32, ts: *mut Ts) -> i32;
}

#[hotpath::measure]
fn spin_then_sleep() {
    let c0 = thread_cpu();
    while thread_cpu() - c0 < Duration::from_millis(100) {}
    std::thread::sleep(Duration::from_millis(100));
}

#[hotpath::measure]
fn compute() -> u64 {
    let t = Instant::now();
    let mut x = 0u64;
    while t.elapsed() < Duration::from_millis(200) {
        x = std::hint::black_box(x + 1);
    }
    x
}

#[hotpath::main]
fn main() {
    for _ in 0..5 {
        spin_then_sleep();
    }
    std::thread::spawn(compute).join().unwrap();
}
