//! With the `hotpath` feature off, every public macro, the guard and the builder are the
//! plain code: same values, same side effects, same panics, no output, no process exit,
//! no file written, and no dependency beyond `hotpath` and `hotpath-macros`.

use std::cell::Cell;
use std::collections::BTreeSet;
use std::future::Future;
use std::io::{Cursor, Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe, Location};
use std::path::{Path, PathBuf};
use std::pin::{pin, Pin};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use hotpath::{Format, HotpathGuard, HotpathGuardBuilder};
use hotpath_disabled_tests::shapes::Rect;
use hotpath_disabled_tests::{parse_list, AREA_CALLS};

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// Returns `Pending` once (waking itself), then `Ready`.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// Polls `f` to completion on this thread; returns its output and the number of polls.
fn block_on<F: Future>(f: F) -> (F::Output, u32) {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    let mut polls = 0;
    loop {
        polls += 1;
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return (v, polls);
        }
    }
}

/// The message of a caught panic.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic payload>".to_string()
    }
}

/// A path in the temp directory that no other test (or run) uses.
fn unique_temp_path(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    std::env::temp_dir().join(format!(
        "hotpath-disabled-{}-{}-{name}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ))
}

// ---------------------------------------------------------------------------------------
// #[hotpath::measure]
// ---------------------------------------------------------------------------------------

#[hotpath::measure]
fn plain(a: u64, b: u64) -> u64 {
    a * 10 + b
}

#[hotpath::measure(label = "labelled work", log = true)]
fn labelled(s: &str) -> String {
    s.to_uppercase()
}

#[hotpath::measure]
fn generic_max<T>(xs: &[T]) -> Option<T>
where
    T: PartialOrd + Copy + std::fmt::Debug,
{
    let mut it = xs.iter().copied();
    let first = it.next()?;
    Some(it.fold(first, |m, x| if x > m { x } else { m }))
}

#[hotpath::measure]
fn squares(n: u32) -> impl Iterator<Item = u32> + Clone {
    (1..=n).map(|x| x * x)
}

#[hotpath::measure]
fn describe(x: impl std::fmt::Display) -> impl std::fmt::Display {
    format!("[{x}]")
}

#[hotpath::measure]
fn classify(n: i32) -> &'static str {
    if n < 0 {
        return "negative";
    }
    for small in 0..3 {
        if n == small {
            return "small";
        }
    }
    "large"
}

#[hotpath::measure]
fn sum_csv(s: &str) -> Result<i64, std::num::ParseIntError> {
    let mut total = 0;
    for part in s.split(',') {
        total += part.trim().parse::<i64>()?;
    }
    Ok(total)
}

#[hotpath::measure]
fn boxed_error(s: &str) -> Result<u8, Box<dyn std::error::Error>> {
    if s.is_empty() {
        return Err("empty".into());
    }
    Ok(s.parse::<u8>()?)
}

#[hotpath::measure]
fn panics(msg: &str) -> u32 {
    if !msg.is_empty() {
        panic!("measured panic: {msg}");
    }
    0
}

#[hotpath::measure]
#[track_caller]
fn caller_line() -> u32 {
    Location::caller().line()
}

#[hotpath::measure]
unsafe fn read_unsafe(p: *const u32) -> u32 {
    // SAFETY: the caller passes a valid, aligned pointer.
    unsafe { *p }
}

#[hotpath::measure]
extern "C" fn c_abi(x: i32) -> i32 {
    x + 1
}

#[derive(Debug, Default, PartialEq)]
struct Stack {
    items: Vec<String>,
    pushes: usize,
}

impl Stack {
    #[hotpath::measure]
    fn new() -> Self {
        Self::default()
    }

    #[hotpath::measure]
    fn push(&mut self, s: &str) -> &mut String {
        self.pushes += 1;
        self.items.push(s.to_owned());
        self.items.last_mut().expect("just pushed")
    }

    #[hotpath::measure]
    fn top(&self) -> Option<&str> {
        self.items.last().map(String::as_str)
    }

    #[hotpath::measure]
    fn into_items(self) -> Vec<String> {
        self.items
    }
}

#[test]
fn measure_returns_the_plain_values() {
    assert_eq!(plain(4, 2), 42);
    assert_eq!(labelled("abc"), "ABC");
    assert_eq!(generic_max(&[3, 9, 2]), Some(9));
    assert_eq!(generic_max(&[1.5, -2.0]), Some(1.5));
    assert_eq!(generic_max::<u8>(&[]), None);
    let sq = squares(4);
    assert_eq!(sq.clone().collect::<Vec<_>>(), [1, 4, 9, 16]);
    assert_eq!(sq.sum::<u32>(), 30);
    assert_eq!(describe(7).to_string(), "[7]");
    let x = 11u32;
    // SAFETY: `&x` is a valid pointer to a `u32`.
    assert_eq!(unsafe { read_unsafe(&x) }, 11);
    let f: extern "C" fn(i32) -> i32 = c_abi;
    assert_eq!(f(1), 2);
}

#[test]
fn measure_keeps_early_returns_and_question_marks() {
    assert_eq!(classify(-5), "negative");
    assert_eq!(classify(1), "small");
    assert_eq!(classify(9), "large");
    assert_eq!(sum_csv("1, 2, 3"), Ok(6));
    let err = sum_csv("1, x").unwrap_err();
    assert_eq!(err, "x".parse::<i64>().unwrap_err());
    assert_eq!(boxed_error("9").unwrap(), 9);
    assert_eq!(boxed_error("").unwrap_err().to_string(), "empty");
    assert!(boxed_error("300").is_err());
}

#[test]
fn measure_on_methods_borrows_like_the_plain_method() {
    let mut s = Stack::new();
    s.push("a").push('!');
    s.push("b");
    assert_eq!(s.top(), Some("b"));
    assert_eq!(s.pushes, 2);
    assert_eq!(s.into_items(), ["a!", "b"]);
}

#[test]
fn measure_runs_the_body_exactly_once_per_call() {
    static COUNTED: AtomicUsize = AtomicUsize::new(0);
    #[hotpath::measure]
    fn counted(i: usize) -> usize {
        COUNTED.fetch_add(1, Ordering::SeqCst);
        i * 10
    }
    for i in 0..5 {
        assert_eq!(counted(i), i * 10);
    }
    assert_eq!(COUNTED.load(Ordering::SeqCst), 5);

    thread_local!(static LOCAL: Cell<u32> = const { Cell::new(0) });
    #[hotpath::measure]
    fn bump() -> u32 {
        LOCAL.with(|c| {
            c.set(c.get() + 1);
            c.get()
        })
    }
    assert_eq!(bump(), 1);
    assert_eq!(bump(), 2);
    assert_eq!(bump(), 3);
    assert_eq!(LOCAL.with(Cell::get), 3);
}

#[test]
fn measure_propagates_panics_unchanged() {
    let r = catch_unwind(|| panics("boom"));
    let p = r.expect_err("the panic propagates");
    assert_eq!(panic_message(&*p), "measured panic: boom");
    assert_eq!(catch_unwind(|| panics("")).ok(), Some(0));
}

#[test]
fn measure_keeps_track_caller() {
    let (got, expected) = (caller_line(), line!());
    assert_eq!(got, expected);
}

// ---------------------------------------------------------------------------------------
// async: #[hotpath::measure] and #[hotpath::future_fn]
// ---------------------------------------------------------------------------------------

#[hotpath::measure]
async fn async_double(x: u32) -> u32 {
    YieldOnce(false).await;
    x * 2
}

#[hotpath::measure(future = true)]
async fn async_trim(s: &str) -> &str {
    YieldOnce(false).await;
    s.trim()
}

#[hotpath::measure]
async fn async_parse(s: &str) -> Result<u32, String> {
    if s.is_empty() {
        return Err("empty".into());
    }
    YieldOnce(false).await;
    let v: u32 = s
        .parse()
        .map_err(|e: std::num::ParseIntError| e.to_string())?;
    Ok(v)
}

#[hotpath::measure]
async fn async_panics() -> u32 {
    YieldOnce(false).await;
    panic!("async panic")
}

#[hotpath::future_fn]
async fn future_fn_sum(xs: Vec<u32>) -> u32 {
    let mut total = 0;
    for x in xs {
        YieldOnce(false).await;
        total += x;
    }
    total
}

#[hotpath::future_fn(log = true)]
async fn future_fn_unit() {}

struct AsyncCounter(u32);

impl AsyncCounter {
    #[hotpath::measure]
    async fn bump(&mut self) -> u32 {
        YieldOnce(false).await;
        self.0 += 1;
        self.0
    }

    #[hotpath::future_fn]
    async fn get(&self) -> u32 {
        self.0
    }
}

#[test]
fn async_functions_return_the_same_values_after_the_same_polls() {
    assert_eq!(block_on(async_double(21)), (42, 2));
    assert_eq!(block_on(async_trim("  x  ")), ("x", 2));
    assert_eq!(block_on(async_parse("17")), (Ok(17), 2));
    assert_eq!(block_on(async_parse("")), (Err("empty".to_string()), 1));
    assert!(block_on(async_parse("z")).0.is_err());
    assert_eq!(block_on(future_fn_sum(vec![1, 2, 3])), (6, 4));
    assert_eq!(block_on(future_fn_unit()), ((), 1));
    let mut c = AsyncCounter(0);
    assert_eq!(block_on(c.bump()), (1, 2));
    assert_eq!(block_on(c.bump()), (2, 2));
    assert_eq!(block_on(c.get()), (2, 1));
}

#[test]
fn async_panics_propagate_unchanged() {
    let p = catch_unwind(|| block_on(async_panics())).expect_err("the panic propagates");
    assert_eq!(panic_message(&*p), "async panic");
}

// ---------------------------------------------------------------------------------------
// #[async_trait] methods: #[measure] on the method, #[measure_all] below and above
// ---------------------------------------------------------------------------------------

#[async_trait::async_trait]
trait Teller {
    async fn tell(&self, x: u32) -> Result<u32, String>;
}

struct Plain;
struct OnMethod;
struct AllBelow;
struct AllAbove;

#[async_trait::async_trait]
impl Teller for Plain {
    async fn tell(&self, x: u32) -> Result<u32, String> {
        YieldOnce(false).await;
        x.checked_mul(2).ok_or_else(|| "overflow".to_string())
    }
}

#[async_trait::async_trait]
impl Teller for OnMethod {
    #[hotpath::measure]
    async fn tell(&self, x: u32) -> Result<u32, String> {
        YieldOnce(false).await;
        x.checked_mul(2).ok_or_else(|| "overflow".to_string())
    }
}

#[async_trait::async_trait]
#[hotpath::measure_all]
impl Teller for AllBelow {
    async fn tell(&self, x: u32) -> Result<u32, String> {
        YieldOnce(false).await;
        x.checked_mul(2).ok_or_else(|| "overflow".to_string())
    }
}

#[hotpath::measure_all]
#[async_trait::async_trait]
impl Teller for AllAbove {
    async fn tell(&self, x: u32) -> Result<u32, String> {
        YieldOnce(false).await;
        x.checked_mul(2).ok_or_else(|| "overflow".to_string())
    }
}

#[test]
fn async_trait_methods_return_what_the_plain_methods_do_after_the_same_polls() {
    fn send<T: Send>(t: T) -> T {
        t
    }
    let tellers: [&(dyn Teller + Sync); 4] = [&Plain, &OnMethod, &AllBelow, &AllAbove];
    for t in tellers {
        assert_eq!(block_on(send(t.tell(21))), (Ok(42), 2));
        assert_eq!(block_on(t.tell(u32::MAX)), (Err("overflow".to_string()), 2));
    }
}

// ---------------------------------------------------------------------------------------
// #[hotpath::measure_all] and #[hotpath::skip]
// ---------------------------------------------------------------------------------------

struct Account {
    balance: i64,
    ops: u32,
}

#[hotpath::measure_all]
impl Account {
    const LIMIT: i64 = 100;

    fn new() -> Self {
        Account { balance: 0, ops: 0 }
    }

    fn deposit(&mut self, x: i64) -> Result<i64, String> {
        if x > Self::LIMIT {
            return Err(format!("{x} is over the limit"));
        }
        self.ops += 1;
        self.balance += x;
        Ok(self.balance)
    }

    #[hotpath::skip]
    fn balance(&self) -> i64 {
        self.balance
    }

    #[hotpath::measure(label = "Account::reset")]
    fn reset(&mut self) {
        self.balance = 0;
    }

    const fn zero() -> i64 {
        0
    }

    fn explode(&self) {
        panic!("account exploded with {}", self.balance);
    }

    async fn later(&self) -> i64 {
        YieldOnce(false).await;
        self.balance
    }
}

#[hotpath::measure_all]
impl std::fmt::Display for Account {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "balance {} after {} ops", self.balance, self.ops)
    }
}

