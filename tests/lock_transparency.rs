//! The measured locks behave exactly like the raw ones: one seeded script of 10,000
//! operations (lock, try_lock, read, write, try_read, try_write, poison, clear_poison,
//! drop, into_inner), run by four threads taking turns, writes one line per result.
//! The log is the same with the `hotpath` feature off (the raw locks) and on (the
//! measured ones): each backend's log is committed as `tests/golden/lock_<name>.log`,
//! recorded from the feature-off build, and every feature state must reproduce it byte
//! for byte. A difference fails with a line diff of the log against the golden file.
//!
//! ```text
//! cargo test --test lock_transparency                                      # std, off
//! cargo test --test lock_transparency --features hotpath                   # std, on
//! cargo test --test lock_transparency --features parking_lot,tokio,async-lock
//! cargo test --test lock_transparency --all-features
//! HOTPATH_BLESS=1 cargo test --test lock_transparency --features parking_lot,tokio,async-lock
//! ```
//!
//! `HOTPATH_BLESS=1` writes the golden files from this run and still fails: record them
//! from the feature-off build only (the raw locks are the truth), review the change with
//! `git diff tests/golden`, then run again without it.
//!
//! The threads take turns (a raw `Mutex`/`Condvar` schedule), so every result is
//! determined by the script: a blocking acquisition is only made when the script's model
//! says the lock is free to the caller, and `try_` acquisitions meet held locks.

use std::sync::{Arc, Condvar, Mutex};

/// Threads taking turns.
const THREADS: usize = 4;
/// Operations in the script.
const OPS: usize = 10_000;

/// xorshift64*: the script's only source of choices.
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// What one step asks a thread to do.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// Blocking exclusive acquisition (the model says the lock is free).
    Lock,
    /// Exclusive attempt.
    TryLock,
    /// Blocking shared acquisition (rw-locks; the model says no writer holds).
    Read,
    /// Shared attempt.
    TryRead,
    /// Add to the data through the guard held.
    Add(u64),
    /// Release the guard held.
    Drop,
    /// Panic while holding the exclusive guard (std: poisons the lock).
    Poison,
    /// `is_poisoned`, then `clear_poison` (std).
    ClearPoison,
}

/// The script: (thread, op) per step, made from a model of the lock's state so that no
/// blocking acquisition ever waits for a thread that is waiting for its turn.
fn script(seed: u64, rw: bool, poison: bool) -> Vec<(usize, Op)> {
    let mut rng = Rng(seed);
    // Per thread: 0 nothing held, 1 shared, 2 exclusive.
    let mut held = [0u8; THREADS];
    let mut out = Vec::with_capacity(OPS);
    while out.len() < OPS {
        let t = rng.next(THREADS as u64) as usize;
        let writer = held.contains(&2);
        let readers = held.iter().filter(|h| **h == 1).count();
        let op = match held[t] {
            0 => match rng.next(5) {
                0 | 1 if !writer && readers == 0 => Op::Lock,
                0 | 1 => Op::TryLock,
                2 if rw && !writer => Op::Read,
                2 | 3 if rw => Op::TryRead,
                4 if poison => Op::ClearPoison,
                _ => Op::TryLock,
            },
            h => match rng.next(6) {
                0 | 1 if h == 2 => Op::Add(rng.next(100)),
                2 if h == 2 && poison => Op::Poison,
                3 => Op::TryLock,
                _ => Op::Drop,
            },
        };
        match op {
            Op::Lock => held[t] = 2,
            Op::Read => held[t] = 1,
            Op::Drop | Op::Poison => held[t] = 0,
            // A try may succeed: the runner reports whether it did and the model is
            // kept by replaying the same rule there (a successful try is dropped at once).
            _ => {}
        }
        out.push((t, op));
    }
    // Everything released at the end.
    for (t, h) in held.iter().enumerate() {
        if *h != 0 {
            out.push((t, Op::Drop));
        }
    }
    out
}

