//! A long-running program to watch while it runs: the metrics server, `/metrics` for
//! Prometheus, `hotpath console`, and the MCP server for AI agents.
//!
//! ```text
//! HOTPATH_METRICS_PORT=6770 HOTPATH_MCP_PORT=6771 cargo run --release --example live_server --all-features
//! curl -s localhost:6770/report | head -c 300           # in another terminal
//! cargo run --release -p hotpath-cli -- console --port 6770
//! claude mcp add --transport http hotpath http://127.0.0.1:6771/mcp   # docs/mcp.md
//! ```
//!
//! Two worker threads take jobs from a queue. Each job parses a generated record,
//! sorts and hashes it (CPU), keeps some of it (memory), appends a line to a log file
//! through `io!` (I/O), and sometimes waits on a simulated downstream call. The program
//! runs for `--seconds S` (default 60; 0: until killed) or until `--jobs N` jobs are
//! done, then prints a checksum of everything the jobs computed, which depends only on
//! the number of jobs, and the report.

use std::io::{BufWriter, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Deterministic pseudo-random numbers.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// A record of job `id`: a few hundred comma-separated numbers.
#[hotpath::measure]
fn generate(id: u64) -> String {
    let n = 200 + mix(id) % 200;
    let mut s = String::with_capacity(n as usize * 8);
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&(mix(id ^ (i << 20)) % 1_000_000).to_string());
    }
    s
}

#[hotpath::measure]
fn parse(record: &str) -> Vec<u64> {
    record.split(',').filter_map(|v| v.parse().ok()).collect()
}

#[hotpath::measure]
fn summarize(mut values: Vec<u64>) -> (u64, u64) {
    values.sort_unstable();
    let median = values[values.len() / 2];
    let hash = values.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, v| {
        (h ^ v).wrapping_mul(0x100_0000_01b3)
    });
    (median, hash)
}

/// Every 8th job waits on a "downstream service".
#[hotpath::measure]
fn downstream(id: u64) {
    if id.is_multiple_of(8) {
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[hotpath::measure]
fn handle_job(id: u64, log: &mut impl Write, kept: &mut Vec<u64>) -> u64 {
    let record = generate(id);
    let values = parse(&record);
    let (median, hash) = summarize(values);
    downstream(id);
    kept.push(median);
    if kept.len() > 4096 {
        kept.drain(..2048);
    }
    let _ = writeln!(log, "{id} {median} {hash:016x}");
    hash ^ median
}

type Jobs = std::sync::Arc<std::sync::Mutex<mpsc::Receiver<u64>>>;

fn worker(jobs: Jobs, done: mpsc::Sender<u64>, path: std::path::PathBuf) {
    let file = hotpath::io!(
        std::fs::File::create(&path).expect("create the job log"),
        label = "job log file"
    );
    let mut log = hotpath::io!(BufWriter::new(file), label = "job log");
    let mut kept = Vec::new();
    loop {
        let next = jobs.lock().map(|rx| rx.recv());
        let Ok(Ok(id)) = next else { break };
        let r = handle_job(id, &mut log, &mut kept);
        if done.send(r).is_err() {
            break;
        }
    }
    let _ = log.flush();
    let _ = std::fs::remove_file(&path);
}

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[hotpath::main(percentiles = [50, 95, 99])]
fn main() {
    let seconds = arg("--seconds", 60);
    let max_jobs = arg("--jobs", 0);
    let (job_tx, job_rx) = mpsc::channel::<u64>();
    let (done_tx, done_rx) = mpsc::channel::<u64>();
    let job_rx = std::sync::Arc::new(std::sync::Mutex::new(job_rx));
    let workers: Vec<_> = (0..2)
        .map(|w| {
            let (rx, tx) = (job_rx.clone(), done_tx.clone());
            let path =
                std::env::temp_dir().join(format!("hotpath-live-{}-{w}.log", std::process::id()));
            std::thread::Builder::new()
                .name(format!("worker-{w}"))
                .spawn(move || worker(rx, tx, path))
                .expect("spawn a worker")
        })
        .collect();
    drop(done_tx);

    let start = Instant::now();
    let deadline = (seconds > 0).then(|| start + Duration::from_secs(seconds));
    let (mut sent, mut received, mut checksum) = (0u64, 0u64, 0u64);
    loop {
        let more =
            (max_jobs == 0 || sent < max_jobs) && deadline.is_none_or(|d| Instant::now() < d);
        // Keep a few jobs in flight.
        while more && sent - received < 16 && (max_jobs == 0 || sent < max_jobs) {
            job_tx.send(sent).expect("workers are running");
            sent += 1;
        }
        if !more && received == sent {
            break;
        }
        match done_rx.recv_timeout(Duration::from_millis(100)) {
            Ok(r) => {
                checksum = checksum.wrapping_add(r);
                received += 1;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    drop(job_tx);
    for w in workers {
        let _ = w.join();
    }
    println!("jobs: {received}");
    println!("checksum: {checksum:016x}");
}