#[hotpath::measure_all]
mod inline_module {
    pub const TWO: u32 = two();

    pub const fn two() -> u32 {
        2
    }

    pub fn double(x: u32) -> u32 {
        x * TWO
    }

    #[hotpath::skip]
    pub fn skipped(x: u32) -> u32 {
        x + 1
    }

    pub mod nested {
        pub fn halve(x: u32) -> Option<u32> {
            if x % 2 == 1 {
                return None;
            }
            Some(x / 2)
        }
    }

    pub struct Acc(pub u32);

    impl Acc {
        pub fn add(&mut self, x: u32) -> &mut Self {
            self.0 += x;
            self
        }
    }
}

#[test]
fn measure_all_on_an_impl_block_is_the_plain_impl() {
    const ZERO: i64 = Account::zero();
    let mut a = Account::new();
    assert_eq!(a.deposit(30), Ok(30));
    assert_eq!(a.deposit(12), Ok(42));
    assert_eq!(a.deposit(1000), Err("1000 is over the limit".to_string()));
    assert_eq!(a.balance(), 42);
    assert_eq!(a.to_string(), "balance 42 after 2 ops");
    assert_eq!(block_on(a.later()), (42, 2));
    let p = catch_unwind(AssertUnwindSafe(|| a.explode())).expect_err("the panic propagates");
    assert_eq!(panic_message(&*p), "account exploded with 42");
    a.reset();
    assert_eq!(a.balance(), ZERO);
}