/// A lock as the script drives it: each method returns the line it logs.
trait Target: Sync {
    /// A guard held across steps by one thread.
    type Held<'a>
    where
        Self: 'a;
    fn lock(&self) -> (String, Option<Self::Held<'_>>);
    fn try_lock(&self) -> String;
    fn read(&self) -> (String, Option<Self::Held<'_>>) {
        ("read unsupported".into(), None)
    }
    fn try_read(&self) -> String {
        "try_read unsupported".into()
    }
    fn add(&self, held: &mut Self::Held<'_>, v: u64) -> String;
    fn poison(&self, _held: Self::Held<'_>) -> String {
        "poison unsupported".into()
    }
    fn clear_poison(&self) -> String {
        "clear_poison unsupported".into()
    }
    fn finish(self) -> String;
}

/// Runs the script on `target` with the threads taking turns; returns the log.
fn run<L: Target>(target: L, script: &[(usize, Op)]) -> String {
    let turn = Arc::new((Mutex::new(0usize), Condvar::new()));
    let log: Mutex<Vec<String>> = Mutex::new(vec![String::new(); script.len()]);
    std::thread::scope(|s| {
        for me in 0..THREADS {
            let (turn, log, target) = (turn.clone(), &log, &target);
            s.spawn(move || {
                let mut held: Option<L::Held<'_>> = None;
                for (i, (t, op)) in script.iter().enumerate() {
                    if *t != me {
                        continue;
                    }
                    let (m, cv) = &*turn;
                    let mut g = m.lock().unwrap();
                    while *g != i {
                        g = cv.wait(g).unwrap();
                    }
                    drop(g);
                    let line = match *op {
                        Op::Lock => {
                            let (line, h) = target.lock();
                            held = h;
                            line
                        }
                        Op::Read => {
                            let (line, h) = target.read();
                            held = h;
                            line
                        }
                        Op::TryLock => target.try_lock(),
                        Op::TryRead => target.try_read(),
                        Op::Add(v) => match held.as_mut() {
                            Some(h) => target.add(h, v),
                            None => "add without a guard".into(),
                        },
                        Op::Drop => {
                            let had = held.take().is_some();
                            format!("drop {had}")
                        }
                        Op::Poison => match held.take() {
                            Some(h) => target.poison(h),
                            None => "poison without a guard".into(),
                        },
                        Op::ClearPoison => target.clear_poison(),
                    };
                    log.lock().unwrap()[i] = format!("{i} t{me} {op:?}: {line}");
                    let mut g = m.lock().unwrap();
                    *g = i + 1;
                    cv.notify_all();
                }
            });
        }
    });
    let mut out = log.into_inner().unwrap().join("\n");
    out.push('\n');
    out.push_str(&target.finish());
    out
}

/// Where the golden log of `name` is committed.
fn golden_path(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("lock_{name}.log"))
}

/// How many lines of a failing diff are shown.
const DIFF_LINES: usize = 200;

/// Checks the log against the golden log `tests/golden/lock_<name>.log` (recorded from
/// the feature-off build), showing a line diff when it differs. With `HOTPATH_BLESS=1`
/// it writes the golden file from this log and fails, so that blessing never passes.
fn check(name: &str, log: &str) {
    let path = golden_path(name);
    if std::env::var_os("HOTPATH_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, log).unwrap();
        panic!(
            "{name}: HOTPATH_BLESS=1 wrote {}; review it (`git diff tests/golden`) and run \
             again without HOTPATH_BLESS",
            path.display()
        );
    }
    let golden = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{name}: cannot read the golden log {}: {e}; record it from the feature-off \
             build with HOTPATH_BLESS=1",
            path.display()
        )
    });
    if golden != log {
        let diff = similar::TextDiff::from_lines(golden.as_str(), log);
        let changed = diff
            .iter_all_changes()
            .filter(|c| c.tag() != similar::ChangeTag::Equal)
            .count();
        let text = diff
            .unified_diff()
            .context_radius(3)
            .header(&path.display().to_string(), "this run")
            .to_string();
        let shown: Vec<&str> = text.lines().take(DIFF_LINES).collect();
        let more = text.lines().count().saturating_sub(shown.len());
        panic!(
            "{name}: the log differs from the golden log in {changed} lines \
             (- golden, + this run):\n{}{}",
            shown.join("\n"),
            if more > 0 {
                format!("\n... ({more} more diff lines)")
            } else {
                String::new()
            }
        );
    }
    // The script did meet held locks, poisoned ones and free ones.
    assert!(log.contains("WouldBlock") || log.contains("busy"), "{name}");
    assert!(log.contains("ok"), "{name}");
}

