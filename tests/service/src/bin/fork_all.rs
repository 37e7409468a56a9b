//! `fork_all`: `fork()` while another thread holds each registry lock of the profiler.
//!
//! Every kind of registry is put in use first: measured functions (sync and async),
//! allocations, `io!`, `channel!`, `stream!`, `future!`, `mutex!` and a `hotpath::wrap`
//! lock, a `tracing` span, SQL (sqlx on a SQLite file), HTTP (an axum server and a reqwest client on
//! loopback), `tokio_runtime!`, `val!`/`gauge!`, and, as the test's environment asks,
//! stacks, the trace, the metrics server and CPU sampling. Then, for
//! each rank the registries registered with `hotpath_core::fork` (listed, not known
//! here), a helper thread takes that registry's locks as the fork handler does and keeps
//! them 100 ms while the main thread forks: the handler waits for them, so the child
//! starts with every lock free. The child uses every registry again (a new thread's
//! shard, a new lock site, channel, `io!` row and value), writes its own report
//! (`HOTPATH_REPORT_FORKS=1`) and exits 0; the parent waits at most 20 s per child.
//!
//! Prints on stderr `ranks=R missing=[..] forks=F hung=H failed=X`: the registered
//! ranks, the ranks no registry registered, children that hung and children that
//! failed.
//!
//! `fork_all report`: every registry in use, and no fork: a report with a part in every
//! section (`tests/sections.rs` walks each consumer through it).
//!
//! `fork_all icount`: measured synchronous calls only, for a run under `valgrind
//! --tool=callgrind` (feature `callgrind`): the `icount` section's rows, which a run that
//! times anything cannot have.
use std::io::Write as _;
use std::time::Duration;

use hotpath_core::fork::{self, Rank};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

static COUNT: hotpath::wrap::std::sync::Mutex<u64> =
    hotpath::mutex!(std::sync::Mutex::new(0), label = "count");

#[hotpath::measure]
fn work(x: u64) -> u64 {
    std::hint::black_box((0..1000).fold(x, |a, b| a.wrapping_mul(31) ^ b))
}

#[hotpath::measure]
async fn users(axum::extract::Path(id): axum::extract::Path<u32>) -> String {
    format!("user {id}")
}

/// Every registry in use once.
#[hotpath::measure]
async fn use_everything(dir: &std::path::Path) {
    std::hint::black_box(work(1));
    tracing::info_span!("span").in_scope(|| std::hint::black_box(work(2)));
    *COUNT.lock().unwrap() += 1;
    let by_location = hotpath::wrap::std::sync::Mutex::new(0u8);
    *by_location.lock().unwrap() += 1;
    let table = hotpath::rw_lock!(std::sync::RwLock::new(1u8), label = "table");
    assert_eq!(*table.read().unwrap(), 1);
    *table.write().unwrap() += 1;
    let mut sink = hotpath::io!(std::io::sink(), label = "sink");
    sink.write_all(b"0123456789").unwrap();
    // A label given at run time: the labels' registry.
    let mut named = hotpath::io!(std::io::sink(), label = format!("sink {}", 2));
    named.write_all(b"0").unwrap();
    let (tx, rx) = hotpath::channel!(std::sync::mpsc::channel::<u64>(), label = "numbers");
    tx.send(1).unwrap();
    assert_eq!(rx.recv().unwrap(), 1);
    use futures_util::StreamExt as _;
    let items: Vec<u8> = hotpath::stream!(futures_util::stream::iter(0..3u8), label = "items")
        .collect()
        .await;
    assert_eq!(items, [0, 1, 2]);
    assert_eq!(hotpath::future!(async { 7 }, label = "seven").await, 7);
    hotpath::val!("phase").set(&"parent");
    hotpath::gauge!("level").set(1.0);

    let db = sqlx::sqlite::SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(
            sqlx::sqlite::SqliteConnectOptions::new()
                .filename(dir.join("fork.db"))
                .create_if_missing(true),
        )
        .await
        .unwrap();
    sqlx::query("CREATE TABLE t (a INTEGER)")
        .execute(&db)
        .await
        .unwrap();
    sqlx::query("INSERT INTO t (a) VALUES (1)")
        .execute(&db)
        .await
        .unwrap();
    db.close().await;

    let app = hotpath::axum!(axum::Router::new().route("/users/{id}", axum::routing::get(users)));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let client = hotpath::http!(reqwest_013::Client::new());
    let r = client.get(format!("{base}/users/3")).send().await.unwrap();
    assert_eq!(r.text().await.unwrap(), "user 3");
}