#[test]
fn measure_all_on_an_inline_module_is_the_plain_module() {
    assert_eq!(inline_module::TWO, 2);
    assert_eq!(inline_module::double(21), 42);
    assert_eq!(inline_module::skipped(1), 2);
    assert_eq!(inline_module::nested::halve(8), Some(4));
    assert_eq!(inline_module::nested::halve(7), None);
    let mut acc = inline_module::Acc(0);
    acc.add(1).add(2);
    assert_eq!(acc.0, 3);
}

#[test]
fn annotated_library_code_is_the_plain_code() {
    let before = AREA_CALLS.load(Ordering::SeqCst);
    let (a, b) = (Rect::new(2, 3), Rect::new(4, 4));
    assert_eq!(a.area(), 6);
    assert!(b.is_square());
    assert_eq!(hotpath_disabled_tests::shapes::larger(a, b), b);
    // `area` once above and twice in `larger`; only this test calls it.
    assert_eq!(AREA_CALLS.load(Ordering::SeqCst) - before, 3);
    assert_eq!(parse_list("1, 2,3"), Ok(vec![1, 2, 3]));
    assert!(parse_list("1,,2").is_err());
}

// ---------------------------------------------------------------------------------------
// Child processes: no output, no exit, no file
// ---------------------------------------------------------------------------------------