/// Silences the panic messages of the `Poison` steps (and only those).
fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.payload().downcast_ref::<&str>() != Some(&"poison") {
                default(info);
            }
        }));
    });
}

mod std_sync {
    use super::*;
    use std::sync::{TryLockError, TryLockResult};

    type M = hotpath::wrap::std::sync::Mutex<u64>;
    type R = hotpath::wrap::std::sync::RwLock<u64>;

    fn try_result<G>(r: TryLockResult<G>) -> String {
        match r {
            Ok(_) => "ok".into(),
            Err(TryLockError::WouldBlock) => "WouldBlock".into(),
            Err(TryLockError::Poisoned(_)) => "Poisoned".into(),
        }
    }

    impl Target for M {
        type Held<'a> = hotpath::wrap::std::sync::MutexGuard<'a, u64>;
        fn lock(&self) -> (String, Option<Self::Held<'_>>) {
            match self.lock() {
                Ok(g) => (format!("ok {}", *g), Some(g)),
                Err(e) => {
                    let g = e.into_inner();
                    (format!("poisoned {}", *g), Some(g))
                }
            }
        }
        fn try_lock(&self) -> String {
            try_result(self.try_lock())
        }
        fn add(&self, held: &mut Self::Held<'_>, v: u64) -> String {
            **held += v;
            format!("now {}", **held)
        }
        fn poison(&self, held: Self::Held<'_>) -> String {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                let _held = held;
                panic!("poison");
            }));
            format!("panicked {} poisoned {}", r.is_err(), self.is_poisoned())
        }
        fn clear_poison(&self) -> String {
            let was = self.is_poisoned();
            self.clear_poison();
            format!("was {was} now {}", self.is_poisoned())
        }
        fn finish(self) -> String {
            match self.into_inner() {
                Ok(v) => format!("into_inner ok {v}"),
                Err(e) => format!("into_inner poisoned {}", e.into_inner()),
            }
        }
    }

    impl Target for R {
        type Held<'a> = Result<
            hotpath::wrap::std::sync::RwLockReadGuard<'a, u64>,
            hotpath::wrap::std::sync::RwLockWriteGuard<'a, u64>,
        >;
        fn lock(&self) -> (String, Option<Self::Held<'_>>) {
            match self.write() {
                Ok(g) => (format!("ok {}", *g), Some(Err(g))),
                Err(e) => {
                    let g = e.into_inner();
                    (format!("poisoned {}", *g), Some(Err(g)))
                }
            }
        }
        fn try_lock(&self) -> String {
            try_result(self.try_write())
        }
        fn read(&self) -> (String, Option<Self::Held<'_>>) {
            match self.read() {
                Ok(g) => (format!("ok {}", *g), Some(Ok(g))),
                Err(e) => {
                    let g = e.into_inner();
                    (format!("poisoned {}", *g), Some(Ok(g)))
                }
            }
        }
        fn try_read(&self) -> String {
            try_result(self.try_read())
        }
        fn add(&self, held: &mut Self::Held<'_>, v: u64) -> String {
            match held {
                Err(w) => {
                    **w += v;
                    format!("now {}", **w)
                }
                Ok(r) => format!("read-only {}", **r),
            }
        }
        fn poison(&self, held: Self::Held<'_>) -> String {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                let _held = held;
                panic!("poison");
            }));
            format!("panicked {} poisoned {}", r.is_err(), self.is_poisoned())
        }
        fn clear_poison(&self) -> String {
            let was = self.is_poisoned();
            self.clear_poison();
            format!("was {was} now {}", self.is_poisoned())
        }
        fn finish(self) -> String {
            match self.into_inner() {
                Ok(v) => format!("into_inner ok {v}"),
                Err(e) => format!("into_inner poisoned {}", e.into_inner()),
            }
        }
    }

    #[test]
    fn std_mutex_log_is_the_raw_mutex_log() {
        quiet_panics();
        let m: M = hotpath::mutex!(std::sync::Mutex::new(0), label = "script");
        let log = run(m, &script(0x5EED_0001, false, true));
        check("std_mutex", &log);
    }

    #[test]
    fn std_rw_lock_log_is_the_raw_rw_lock_log() {
        quiet_panics();
        let l: R = hotpath::rw_lock!(std::sync::RwLock::new(0), label = "script-rw");
        let log = run(l, &script(0x5EED_0002, true, true));
        check("std_rw_lock", &log);
    }
}