#[hotpath::measure]
fn child_work(x: u64) -> u64 {
    work(x) ^ 1
}

/// In the child: every registry again, then its report and exit 0.
fn child(i: usize) -> ! {
    let t = std::thread::spawn(move || child_work(i as u64));
    std::hint::black_box(t.join().unwrap());
    *COUNT.lock().unwrap() += 1;
    let m = hotpath::mutex!(std::sync::Mutex::new(0u8), label = "child lock");
    *m.lock().unwrap() += 1;
    let (tx, rx) = hotpath::channel!(std::sync::mpsc::channel::<usize>(), label = "child");
    tx.send(i).unwrap();
    assert_eq!(rx.recv().unwrap(), i);
    let mut sink = hotpath::io!(std::io::sink(), label = "child sink");
    sink.write_all(b"x").unwrap();
    hotpath::val!("phase").set(&"child");
    // A span callsite first seen here: the tracing layer's table written in the child.
    tracing::info_span!("child span").in_scope(|| std::hint::black_box(work(3)));
    // Ends the session in the child: its report (HOTPATH_REPORT_FORKS=1) reads every
    // registry.
    std::process::exit(0)
}

/// Waits for `pid` up to `deadline`: `Some(status)`, or `None` (killed: it hung).
fn wait_bounded(pid: libc::pid_t, deadline: Duration) -> Option<libc::c_int> {
    let start = std::time::Instant::now();
    loop {
        let mut status = 0;
        // SAFETY: `status` is a valid out-pointer; `pid` is our child.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if r == pid {
            return Some(status);
        }
        if start.elapsed() > deadline {
            // SAFETY: killing and reaping our own child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            return None;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[hotpath::main]
fn main() {
    if std::env::args().nth(1).as_deref() == Some("icount") {
        std::hint::black_box(work(1));
        std::hint::black_box(work(2));
        return;
    }
    tracing_subscriber::registry()
        .with(hotpath::sqlx_tracing_layer())
        .with(hotpath::tracing::layer())
        .init();
    let dir = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        hotpath::tokio_runtime!();
        use_everything(dir.path()).await;
    });
    if std::env::args().nth(1).as_deref() == Some("report") {
        drop(rt);
        return;
    }
    let ranks = fork::registered_ranks();
    let missing: Vec<Rank> = Rank::ALL
        .into_iter()
        .filter(|r| !ranks.contains(r))
        .collect();
    let (mut hung, mut failed) = (0, 0);
    for (i, &rank) in ranks.iter().enumerate() {
        let taken = std::sync::Arc::new(std::sync::Barrier::new(2));
        let t = taken.clone();
        let holder = std::thread::spawn(move || {
            // The thread's shard, allocation counters and CPU sampler first: taking them
            // needs registry locks this thread is about to hold.
            std::hint::black_box(work(i as u64));
            let held = fork::hold(rank);
            t.wait();
            std::thread::sleep(Duration::from_millis(100));
            if held {
                fork::unhold(rank);
            }
            held
        });
        taken.wait();
        // SAFETY: fork has no preconditions; the child runs only this program's code.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            child(i);
        }
        assert!(holder.join().unwrap(), "{rank:?} held");
        match wait_bounded(pid, Duration::from_secs(20)) {
            None => {
                hung += 1;
                eprintln!("hung: {rank:?}");
            }
            Some(s) if !(libc::WIFEXITED(s) && libc::WEXITSTATUS(s) == 0) => {
                failed += 1;
                eprintln!("failed: {rank:?} status {s}");
            }
            Some(_) => {}
        }
    }
    eprintln!(
        "ranks={} missing={missing:?} forks={} hung={hung} failed={failed}",
        ranks.len(),
        ranks.len()
    );
    drop(rt);
}