/// Set in a child process to the name of the one test it runs.
const CHILD_ENV: &str = "HOTPATH_DISABLED_IDENTITY_CHILD";
/// The child's last line; missing means the process ended early.
const CHILD_DONE: &str = "identity child: reached its end";

/// Runs `body` in a child process: this test binary again, only the test `name`, with
/// `CHILD_ENV` set, in a fresh empty directory, and with `HOTPATH_*` variables that would
/// make an enabled build print a JSON report, warn on stderr and exit after 1 ms.
///
/// Checks that the child ran `body` and slept 50 ms more to its end (a `process::exit(0)`
/// inside an in-process test would end the harness with success, unnoticed), exited
/// successfully, printed nothing but the test harness's lines (in particular no
/// `[hotpath]` line on stdout or stderr), and left its directory empty.
fn in_child_process(name: &str, body: impl FnOnce()) {
    if std::env::var(CHILD_ENV).as_deref() == Ok(name) {
        body();
        std::thread::sleep(Duration::from_millis(50));
        // On a line of its own: the harness printed `test <name> ... ` without a newline.
        println!("\n{CHILD_DONE}");
        return;
    }
    let dir = unique_temp_path("child-cwd");
    std::fs::create_dir_all(&dir).expect("create the child's directory");
    let out = Command::new(std::env::current_exe().expect("current_exe"))
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .current_dir(&dir)
        .env(CHILD_ENV, name)
        .env("HOTPATH_OUTPUT_FORMAT", "json")
        .env("HOTPATH_LIMIT", "not-a-number")
        .env("HOTPATH_SHUTDOWN_MS", "1")
        .env("HOTPATH_REPORT", "all")
        .env_remove("HOTPATH_OUTPUT_PATH")
        .output()
        .expect("run the test binary");
    let left: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read the child's directory")
        .map(|e| e.expect("directory entry").path())
        .collect();
    std::fs::remove_dir_all(&dir).expect("remove the child's directory");

    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let context = format!(
        "status: {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    assert!(out.status.success(), "the child failed\n{context}");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("test ") && l.contains(name)),
        "the child did not run `{name}`\n{context}"
    );
    assert!(
        stdout.lines().any(|l| l == CHILD_DONE),
        "the child did not reach its end\n{context}"
    );
    assert!(
        !stdout
            .lines()
            .any(|l| l.trim_start().starts_with("[hotpath]")),
        "{context}"
    );
    assert!(!stdout.contains("[hotpath]"), "{context}");
    assert!(!stderr.contains("[hotpath]"), "{context}");
    let foreign: Vec<&str> = stdout
        .lines()
        .filter(|l| {
            !(l.is_empty()
                || *l == CHILD_DONE
                || *l == "ok"
                || l.starts_with("running ")
                || l.starts_with("test "))
        })
        .collect();
    assert!(
        foreign.is_empty(),
        "lines not from the harness: {foreign:?}\n{context}"
    );
    assert!(left.is_empty(), "files written: {left:?}\n{context}");
}

// ---------------------------------------------------------------------------------------
// #[hotpath::main]
// ---------------------------------------------------------------------------------------

static MAIN_CALLS: AtomicUsize = AtomicUsize::new(0);

/// `#[hotpath::main]` with every argument it accepts, on a function standing in for
/// `main`. With the feature this would print a JSON report (to a file in the current
/// directory) and exit the process after 1 ms.
#[hotpath::main(
    percentiles = [0, 50, 95, 99.9, 100],
    format = "json-pretty",
    limit = 3,
    functions_limit = 4,
    threads_limit = 5,
    io_limit = 6,
    output_path = "hotpath-disabled-report.json",
    timeout = 1,
    allocator = std::alloc::System,
    report = "timing,-threads",
    channels_limit = 1,
    streams_limit = 2,
    futures_limit = 3,
    rw_locks_limit = 4,
    mutexes_limit = 5,
    sql_limit = 6,
    http_limit = 7,
    server_limit = 8,
)]
fn main_with_every_argument(xs: &[u64]) -> u64 {
    MAIN_CALLS.fetch_add(1, Ordering::SeqCst);
    let total = xs.iter().map(|&x| plain(x, 0)).sum();
    hotpath::measure_block!("inside main", total)
}

#[hotpath::main]
fn main_without_arguments() -> Result<(), String> {
    sum_csv("1,2").map_err(|e| e.to_string())?;
    Err("early".into())
}

#[hotpath::main(format = "table")]
fn main_that_panics() {
    panic!("main panicked");
}