/// `Target` for a mutex without poisoning: `$lock` blocks, `$try` returns an `Option` or
/// `Result` of a guard (`ok` / `WouldBlock`).
#[allow(unused_macros)]
macro_rules! mutex_target {
    ($m:ty, $guard:ty, |$s:ident| $lock:expr, |$t:ident| $try:expr, |$f:ident| $finish:expr) => {
        impl Target for $m {
            type Held<'a> = $guard;
            fn lock(&self) -> (String, Option<Self::Held<'_>>) {
                let $s = self;
                let g = $lock;
                (format!("ok {}", *g), Some(g))
            }
            fn try_lock(&self) -> String {
                let $t = self;
                match $try {
                    Some(_) => "ok".into(),
                    None => "WouldBlock".into(),
                }
            }
            fn add(&self, held: &mut Self::Held<'_>, v: u64) -> String {
                **held += v;
                format!("now {}", **held)
            }
            fn finish(self) -> String {
                let $f = self;
                format!("into_inner {}", $finish)
            }
        }
    };
}

/// `Target` for a read-write lock without poisoning.
#[allow(unused_macros)]
macro_rules! rw_target {
    ($l:ty, $read:ty, $write:ty,
     |$a:ident| $wr:expr, |$b:ident| $try_wr:expr, |$c:ident| $rd:expr, |$d:ident| $try_rd:expr,
     |$f:ident| $finish:expr) => {
        impl Target for $l {
            type Held<'a> = Result<$read, $write>;
            fn lock(&self) -> (String, Option<Self::Held<'_>>) {
                let $a = self;
                let g = $wr;
                (format!("ok {}", *g), Some(Err(g)))
            }
            fn try_lock(&self) -> String {
                let $b = self;
                match $try_wr {
                    Some(_) => "ok".into(),
                    None => "WouldBlock".into(),
                }
            }
            fn read(&self) -> (String, Option<Self::Held<'_>>) {
                let $c = self;
                let g = $rd;
                (format!("ok {}", *g), Some(Ok(g)))
            }
            fn try_read(&self) -> String {
                let $d = self;
                match $try_rd {
                    Some(_) => "ok".into(),
                    None => "WouldBlock".into(),
                }
            }
            fn add(&self, held: &mut Self::Held<'_>, v: u64) -> String {
                match held {
                    Err(w) => {
                        **w += v;
                        format!("now {}", **w)
                    }
                    Ok(r) => format!("read-only {}", **r),
                }
            }
            fn finish(self) -> String {
                let $f = self;
                format!("into_inner {}", $finish)
            }
        }
    };
}

#[cfg(feature = "parking_lot")]
mod parking_lot_locks {
    use super::*;
    use hotpath::wrap::parking_lot as w;

    mutex_target!(
        w::Mutex<u64>,
        w::MutexGuard<'a, u64>,
        |s| s.lock(),
        |t| t.try_lock(),
        |f| f.into_inner()
    );
    rw_target!(
        w::RwLock<u64>,
        w::RwLockReadGuard<'a, u64>,
        w::RwLockWriteGuard<'a, u64>,
        |a| a.write(),
        |b| b.try_write(),
        |c| c.read(),
        |d| d.try_read(),
        |f| f.into_inner()
    );