#[hotpath::main(percentiles = [99], timeout = 1)]
async fn async_main() -> u32 {
    async_double(2).await
}

#[test]
fn main_attribute_is_the_plain_function() {
    in_child_process("main_attribute_is_the_plain_function", || {
        assert_eq!(main_with_every_argument(&[1, 2, 3]), 60);
        assert_eq!(MAIN_CALLS.load(Ordering::SeqCst), 1);
        assert_eq!(main_without_arguments(), Err("early".to_string()));
        let p = catch_unwind(main_that_panics).expect_err("the panic propagates");
        assert_eq!(panic_message(&*p), "main panicked");
        assert_eq!(block_on(async_main()), (4, 2));
    });
}

/// A program using every annotation under `#[hotpath::main]` with the default format
/// (a table on stdout with the feature).
#[test]
fn a_whole_program_prints_nothing() {
    #[hotpath::main]
    fn program() -> u32 {
        let mut s = Stack::new();
        s.push("x");
        let a = block_on(async_double(3)).0 + block_on(future_fn_sum(vec![1])).0;
        let b = hotpath::measure_block!("block", generic_max(&[a, 1]).unwrap_or(0));
        let mut acc = inline_module::Acc(b);
        acc.add(inline_module::double(1));
        let mut account = Account::new();
        assert_eq!(account.deposit(1), Ok(1));
        let r = Rect::new(1, 2).area();
        acc.0 + u32::from(s.top() == Some("x")) + r + parse_list("1").map_or(0, |v| v.len() as u32)
    }
    in_child_process("a_whole_program_prints_nothing", || {
        assert_eq!(program(), 7 + 2 + 1 + 2 + 1);
        let guard = HotpathGuardBuilder::new("identity::child")
            .format(Format::Json)
            .build();
        assert_eq!(classify(1), "small");
        drop(guard);
    });
}

// ---------------------------------------------------------------------------------------
// measure_block!, io!, io_unwrap
// ---------------------------------------------------------------------------------------

#[test]
fn measure_block_evaluates_to_its_value_once() {
    let n = hotpath::measure_block!("count", (1..=10).filter(|x| x % 2 == 0).count());
    assert_eq!(n, 5);

    let mut effects = 0;
    let s: String = hotpath::measure_block!("block", {
        effects += 1;
        String::from("ab")
    });
    assert_eq!((s.as_str(), effects), ("ab", 1));

    hotpath::measure_block!("statement", effects += 10);
    assert_eq!(effects, 11);

    let parsed = || -> Result<u8, std::num::ParseIntError> {
        Ok(hotpath::measure_block!("question mark", "7".parse::<u8>()?,) + 1)
    };
    assert_eq!(parsed(), Ok(8));

    let borrowed: &str = hotpath::measure_block!("borrow", &s[..1]);
    assert_eq!(borrowed, "a");

    let p = catch_unwind(|| hotpath::measure_block!("panics", panic!("block panic")))
        .expect_err("the panic propagates");
    assert_eq!(panic_message(&*p), "block panic");
}

#[test]
fn io_and_io_unwrap_are_the_identity() {
    let mut c: Cursor<Vec<u8>> = hotpath::io!(Cursor::new(vec![1, 2, 3]), label = "x");
    let mut buf = [0u8; 2];
    c.read_exact(&mut buf).expect("read");
    assert_eq!(buf, [1, 2]);
    assert_eq!(c.position(), 2);

    let mut w: Vec<u8> = hotpath::io!(Vec::new());
    w.write_all(b"hi").expect("write");
    let w: Vec<u8> = hotpath::io_unwrap(w);
    assert_eq!(w, b"hi");

    let c: Cursor<Vec<u8>> = hotpath::io_unwrap(c);
    assert_eq!(c.into_inner(), [1, 2, 3]);

    let file_like: &[u8] = hotpath::io!(&b"abc"[..], iter = true, label = "slice");
    assert_eq!(hotpath::io_unwrap(file_like), b"abc");
    assert_eq!(hotpath::io_unwrap(5u8), 5);
}

// ---------------------------------------------------------------------------------------
// channel!, stream!, future! and the wrap aliases
// ---------------------------------------------------------------------------------------

#[hotpath::future_fn]
async fn fetched(x: u32) -> u32 {
    YieldOnce(false).await;
    x + 1
}

#[hotpath::measure(future = true)]
async fn measured_future(x: u32) -> u32 {
    x * 2
}

#[test]
fn channel_returns_the_constructors_endpoints() {
    // The raw std types, named through the aliases.
    let (tx, rx): (
        hotpath::wrap::std::sync::mpsc::SyncSender<u8>,
        hotpath::wrap::std::sync::mpsc::Receiver<u8>,
    ) = hotpath::channel!(
        std::sync::mpsc::sync_channel::<u8>(1),
        label = "l",
        capacity = 1,
        log = true,
        iter = true
    );
    let (tx, rx): (
        std::sync::mpsc::SyncSender<u8>,
        std::sync::mpsc::Receiver<u8>,
    ) = (tx, rx);
    tx.try_send(1).unwrap();
    assert!(matches!(
        tx.try_send(2),
        Err(std::sync::mpsc::TrySendError::Full(2))
    ));
    assert_eq!(rx.recv().unwrap(), 1);
    let (utx, urx): (
        hotpath::wrap::std::sync::mpsc::Sender<u8>,
        std::sync::mpsc::Receiver<u8>,
    ) = hotpath::channel!(std::sync::mpsc::channel(), capacity = 3 + 1);
    utx.send(5).unwrap();
    assert_eq!(urx.recv().unwrap(), 5);
    // Off, `capacity` is not even evaluated against anything: no panic, as written.
    let n = 2;
    let (t, _r) = hotpath::channel!(std::sync::mpsc::sync_channel::<u8>(n), capacity = 9);
    t.try_send(0).unwrap();
}

#[test]
fn stream_and_future_return_their_argument() {
    // Off, `stream!` is the identity whatever its argument; no stream crate needed.
    struct Countdown(u8);
    let s: hotpath::wrap::Stream<Countdown> =
        hotpath::stream!(Countdown(3), label = "s", iter = true);
    let s2: hotpath::Stream<Countdown> = hotpath::stream!(s, log = true);
    assert_eq!(s2.0, 3);
    let f: hotpath::wrap::Future<YieldOnce> =
        hotpath::future!(YieldOnce(false), label = "f", log = true);
    assert_eq!(block_on(f), ((), 2));
    assert_eq!(block_on(hotpath::future!(async { 7 })), (7, 1));
    assert_eq!(block_on(fetched(1)), (2, 2));
    assert_eq!(block_on(measured_future(4)), (8, 1));
}

#[test]
fn labels_given_as_expressions_are_not_evaluated_and_the_values_are_the_plain_ones() {
    // Off, a label expression is type-checked (borrowed, `AsRef<str>`) but never run:
    // its side effects do not happen, and the macro is its first argument.
    let evaluated = Cell::new(0);
    let label = |i: u32| {
        evaluated.set(evaluated.get() + 1);
        format!("worker-{i}")
    };
    let name = String::from("named");
    let (tx, rx): (std::sync::mpsc::Sender<u8>, std::sync::mpsc::Receiver<u8>) =
        hotpath::channel!(std::sync::mpsc::channel::<u8>(), label = label(1));
    tx.send(3).unwrap();
    assert_eq!(rx.recv().unwrap(), 3);
    struct Countdown(u8);
    let s: Countdown = hotpath::stream!(Countdown(2), label = label(2), iter = true);
    assert_eq!(s.0, 2);
    let f: YieldOnce = hotpath::future!(YieldOnce(false), label = name.clone());
    assert_eq!(block_on(f), ((), 2));
    let mut w: Vec<u8> = hotpath::io!(Vec::new(), label = label(3));
    w.write_all(b"x").unwrap();
    let w2: Vec<u8> = hotpath::io!(w, iter = true, label = &name);
    assert_eq!(w2, b"x");
    let m: std::sync::Mutex<u8> = hotpath::mutex!(std::sync::Mutex::new(4), label = label(4));
    let l: std::sync::RwLock<u8> = hotpath::rw_lock!(std::sync::RwLock::new(5), label = name);
    assert_eq!(*m.lock().unwrap() + *l.read().unwrap(), 9);
    assert_eq!(evaluated.get(), 0);
}

// ---------------------------------------------------------------------------------------
// mutex!, rw_lock!, the hotpath::wrap aliases; dbg!, val!, gauge!
// ---------------------------------------------------------------------------------------

/// A `static` made by `mutex!`: const construction works without the feature too.
static COUNTER: hotpath::wrap::std::sync::Mutex<u64> =
    hotpath::mutex!(std::sync::Mutex::new(0), label = "counter");

#[test]
fn lock_macros_return_the_lock_itself() {
    // The aliases are the std types: these annotations only compile if they are.
    let m: std::sync::Mutex<Vec<u8>> = hotpath::mutex!(std::sync::Mutex::new(vec![1]));
    let l: std::sync::RwLock<u8> = hotpath::rw_lock!(std::sync::RwLock::new(2), label = "l");
    let _: &hotpath::wrap::std::sync::Mutex<Vec<u8>> = &m;
    let _: &hotpath::wrap::std::sync::RwLock<u8> = &l;
    m.lock().unwrap().push(2);
    let g: hotpath::wrap::std::sync::MutexGuard<'_, Vec<u8>> = m.lock().unwrap();
    assert_eq!(*g, [1, 2]);
    assert!(matches!(
        m.try_lock(),
        Err(std::sync::TryLockError::WouldBlock)
    ));
    drop(g);
    {
        let r: hotpath::wrap::std::sync::RwLockReadGuard<'_, u8> = l.read().unwrap();
        assert_eq!(*r, 2);
    }
    let mut w: hotpath::wrap::std::sync::RwLockWriteGuard<'_, u8> = l.write().unwrap();
    *w += 1;
    drop(w);
    assert_eq!(l.into_inner().unwrap(), 3);

    // Poisoning is std's.
    let p = std::sync::Arc::new(hotpath::mutex!(std::sync::Mutex::new(5)));
    let p2 = p.clone();
    assert!(std::thread::spawn(move || {
        let _g = p2.lock().unwrap();
        panic!("poison");
    })
    .join()
    .is_err());
    assert!(p.is_poisoned());
    assert_eq!(*p.lock().unwrap_err().into_inner(), 5);

    // The Condvar alias is std's and takes the guard.
    let pair = (
        hotpath::mutex!(std::sync::Mutex::new(true)),
        hotpath::wrap::std::sync::Condvar::new(),
    );
    let g = pair.0.lock().unwrap();
    let g = pair.1.wait_while(g, |ready| !*ready).unwrap();
    assert!(*g);
    pair.1.notify_all();

    // The static: counted from two threads.
    let t = std::thread::spawn(|| *COUNTER.lock().unwrap() += 1);
    *COUNTER.lock().unwrap() += 1;
    t.join().unwrap();
    assert_eq!(*COUNTER.lock().unwrap(), 2);
}