    #[test]
    fn parking_lot_mutex_log_is_the_raw_mutex_log() {
        let m: w::Mutex<u64> = hotpath::mutex!(parking_lot::Mutex::new(0));
        check(
            "parking_lot_mutex",
            &run(m, &script(0x5EED_0003, false, false)),
        );
    }

    #[test]
    fn parking_lot_rw_lock_log_is_the_raw_rw_lock_log() {
        let l: w::RwLock<u64> = hotpath::rw_lock!(parking_lot::RwLock::new(0));
        check(
            "parking_lot_rw_lock",
            &run(l, &script(0x5EED_0004, true, false)),
        );
    }
}

#[cfg(feature = "tokio")]
mod tokio_locks {
    use super::*;
    use hotpath::wrap::tokio::sync as w;

    mutex_target!(
        w::Mutex<u64>,
        w::MutexGuard<'a, u64>,
        |s| s.blocking_lock(),
        |t| t.try_lock().ok(),
        |f| f.into_inner()
    );
    rw_target!(
        w::RwLock<u64>,
        w::RwLockReadGuard<'a, u64>,
        w::RwLockWriteGuard<'a, u64>,
        |a| a.blocking_write(),
        |b| b.try_write().ok(),
        |c| c.blocking_read(),
        |d| d.try_read().ok(),
        |f| f.into_inner()
    );

    #[test]
    fn tokio_mutex_log_is_the_raw_mutex_log() {
        let m: w::Mutex<u64> = hotpath::mutex!(tokio::sync::Mutex::new(0));
        check("tokio_mutex", &run(m, &script(0x5EED_0005, false, false)));
    }

    #[test]
    fn tokio_rw_lock_log_is_the_raw_rw_lock_log() {
        let l: w::RwLock<u64> = hotpath::rw_lock!(tokio::sync::RwLock::new(0));
        check("tokio_rw_lock", &run(l, &script(0x5EED_0006, true, false)));
    }

    /// Three tasks queue behind a holder that sleeps 20 ms across `.await`: they get the
    /// lock in the order they asked for it (tokio's FIFO), and a `try_lock` made while
    /// they wait does not barge in.
    #[test]
    fn tokio_waiters_are_served_in_arrival_order() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let (order, barged) = rt.block_on(async {
            let m = Arc::new(hotpath::mutex!(tokio::sync::Mutex::new(Vec::new())));
            let held = m.lock().await;
            let mut tasks = Vec::new();
            for i in 0..3 {
                let m = m.clone();
                tasks.push(tokio::spawn(async move { m.lock().await.push(i) }));
                tokio::task::yield_now().await;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            drop(held);
            let barged = m.try_lock().is_ok();
            for t in tasks {
                t.await.unwrap();
            }
            let order = m.lock().await.clone();
            (order, barged)
        });
        assert_eq!((order, barged), (vec![0, 1, 2], false));
    }
}

#[cfg(feature = "async-lock")]
mod async_lock_locks {
    use super::*;
    use hotpath::wrap::async_lock as w;

    mutex_target!(
        w::Mutex<u64>,
        w::MutexGuard<'a, u64>,
        |s| s.lock_blocking(),
        |t| t.try_lock(),
        |f| f.into_inner()
    );
    rw_target!(
        w::RwLock<u64>,
        w::RwLockReadGuard<'a, u64>,
        w::RwLockWriteGuard<'a, u64>,
        |a| a.write_blocking(),
        |b| b.try_write(),
        |c| c.read_blocking(),
        |d| d.try_read(),
        |f| f.into_inner()
    );

    #[test]
    fn async_lock_mutex_log_is_the_raw_mutex_log() {
        let m: w::Mutex<u64> = hotpath::mutex!(async_lock::Mutex::new(0));
        check(
            "async_lock_mutex",
            &run(m, &script(0x5EED_0007, false, false)),
        );
    }

    #[test]
    fn async_lock_rw_lock_log_is_the_raw_rw_lock_log() {
        let l: w::RwLock<u64> = hotpath::rw_lock!(async_lock::RwLock::new(0));
        check(
            "async_lock_rw_lock",
            &run(l, &script(0x5EED_0008, true, false)),
        );
    }
}