#[test]
fn debug_values_are_plain_values_and_no_ops() {
    let side = Cell::new(0);
    let v = hotpath::dbg!({
        side.set(side.get() + 1);
        41 + 1
    });
    assert_eq!((v, side.get()), (42, 1));
    let (a, b) = hotpath::dbg!(1, "two");
    assert_eq!((a, b), (1, "two"));
    let moved = hotpath::dbg!(vec![1, 2]);
    assert_eq!(moved, [1, 2]);
    // The key is not evaluated without the feature.
    let keys = Cell::new(0);
    let key = || {
        keys.set(keys.get() + 1);
        "k"
    };
    hotpath::val!(key()).set(&[1, 2, 3]);
    let gauge: hotpath::GaugeHandle = hotpath::gauge!(key());
    gauge.set(1).inc(2.5).dec(1u8);
    assert_eq!(keys.get(), 0);
    assert_eq!(std::mem::size_of::<hotpath::ValHandle>(), 0);
    assert_eq!(std::mem::size_of::<hotpath::GaugeHandle>(), 0);
}

// ---------------------------------------------------------------------------------------
// HotpathGuardBuilder and HotpathGuard
// ---------------------------------------------------------------------------------------

/// Every builder method, in a chain, the live servers' too. With the feature: a JSON
/// report written to `output`, warnings for the out-of-range percentile and rate, and an
/// exit after 1 ms.
fn full_builder(output: &Path) -> HotpathGuardBuilder {
    HotpathGuardBuilder::new("identity::full_builder")
        .percentiles(&[0.0, 50.0, 99.9, 100.0, 250.0])
        .format(Format::JsonPretty)
        .limit(3)
        .functions_limit(4)
        .threads_limit(5)
        .io_limit(6)
        .channels_limit(7)
        .streams_limit(8)
        .futures_limit(9)
        .channels_time_sampling_rate(0.5)
        .streams_time_sampling_rate(3.0)
        .futures_time_sampling_rate(0.0)
        .mutexes_limit(10)
        .rw_locks_limit(11)
        .sql_limit(12)
        .http_limit(13)
        .server_limit(14)
        .route_scope(false)
        .mutexes_time_sampling_rate(0.25)
        .rw_locks_time_sampling_rate(3.0)
        .output_path(output)
        .timeout(Duration::from_millis(1))
        .time_sampling_rate(0.5)
        .functions_time_sampling_rate(2.0)
        .report("timing,-threads")
        .stacks(true)
        .trace(output.with_extension("trace.json"))
        .trace_capacity(1024)
        .metrics_port(0)
        .metrics_host("127.0.0.1")
        .metrics_auth_token("t0ken")
        .mcp_port(0)
        .mcp_host("127.0.0.1")
        .mcp_auth_token("t0ken")
}

#[test]
fn guard_and_builder_are_zero_sized() {
    assert_eq!(std::mem::size_of::<HotpathGuard>(), 0);
    assert_eq!(std::mem::size_of::<HotpathGuardBuilder>(), 0);
    let debug = format!("{:?}", HotpathGuardBuilder::new("dbg"));
    assert!(debug.contains("HotpathGuardBuilder"), "{debug}");
}

#[test]
fn build_returns_an_inactive_guard() {
    in_child_process("build_returns_an_inactive_guard", || {
        let out = unique_temp_path("builder-report.json");
        let guard = full_builder(&out).build();
        assert!(!guard.is_active());
        assert_eq!(plain(1, 1), 11);
        // With the feature, the 1 ms timeout ends the process during this sleep.
        std::thread::sleep(Duration::from_millis(50));
        drop(guard);
        assert!(!out.exists(), "{} was written", out.display());
        let trace = out.with_extension("trace.json");
        assert!(!trace.exists(), "{} was written", trace.display());

        // Two sessions at once: both inert (with the feature the second one warns).
        let a = HotpathGuardBuilder::new("a").build();
        let b = HotpathGuardBuilder::new("b").format(Format::None).build();
        assert!(!a.is_active());
        assert!(!b.is_active());
        drop((a, b));
    });
}

#[test]
fn build_with_shutdown_does_not_exit() {
    in_child_process("build_with_shutdown_does_not_exit", || {
        let out = unique_temp_path("shutdown-report.json");
        full_builder(&out).build_with_shutdown(Duration::from_millis(1));
        std::thread::sleep(Duration::from_millis(50));
        // Still running (the child's last line checks it too); nothing written.
        assert!(!out.exists(), "{} was written", out.display());
    });
}

#[test]
fn format_is_usable_without_the_feature() {
    assert_eq!(Format::default(), Format::Table);
    for f in [
        Format::Table,
        Format::Json,
        Format::JsonPretty,
        Format::None,
    ] {
        assert_eq!(Format::parse(f.as_str()), Some(f));
        assert_eq!(f.to_string(), f.as_str());
    }
    assert_eq!(Format::parse("xml"), None);
}

// ---------------------------------------------------------------------------------------
// No dependency is built without the feature
// ---------------------------------------------------------------------------------------

#[test]
fn dependency_closure_is_hotpath_and_its_macros_only() {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = manifest_dir
        .ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .expect("the workspace root holds Cargo.lock");
    let out = Command::new(env!("CARGO"))
        .current_dir(workspace)
        .args([
            "tree",
            "--offline",
            "-p",
            "hotpath-disabled-tests",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .output()
        .expect("run cargo tree");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "cargo tree failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let packages: BTreeSet<&str> = stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let expected: BTreeSet<&str> = ["hotpath", "hotpath-disabled-tests", "hotpath-macros"]
        .into_iter()
        .collect();
    assert_eq!(packages, expected, "cargo tree printed:\n{stdout}");
}

// http!, axum!, tokio_runtime!: without the feature, the value itself and nothing.
#[test]
fn service_macros_are_the_identity() {
    // Any value stands for a client without the feature: it is returned as is.
    let client = vec![1u8, 2];
    let same: Vec<u8> = hotpath::http!(client);
    assert_eq!(same, [1, 2]);
    let labelled: &str = hotpath::http!("client", label = "billing");
    assert_eq!(labelled, "client");
    let timed: u32 = hotpath::http!(7u32, body = true);
    assert_eq!(timed, 7);
    let both: &str = hotpath::http!("client", label = "billing", body = true);
    assert_eq!(both, "client");
    // Outside a runtime, with or without a handle-like value: nothing happens.
    hotpath::tokio_runtime!();
    let handle = 7u8;
    hotpath::tokio_runtime!(&handle);
    hotpath::tokio_runtime!(&handle, label = "io");
    // axum!(router) is the router itself: any value stands for one, and comes back as
    // the same value (its buffer not copied), not a router with a layer added. With
    // `axum-0-8` on too (`scripts/test-all`'s integrations step runs this file with
    // `--features axum-0-8`) it is still the argument: the layer is added with
    // `hotpath` alone.
    let router = vec![3u8];
    let buffer = router.as_ptr();
    let same: Vec<u8> = hotpath::axum!(router);
    assert_eq!((same.as_ptr(), same), (buffer, vec![3]));
    let borrowed: &str = hotpath::axum!("router",);
    assert_eq!(borrowed, "router");
}

/// `AxumLayer` and `HttpServerLayer` without the feature return the service they wrap,
/// as hotpath 0.30's `AxumLayer` does: its responses and bodies are its own types.
#[cfg(feature = "axum-0-8")]
#[test]
fn the_server_layers_return_the_service_itself() {
    use tower_layer::Layer;
    let service = vec![5u8, 6];
    let buffer = service.as_ptr();
    let same: Vec<u8> = hotpath::AxumLayer::new().layer(service);
    assert_eq!((same.as_ptr(), same.clone()), (buffer, vec![5, 6]));
    let again: Vec<u8> = hotpath::HttpServerLayer::new().layer(same);
    assert_eq!((again.as_ptr(), again), (buffer, vec![5, 6]));
}

/// hotpath 0.30's `wrap::reqwest` paths name the client `http!` gives: without the
/// feature, reqwest's own `Client` (and its `Error` and `RequestBuilder`), so a program
/// that writes `let c: hotpath::wrap::reqwest::Client = hotpath::http!(...)` builds in
/// both states (`scripts/test-all`'s integrations step runs this with
/// `--features axum-0-8,reqwest-0-13`; tests/service/src/bin/http.rs names them with `hotpath` on).
#[cfg(feature = "reqwest-0-13")]
#[test]
fn wrap_reqwest_names_reqwest_s_own_client() {
    let client: hotpath::wrap::reqwest::Client = hotpath::http!(reqwest_013::Client::new());
    let plain: reqwest_013::Client = client;
    let also: hotpath::wrap::reqwest_013::Client = plain.clone();
    let request: hotpath::wrap::reqwest::RequestBuilder = also.get("http://127.0.0.1:9/");
    let built: Result<reqwest_013::Request, hotpath::wrap::reqwest::Error> = request.build();
    assert_eq!(built.expect("a valid request").url().port(), Some(9));
}
