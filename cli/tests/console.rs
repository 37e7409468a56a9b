//! The console without a terminal: an `App` fed with a fixed report, driven by keys and
//! drawn on ratatui's `TestBackend` at 120×30. Screens are reviewed as insta snapshots
//! (`cargo insta review` after a deliberate change); key handling is asserted exactly.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hotpath_report::{
    AllocTotal, CpuInfo, Function, FunctionAlloc, FunctionCpu, FunctionIo, IoDirection, IoEntry,
    Percentiles, ProcessMemory, ProfilerStatus, Report, Section, StackPath, ThreadRow, WallNs,
    SCHEMA_VERSION,
};
mod common;

use hotpath_cli::client::{self, Unreachable};
use hotpath_cli::console::{ui, App, Control, FetchResult, Level, Snapshot, Sort, Tab, View};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::Terminal;

const PS: [f64; 3] = [50.0, 95.0, 99.0];

/// 2023-11-14 22:13:20 UTC.
fn at() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_700_000_000)
}

fn pcts(values: [u64; 3]) -> Percentiles {
    Percentiles(PS.iter().copied().zip(values).collect())
}

fn wall(total: u64, self_: u64, mean: u64, min: u64, max: u64, p: [u64; 3]) -> Option<WallNs> {
    Some(WallNs {
        total,
        self_,
        mean,
        min,
        max,
        percentiles: pcts(p),
        hist: None,
    })
}

fn func(name: &str, line: u32, calls: u64, wall_ns: Option<WallNs>) -> Function {
    Function {
        line,
        ..common::function(name, calls, wall_ns)
    }
}

fn alloc(count: u64, bytes: u64, self_bytes: u64, freed: u64, calls: u64) -> Option<FunctionAlloc> {
    Some(FunctionAlloc {
        count,
        bytes,
        self_count: count,
        self_bytes,
        freed_bytes: freed,
        retained_bytes: bytes as i64 - freed as i64,
        per_call_count: count as f64 / calls as f64,
        per_call_bytes: bytes / calls,
        percentiles: pcts([bytes / calls, bytes / calls, bytes / calls]),
        hist: None,
    })
}

fn cpu(cpu_ns: u64, self_cpu_ns: u64, wall: u64) -> Option<FunctionCpu> {
    common::cpu(cpu_ns, self_cpu_ns, wall)
}

/// Timed operations with `total_ns` spent inside them, every one timed.
fn dir(ops: u64, bytes: u64, errors: u64, total_ns: u64, p: [u64; 3]) -> IoDirection {
    IoDirection {
        ops,
        bytes,
        errors,
        timed_ops: ops,
        total_ns,
        mean_ns: (ops > 0).then(|| total_ns / ops),
        rate_bytes_per_sec: (total_ns > 0).then(|| bytes as f64 * 1e9 / total_ns as f64),
        percentiles: if ops > 0 {
            pcts(p)
        } else {
            Percentiles::default()
        },
        hist: None,
    }
}

fn thread(name: &str, tid: u64, state: &str, avg: f64, user_ms: u64, sys_ms: u64) -> ThreadRow {
    ThreadRow {
        name: name.into(),
        tid,
        state: state.into(),
        cpu_percent_avg: avg,
        cpu_percent_max: avg + 1.5,
        user_ns: user_ms * 1_000_000,
        system_ns: sys_ms * 1_000_000,
        alloc_bytes: Some(user_ms * 1024),
        freed_bytes: Some(user_ms * 512),
        profiler: false,
    }
}

/// A two-second run with every section: five functions (one async, one labelled, one
/// counted but never timed), two I/O streams and three threads.
fn report() -> Report {
    let mut main = func(
        "app::main",
        5,
        1,
        wall(
            2_000_000_000,
            100_000_000,
            2_000_000_000,
            2_000_000_000,
            2_000_000_000,
            [2_000_000_000; 3],
        ),
    );
    main.alloc = alloc(1_200, 48 << 20, 2 << 20, 40 << 20, 1);
    main.cpu = cpu(1_500_000_000, 90_000_000, 2_000_000_000);

    let mut fetch = func(
        "app::net::fetch",
        40,
        16,
        wall(
            960_000_000,
            12_000_000,
            60_000_000,
            51_000_000,
            79_000_000,
            [59_000_000, 77_000_000, 79_000_000],
        ),
    );
    fetch.is_async = true;
    fetch.polls = Some(48);
    fetch.busy_ns = Some(24_000_000);
    fetch.cancelled = Some(0);
    fetch.alloc = alloc(32, 48_000, 48_000, 48_000, 16);
    fetch.cpu = cpu(20_000_000, 20_000_000, 960_000_000);
    fetch.io = Some(FunctionIo {
        read_bytes: 607,
        write_bytes: 512 << 10,
        io_ns: 204_000_000,
    });

    let mut parse = func(
        "app::parse::parse_line",
        80,
        200_000,
        wall(
            400_000_000,
            400_000_000,
            2_000,
            150,
            98_000,
            [1_900, 2_600, 19_000],
        ),
    );
    parse.alloc = alloc(200_000, 6_400_000, 6_400_000, 0, 200_000);
    parse.cpu = cpu(390_000_000, 390_000_000, 400_000_000);
    parse.io = Some(FunctionIo {
        read_bytes: 36_300_000,
        write_bytes: 0,
        io_ns: 3_790_000,
    });

    let mut checksum = func(
        "app::verify",
        120,
        1,
        wall(
            8_120_000,
            8_120_000,
            8_120_000,
            8_120_000,
            8_120_000,
            [8_120_000; 3],
        ),
    );
    checksum.label = Some("checksum".into());

    let mut tiny = func("app::tiny", 150, 5_000_000, None);
    tiny.timed_calls = 0;
    tiny.sampled = true;

    let dataset = IoEntry {
        name: "dataset file".into(),
        file: "src/main.rs".into(),
        line: 171,
        type_name: "std::fs::File".into(),
        instances: 1,
        read: dir(23, 36_300_000, 0, 3_900_000, [4_440, 833_000, 1_770_000]),
        write: dir(554, 36_300_000, 0, 14_600_000, [20_900, 61_500, 89_900]),
        flush: dir(1, 0, 0, 2_000, [2_000; 3]),
        shutdown: IoDirection::default(),
        seek: dir(2, 0, 0, 1_000, [500; 3]),
    };
    let service = IoEntry {
        name: "metadata service".into(),
        file: "src/net.rs".into(),
        line: 30,
        type_name: "tokio::net::tcp::stream::TcpStream".into(),
        instances: 16,
        read: dir(623, 607, 1, 203_000_000, [555, 297_000, 12_700_000]),
        write: dir(49, 512 << 10, 0, 955_000, [10_800, 27_600, 279_000]),
        flush: IoDirection::default(),
        shutdown: dir(16, 0, 0, 160_000, [10_000; 3]),
        seek: IoDirection::default(),
    };

    let mut profiler = thread("hotpath-threads", 4250, "sleeping", 0.1, 2, 1);
    profiler.profiler = true;
    profiler.alloc_bytes = None;
    profiler.freed_bytes = None;

    Report {
        schema_version: SCHEMA_VERSION,
        caller: "app::main".into(),
        label: None,
        elapsed_ns: 2_000_000_000,
        sections: vec![
            Section::Timing,
            Section::Alloc,
            Section::Cpu,
            Section::Io,
            Section::Threads,
        ],
        percentiles: PS.to_vec(),
        overhead_per_call_ns: 24.6,
        overhead_ns: 5_540_000,
        clock_floor_ns: None,
        clock: "tsc".into(),
        time_sampling_rate: 1.0,
        io_time_sampling_rate: Some(1.0),
        notes: vec![],
        alloc_total: Some(AllocTotal {
            count: 201_300,
            bytes: 55 << 20,
            freed_bytes: 41 << 20,
            unattributed_count: 68,
            unattributed_bytes: 330,
            unattributed_freed_bytes: 0,
        }),
        cpu: Some(CpuInfo {
            mode: "sampled".into(),
            source: "timer_create(CLOCK_THREAD_CPUTIME_ID)".into(),
            hz: Some(1000),
            fallback_reason: None,
            hw_counters_unavailable: Some("sampled mode".into()),
            process_cpu_ns: 1_620_000_000,
            sampled_cpu_ns: Some(1_600_000_000),
            unattributed_cpu_ns: 30_000_000,
        }),
        functions: vec![main, fetch, parse, checksum, tiny],
        io: Some(vec![dataset, service]),
        channels: None,
        streams: None,
        futures: None,
        threads: Some(vec![
            thread("app", 4242, "running", 75.0, 1_400, 100),
            thread("tokio-rt-worker", 4245, "sleeping", 1.0, 15, 5),
            thread("anomaly-scan", 4247, "exited", 60.0, 120, 0),
            profiler,
        ]),
        process_memory: Some(ProcessMemory {
            rss_bytes: 12 << 20,
            peak_rss_bytes: 99 << 20,
        }),
        ..Report::default()
    }
}

fn status() -> ProfilerStatus {
    ProfilerStatus {
        schema_version: SCHEMA_VERSION,
        version: "0.1.0".into(),
        pid: 4242,
        caller: "app::main".into(),
        uptime_ns: 2_000_000_000,
        sections: vec![
            Section::Timing,
            Section::Alloc,
            Section::Cpu,
            Section::Io,
            Section::Threads,
        ],
        features: ["hotpath", "hotpath-alloc", "hotpath-cpu"]
            .map(String::from)
            .to_vec(),
        cpu_mode: Some("sampled".into()),
        cpu_source: Some("timer_create(CLOCK_THREAD_CPUTIME_ID)".into()),
        clock: "tsc".into(),
        time_sampling_rate: 1.0,
    }
}

fn ok(report: Report, status: ProfilerStatus, at: SystemTime) -> FetchResult {
    FetchResult {
        at,
        outcome: Ok(Snapshot { status, report }),
    }
}

fn failed(error: client::Error, at: SystemTime) -> FetchResult {
    FetchResult {
        at,
        outcome: Err(error),
    }
}

fn refused() -> client::Error {
    client::Error::Unreachable {
        addr: "127.0.0.1:6770".into(),
        reason: Unreachable::Refused,
    }
}

/// An app that has received `report` and `status` once, at [`at`].
fn app_with(report: Report, status: ProfilerStatus) -> App {
    let mut app = App::new("127.0.0.1", 6770);
    app.update(ok(report, status, at()));
    app.tick(at());
    app
}

fn app() -> App {
    app_with(report(), status())
}

const WIDTH: u16 = 120;
const HEIGHT: u16 = 30;

/// Draws the app as `run` does (page size first) and returns the screen.
fn render(app: &mut App) -> String {
    render_at(app, WIDTH, HEIGHT)
}

fn render_at(app: &mut App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    app.set_page(ui::table_rows(
        ratatui::layout::Rect::new(0, 0, width, height),
        app,
    ));
    terminal.draw(|f| ui::draw(f, app)).unwrap();
    terminal.backend().to_string()
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn press(app: &mut App, codes: &[KeyCode]) -> Control {
    let mut last = Control::Continue;
    for c in codes {
        last = app.handle_key(key(*c));
    }
    last
}

fn ch(c: char) -> KeyCode {
    KeyCode::Char(c)
}

// Screens.

#[test]
fn functions_timing() {
    let mut app = app();
    insta::assert_snapshot!(render(&mut app));
}

#[test]
fn functions_timing_sorted_by_calls() {
    let mut app = app();
    // Total → Self → % Total → Function → Calls.
    press(&mut app, &[ch('s'), ch('s'), ch('s'), ch('s')]);
    assert_eq!(
        app.sort(),
        Some(Sort {
            column: 1,
            descending: true
        })
    );
    insta::assert_snapshot!(render(&mut app));
}

#[test]
fn functions_memory() {
    let mut app = app();
    press(&mut app, &[KeyCode::Right]);
    assert_eq!(app.view(), View::Memory);
    insta::assert_snapshot!(render(&mut app));
}

#[test]
fn functions_memory_without_alloc_section() {
    let mut r = report();
    r.sections.retain(|s| s != "alloc");
    r.alloc_total = None;
    for f in &mut r.functions {
        f.alloc = None;
    }
    let mut s = status();
    s.sections.retain(|s| s != "alloc");
    s.features.retain(|f| f != "hotpath-alloc");
    let mut app = app_with(r, s);
    press(&mut app, &[KeyCode::Right]);
    insta::assert_snapshot!(render(&mut app));
}

#[test]
fn memory_view_says_why_when_the_feature_is_in_but_nothing_is_tracked() {
    let mut r = report();
    r.sections.retain(|s| s != "alloc");
    r.alloc_total = None;
    let mut s = status();
    s.sections.retain(|s| s != "alloc");
    let mut app = app_with(r, s);
    press(&mut app, &[KeyCode::Right]);
    let screen = render(&mut app);
    assert!(
        screen.contains("no alloc section: allocations are not tracked (with allocator = none"),
        "{screen}"
    );
}

#[test]
fn functions_cpu() {
    let mut app = app();
    press(&mut app, &[KeyCode::Right, KeyCode::Right]);
    assert_eq!(app.view(), View::Cpu);
    insta::assert_snapshot!(render(&mut app));
}

#[test]
fn io_streams() {
    let mut app = app();
    press(&mut app, &[ch('2')]);
    insta::assert_snapshot!(render(&mut app));
}

#[test]
fn io_by_function() {
    let mut app = app();
    press(&mut app, &[ch('2'), KeyCode::Right]);
    assert_eq!(app.view(), View::IoFunctions);
    insta::assert_snapshot!(render(&mut app));
}

#[test]
fn threads() {
    let mut app = app();
    press(&mut app, &[ch('4')]);
    insta::assert_snapshot!(render(&mut app));
}

/// The tree of paths: `main` (1 ms self) calls `parse` x10 (10 ms self), which calls
/// `read` x10 (20 ms); `main` calls `render` once (1 ms).
fn with_stacks() -> App {
    let p = |path: &[&str], calls: u64, total: u64, self_: u64| StackPath {
        path: path.iter().map(|s| s.to_string()).collect(),
        calls,
        total_ns: total * 1_000_000,
        self_ns: self_ * 1_000_000,
        cpu_ns: None,
        self_cpu_ns: None,
    };
    let mut r = report();
    r.stacks = Some(vec![
        p(&["app::main"], 1, 32, 1),
        p(&["app::main", "app::parse"], 10, 30, 10),
        p(&["app::main", "app::parse", "app::read"], 10, 20, 20),
        p(&["app::main", "app::render"], 1, 1, 1),
    ]);
    r.sections.push(Section::Stacks);
    let mut st = status();
    st.sections.push(Section::Stacks);
    app_with(r, st)
}

#[test]
fn stacks_tree() {
    let mut app = with_stacks();
    press(&mut app, &[KeyCode::Left]);
    assert_eq!(app.view(), View::Stacks);
    // Depth first, by total: the tree.
    assert_eq!(
        app.row_names(),
        [
            "app::main",
            "  app::parse",
            "    app::read",
            "  app::render"
        ]
    );
    insta::assert_snapshot!(render(&mut app));
    // Another column lists the paths, e.g. by self time.
    press(&mut app, &[ch('s'), ch('s'), ch('s')]);
    assert_eq!(app.row_names()[0], "    app::read");
}

#[test]
fn inspect_stack_path() {
    let mut app = with_stacks();
    press(
        &mut app,
        &[KeyCode::Left, KeyCode::Down, KeyCode::Down, KeyCode::Enter],
    );
    insta::assert_snapshot!(render(&mut app));
}

#[test]
fn stacks_view_says_how_to_turn_them_on() {
    let (mut r, mut st) = (report(), status());
    r.sections.retain(|s| *s != Section::Stacks);
    st.sections.retain(|s| *s != Section::Stacks);
    let mut app = app_with(r, st);
    press(&mut app, &[KeyCode::Left]);
    let screen = render(&mut app);
    assert!(screen.contains("HOTPATH_STACKS=1"), "{screen}");
}

#[test]
fn inspect_function() {
    let mut app = app();
    press(&mut app, &[KeyCode::Down, KeyCode::Enter]);
    assert!(app.inspecting());
    insta::assert_snapshot!(render(&mut app));
}

#[test]
fn inspect_io_entry() {
    let mut app = app();
    press(&mut app, &[ch('2'), ch('i')]);
    insta::assert_snapshot!(render(&mut app));
}

#[test]
fn inspect_thread() {
    let mut app = app();
    press(&mut app, &[ch('4'), KeyCode::End, KeyCode::Enter]);
    insta::assert_snapshot!(render(&mut app));
}

#[test]
fn columns_that_do_not_fit_are_left_out_whole() {
    let mut app = app();
    let screen = render_at(&mut app, 80, 12);
    assert!(
        screen.contains("(5 rows); 2 columns off screen"),
        "{screen}"
    );
    insta::assert_snapshot!(screen);
}

#[test]
fn unreachable_keeps_stale_data() {
    let mut app = app();
    app.update(failed(refused(), at() + Duration::from_secs(5)));
    app.tick(at() + Duration::from_secs(35));
    let status = app.status();
    assert_eq!(status.level, Level::Stale);
    assert_eq!(
        status.text,
        "the program has exited or stopped answering (connection refused); \
         showing the data from 22:13:20 UTC (35.0 s ago)"
    );
    insta::assert_snapshot!(render(&mut app));
}

#[test]
fn unauthorized() {
    let mut app = App::new("127.0.0.1", 6770);
    app.update(failed(
        client::Error::Unauthorized {
            route: "/profiler_status".into(),
            token_sent: false,
        },
        at(),
    ));
    assert_eq!(app.status().level, Level::Error);
    insta::assert_snapshot!(render(&mut app));
}

#[test]
fn unreachable_before_any_data() {
    let mut app = App::new("127.0.0.1", 6770);
    assert_eq!(app.status().level, Level::Waiting);
    app.update(failed(refused(), at()));
    let status = app.status();
    assert_eq!(status.level, Level::Error);
    assert_eq!(
        status.text,
        "cannot reach 127.0.0.1:6770 (connection refused): \
         is the program running with HOTPATH_METRICS_PORT=6770?"
    );
    let mut remote = App::new("10.0.0.7", 9000);
    remote.update(failed(
        client::Error::Unreachable {
            addr: "10.0.0.7:9000".into(),
            reason: Unreachable::TimedOut,
        },
        at(),
    ));
    assert_eq!(
        remote.status().text,
        "cannot reach 10.0.0.7:9000 (timed out): \
         is the program running with HOTPATH_METRICS_HOST=10.0.0.7 HOTPATH_METRICS_PORT=9000?"
    );
    // Keys do nothing harmful without data.
    assert_eq!(
        press(&mut app, &[KeyCode::Down, ch('s'), ch('r'), KeyCode::End]),
        Control::Continue
    );
    assert_eq!(app.selected(), 0);
    assert_eq!(app.row_names(), Vec::<String>::new());
}

#[test]
fn a_good_refresh_after_an_error_reads_connected() {
    let mut app = app();
    app.update(failed(refused(), at() + Duration::from_secs(1)));
    app.update(ok(report(), status(), at() + Duration::from_secs(2)));
    let status = app.status();
    assert_eq!(status.level, Level::Connected);
    assert_eq!(
        status.text,
        "connected to 127.0.0.1:6770, refreshed 22:13:22 UTC"
    );
}

// Keys.

const BY_TOTAL: [&str; 5] = [
    "app::main",
    "app::net::fetch (async)",
    "app::parse::parse_line",
    "checksum",
    "app::tiny *",
];

#[test]
fn default_sort_is_the_exit_reports() {
    let mut app = app();
    assert_eq!(app.row_names(), BY_TOTAL);
    press(&mut app, &[ch('2')]);
    assert_eq!(app.row_names(), ["dataset file", "metadata service"]);
    press(&mut app, &[KeyCode::Right]);
    assert_eq!(
        app.row_names(),
        ["app::net::fetch (async)", "app::parse::parse_line"]
    );
    press(&mut app, &[ch('4')]);
    assert_eq!(
        app.row_names(),
        [
            "app",
            "anomaly-scan",
            "tokio-rt-worker",
            "hotpath-threads (profiler)"
        ]
    );
}

#[test]
fn s_cycles_the_sort_column_and_r_reverses() {
    let mut app = app();
    // Self, largest first; the count-only row has no value and stays last.
    press(&mut app, &[ch('s')]);
    assert_eq!(
        app.sort(),
        Some(Sort {
            column: 7,
            descending: true
        })
    );
    assert_eq!(
        app.row_names(),
        [
            "app::parse::parse_line",
            "app::main",
            "app::net::fetch (async)",
            "checksum",
            "app::tiny *"
        ]
    );
    press(&mut app, &[ch('r')]);
    assert_eq!(
        app.row_names(),
        [
            "checksum",
            "app::net::fetch (async)",
            "app::main",
            "app::parse::parse_line",
            "app::tiny *"
        ]
    );
    // % Total, then Function: text sorts A to Z first.
    press(&mut app, &[ch('s'), ch('s')]);
    assert_eq!(
        app.sort(),
        Some(Sort {
            column: 0,
            descending: false
        })
    );
    assert_eq!(
        app.row_names(),
        [
            "app::main",
            "app::net::fetch (async)",
            "app::parse::parse_line",
            "app::tiny *",
            "checksum"
        ]
    );
    // S goes back to % Total, largest first.
    press(&mut app, &[ch('S')]);
    assert_eq!(
        app.sort(),
        Some(Sort {
            column: 8,
            descending: true
        })
    );
    assert_eq!(app.row_names(), BY_TOTAL);
    // Each view keeps its own sort: Memory is by Total bytes.
    press(&mut app, &[KeyCode::Right]);
    assert_eq!(
        app.sort(),
        Some(Sort {
            column: 4,
            descending: true
        })
    );
    assert_eq!(
        app.row_names(),
        [
            "app::main",
            "app::parse::parse_line",
            "app::net::fetch (async)"
        ]
    );
}

#[test]
fn the_selection_follows_its_row_when_the_order_changes() {
    let mut app = app();
    press(&mut app, &[KeyCode::Down, KeyCode::Down]);
    assert_eq!(app.selected(), 2);
    // Sorting by Self moves parse_line to the top; it stays selected.
    press(&mut app, &[ch('s')]);
    assert_eq!(app.selected(), 0);
    // Back to by Total, select fetch: a refresh in which fetch outgrows main moves
    // fetch to the top, and the selection with it.
    press(&mut app, &[ch('S'), KeyCode::Home, KeyCode::Down]);
    assert_eq!(app.row_names()[app.selected()], "app::net::fetch (async)");
    let mut r = report();
    r.functions[1].wall_ns.as_mut().unwrap().total = 3_000_000_000;
    app.update(ok(r, status(), at() + Duration::from_secs(1)));
    assert_eq!(app.row_names()[0], "app::net::fetch (async)");
    assert_eq!(app.selected(), 0);
    // A refresh without the selected row keeps the position, within the table.
    let mut r = report();
    r.functions.truncate(1);
    app.update(ok(r, status(), at() + Duration::from_secs(2)));
    assert_eq!(app.selected(), 0);
}

#[test]
fn selection_stays_within_the_table() {
    let mut app = app();
    app.set_page(2);
    press(&mut app, &[KeyCode::Up, ch('k')]);
    assert_eq!(app.selected(), 0);
    press(&mut app, &[KeyCode::Down, ch('j')]);
    assert_eq!(app.selected(), 2);
    assert_eq!(app.offset(), 1, "the selected row is on screen");
    press(&mut app, &[KeyCode::End]);
    assert_eq!(app.selected(), 4);
    assert_eq!(app.offset(), 3);
    press(&mut app, &[KeyCode::Down, KeyCode::PageDown]);
    assert_eq!(app.selected(), 4);
    press(&mut app, &[KeyCode::PageUp]);
    assert_eq!(app.selected(), 2);
    press(&mut app, &[KeyCode::PageUp, KeyCode::PageUp]);
    assert_eq!(app.selected(), 0);
    assert_eq!(app.offset(), 0);
    press(&mut app, &[ch('G')]);
    assert_eq!(app.selected(), 4);
    press(&mut app, &[KeyCode::Home]);
    assert_eq!(app.selected(), 0);
    // Each view has its own selection.
    press(&mut app, &[ch('2'), KeyCode::Down, KeyCode::Down]);
    assert_eq!(app.selected(), 1);
    press(&mut app, &[ch('1')]);
    assert_eq!(app.selected(), 0);
}

/// A report with one channel, one stream and one future.
fn data_flow_report() -> Report {
    use hotpath_report::{ChannelEntry, DistNs, FutureEntry, SendBlocked, StreamEntry};
    let dist = |mean: u64| DistNs {
        count: 10,
        total: mean * 10,
        mean,
        min: mean / 2,
        max: mean * 2,
        percentiles: pcts([mean, mean * 2, mean * 2]),
        hist: None,
    };
    let mut r = report();
    r.sections
        .extend([Section::Channels, Section::Streams, Section::Futures]);
    r.channels = Some(vec![ChannelEntry {
        name: "jobs".into(),
        label: Some("jobs".into()),
        file: "src/main.rs".into(),
        line: 10,
        type_name: "u64".into(),
        instances: 1,
        backend: "tokio".into(),
        kind: "bounded".into(),
        capacity: Some(10),
        sent: 1_000,
        received: 1_000,
        send_errors: 0,
        unread: 0,
        max_depth: 10,
        lagged: 0,
        send_blocked: SendBlocked {
            count: 980,
            total_ns: 1_060_000_000,
            max_ns: 2_000_000,
        },
        latency_ns: Some(dist(11_400_000)),
    }]);
    r.streams = Some(vec![StreamEntry {
        name: "rows".into(),
        label: Some("rows".into()),
        file: "src/db.rs".into(),
        line: 20,
        type_name: "Row".into(),
        instances: 3,
        items: 3_000,
        polls: 3_003,
        pending: 0,
        completed: 3,
        dropped: 0,
        first_item_ns: Some(dist(40_000)),
        busy_ns: 3_000_000,
    }]);
    r.futures = Some(vec![FutureEntry {
        name: "app::fetch".into(),
        label: None,
        file: "src/net.rs".into(),
        line: 30,
        calls: 10,
        polls: 20,
        completed: 9,
        cancelled: 1,
        never_polled: 0,
        lifetime_ns: Some(dist(5_000_000)),
        busy_ns: Some(dist(20_000)),
    }]);
    r
}

#[test]
fn data_flow_tab_shows_channels_streams_and_futures() {
    let mut app = app_with(data_flow_report(), status());
    press(&mut app, &[ch('3')]);
    let channels = render(&mut app);
    assert!(channels.contains("[Channels]"), "{channels}");
    let row = channels
        .lines()
        .find(|l| l.contains("jobs"))
        .expect("a jobs row");
    for cell in ["tokio", "bounded[10]", "1,000", "980", "1.06 s", "11.4 ms"] {
        assert!(row.contains(cell), "{cell} in {row}");
    }
    press(&mut app, &[KeyCode::Enter]);
    let inspect = render(&mut app);
    assert!(
        inspect.contains("max depth") && inspect.contains("u64"),
        "{inspect}"
    );
    press(&mut app, &[KeyCode::Esc, KeyCode::Right]);
    let streams = render(&mut app);
    let row = streams
        .lines()
        .find(|l| l.contains("rows") && l.contains("3,003"))
        .unwrap_or_else(|| panic!("a rows row in {streams}"));
    for cell in ["3,000", "3,003", "3.00 ms"] {
        assert!(row.contains(cell), "{cell} in {row}");
    }
    press(&mut app, &[KeyCode::Right]);
    let futures = render(&mut app);
    let row = futures
        .lines()
        .find(|l| l.contains("app::fetch"))
        .expect("a fetch row");
    for cell in ["10", "9", "2.00", "5.00 ms"] {
        assert!(row.contains(cell), "{cell} in {row}");
    }
}

#[test]
fn data_flow_tab_says_why_it_is_empty() {
    // A session that reports channels, before any channel! has made one.
    let mut session = status();
    session.sections.push(Section::Channels);
    let mut app = app_with(report(), session);
    press(&mut app, &[ch('3')]);
    let text = render(&mut app);
    assert!(
        text.contains("no channels section yet: no hotpath::channel! has made a channel so far"),
        "{text}"
    );
    // One that leaves it out says so.
    let mut without = app_with(report(), status());
    press(&mut without, &[ch('3')]);
    let text = render(&mut without);
    assert!(
        text.contains("no channels section: HOTPATH_REPORT leaves channels out"),
        "{text}"
    );
}

#[test]
fn tabs_and_views() {
    let mut app = app();
    assert_eq!((app.tab(), app.view()), (Tab::Functions, View::Timing));
    press(&mut app, &[KeyCode::Tab]);
    assert_eq!((app.tab(), app.view()), (Tab::Io, View::IoStreams));
    press(&mut app, &[KeyCode::Tab]);
    assert_eq!((app.tab(), app.view()), (Tab::DataFlow, View::Channels));
    press(&mut app, &[KeyCode::Tab]);
    assert_eq!((app.tab(), app.view()), (Tab::Threads, View::Threads));
    press(&mut app, &[KeyCode::Tab]);
    assert_eq!((app.tab(), app.view()), (Tab::Debug, View::Debug));
    press(&mut app, &[KeyCode::Tab]);
    assert_eq!(app.tab(), Tab::Functions);
    press(&mut app, &[KeyCode::BackTab]);
    assert_eq!(app.tab(), Tab::Debug);
    press(&mut app, &[KeyCode::BackTab]);
    assert_eq!(app.tab(), Tab::Threads);
    press(&mut app, &[ch('3'), KeyCode::Right]);
    assert_eq!((app.tab(), app.view()), (Tab::DataFlow, View::Streams));
    press(&mut app, &[KeyCode::Right, KeyCode::Right, KeyCode::Right]);
    assert_eq!(app.view(), View::RwLocks);
    press(&mut app, &[KeyCode::Right]);
    assert_eq!(app.view(), View::Channels, "the views of a tab cycle");
    press(&mut app, &[ch('2')]);
    assert_eq!(app.tab(), Tab::Io);
    press(&mut app, &[ch('6')]);
    assert_eq!(app.tab(), Tab::Io, "no sixth tab");
    press(&mut app, &[ch('1')]);
    // ← and → cycle the views of the tab, h and l too.
    press(&mut app, &[KeyCode::Left]);
    assert_eq!(app.view(), View::Stacks);
    press(&mut app, &[KeyCode::Right]);
    assert_eq!(app.view(), View::Timing);
    press(&mut app, &[ch('l'), ch('l')]);
    assert_eq!(app.view(), View::Cpu);
    press(&mut app, &[ch('h')]);
    assert_eq!(app.view(), View::Memory);
    // A tab remembers its view.
    press(&mut app, &[ch('3'), KeyCode::Right, ch('1')]);
    assert_eq!((app.tab(), app.view()), (Tab::Functions, View::Memory));
}

#[test]
fn quit_keys() {
    let mut app = app();
    assert_eq!(press(&mut app, &[ch('q')]), Control::Quit);
    assert_eq!(
        app.handle_key(KeyEvent::new(ch('c'), KeyModifiers::CONTROL)),
        Control::Quit
    );
    // Esc closes the inspect pane first, then quits.
    assert_eq!(press(&mut app, &[KeyCode::Enter]), Control::Continue);
    assert!(app.inspecting());
    assert_eq!(press(&mut app, &[KeyCode::Esc]), Control::Continue);
    assert!(!app.inspecting());
    assert_eq!(press(&mut app, &[KeyCode::Esc]), Control::Quit);
    // Other keys, and key releases, do not quit.
    assert_eq!(
        press(&mut app, &[ch('x'), KeyCode::F(1)]),
        Control::Continue
    );
    let mut release = key(ch('q'));
    release.kind = KeyEventKind::Release;
    assert_eq!(app.handle_key(release), Control::Continue);
}

#[test]
fn enter_and_i_toggle_the_inspect_pane() {
    let mut app = app();
    press(&mut app, &[ch('i')]);
    assert!(app.inspecting());
    press(&mut app, &[ch('i')]);
    assert!(!app.inspecting());
    press(&mut app, &[KeyCode::Enter, KeyCode::Enter]);
    assert!(!app.inspecting());
}

/// `report()` `seconds` later, `parse_line` having spent `parse_ns` more in that time.
fn later(prev: &Report, seconds: u64, parse_ns: u64) -> Report {
    let mut r = prev.clone();
    r.elapsed_ns += seconds * 1_000_000_000;
    let parse = r
        .functions
        .iter_mut()
        .find(|f| f.name == "app::parse::parse_line")
        .unwrap();
    parse.wall_ns.as_mut().unwrap().total += parse_ns;
    r
}

#[test]
fn now_and_trend_show_each_refresh_interval() {
    let mut app = app();
    // One report: no interval, no columns.
    assert!(!render_at(&mut app, 200, HEIGHT).contains("Trend"));
    // parse_line: 500 ms in a 1 s interval, then 500 ms in 2 s; the same report twice
    // (the program between two snapshots) is not an interval.
    let r1 = later(&report(), 1, 500_000_000);
    let r2 = later(&r1, 2, 500_000_000);
    for (r, s) in [(&r1, 5), (&r1, 6), (&r2, 7)] {
        app.update(ok(r.clone(), status(), at() + Duration::from_secs(s)));
    }
    app.tick(at() + Duration::from_secs(7));
    let screen = render_at(&mut app, 200, HEIGHT);
    let line = |name: &str| {
        screen
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("{name}: {screen}"))
            .trim_end_matches(['"', ' ', '│', '┃'])
            .to_string()
    };
    // Now 25.0 %; the trend: 50 % (full bar), then 25 % (half), right-aligned in 20.
    let parse = line("parse_line");
    assert!(
        parse.ends_with(&format!("25.0%  {}█▄", " ".repeat(18))),
        "{parse}"
    );
    // A function that did nothing since: 0 % and a blank trend; one without times: dashes.
    let verify = line("checksum");
    assert!(verify.ends_with("  0.0%"), "{verify}");
    let tiny = line("app::tiny");
    assert!(tiny.ends_with(&format!("-  {}-", " ".repeat(19))), "{tiny}");
    assert!(
        screen.contains("Now: wall time since the last refresh"),
        "{screen}"
    );

    // Another process on the same port starts the history again.
    let mut other = status();
    other.pid += 1;
    app.update(ok(report(), other, at() + Duration::from_secs(8)));
    assert!(!render_at(&mut app, 200, HEIGHT).contains("Trend"));
}

/// The fixed report with the service sections: two SQL rows (an N + 1 pair), a client
/// endpoint, two routes and one runtime of two workers.
fn service_report() -> Report {
    let dist = |total: u64, mean: u64, p: [u64; 3]| {
        serde_json::json!({"total": total, "mean": mean, "min": p[0] / 2, "max": p[2] * 2,
            "p50": p[0], "p95": p[1], "p99": p[2]})
    };
    let v = serde_json::json!({
        "sql": [
            {"query": "SELECT name FROM users WHERE id = ?", "source": "app::load_user",
             "backend": "sqlx", "calls": 400, "errors": null, "rows_returned": 400,
             "rows_affected": 0, "per_source_call": 5.0,
             "duration_ns": dist(24_000_000, 60_000, [31_000, 210_000, 460_000]),
             "share_of_wall": 0.012},
            {"query": "SELECT id FROM users ORDER BY id", "source": "app::load_user",
             "backend": "sqlx", "calls": 80, "errors": null, "rows_returned": 400,
             "rows_affected": 0, "per_source_call": 1.0,
             "duration_ns": dist(6_000_000, 75_000, [40_000, 110_000, 150_000]),
             "share_of_wall": 0.003}
        ],
        "http": [
            {"endpoint": "GET 127.0.0.1:8080/users/{id}", "label": null,
             "source": "app::client_run", "client": "reqwest", "calls": 40, "errors": 1,
             "status_1xx": 0, "status_2xx": 38, "status_3xx": 0, "status_4xx": 1,
             "status_5xx": 0, "ttfb_ns": dist(80_000_000, 2_000_000, [560_000, 3_900_000, 39_000_000])}
        ],
        "server": [
            {"route": "GET /users/{id}", "calls": 39, "status_1xx": 0, "status_2xx": 38,
             "status_3xx": 0, "status_4xx": 1, "status_5xx": 0, "aborted": 0, "in_flight": 1,
             "ttfb_ns": dist(8_000_000, 200_000, [220_000, 2_100_000, 39_000_000]),
             "total_ns": dist(9_000_000, 230_000, [230_000, 2_200_000, 39_500_000])},
            {"route": "GET <unmatched>", "calls": 1, "status_1xx": 0, "status_2xx": 0,
             "status_3xx": 0, "status_4xx": 1, "status_5xx": 0, "aborted": 0, "in_flight": 0,
             "ttfb_ns": dist(9_000, 9_000, [9_000, 9_000, 9_000]),
             "total_ns": dist(10_000, 10_000, [10_000, 10_000, 10_000])}
        ],
        "tokio": [
            {"label": null, "flavor": "multi_thread", "workers": 2, "elapsed_ns": 2_000_000_000u64,
             "alive_tasks": {"last": 2, "max": 7, "mean": 3.5, "samples": 20},
             "global_queue_depth": {"last": 0, "max": 6, "mean": 0.4, "samples": 20},
             "worker_stats": [
                {"index": 0, "busy_ns": 612_000_000, "busy_share": 0.306, "parks": 1204,
                 "polls": null, "steals": null, "mean_poll_ns": null, "local_queue_max": null},
                {"index": 1, "busy_ns": 455_000_000, "busy_share": 0.2275, "parks": 1530,
                 "polls": null, "steals": null, "mean_poll_ns": null, "local_queue_max": null}],
             "blocking_threads": null, "spawned_tasks": null, "unstable": false}
        ]
    });
    let mut r = report();
    r.sql = Some(serde_json::from_value(v["sql"].clone()).unwrap());
    r.http = Some(serde_json::from_value(v["http"].clone()).unwrap());
    r.server = Some(serde_json::from_value(v["server"].clone()).unwrap());
    r.tokio = Some(serde_json::from_value(v["tokio"].clone()).unwrap());
    r.sections
        .extend([Section::Sql, Section::Http, Section::Server, Section::Tokio]);
    r
}

#[test]
fn service_views() {
    let mut st = status();
    st.sections
        .extend([Section::Sql, Section::Http, Section::Server, Section::Tokio]);
    let mut app = app_with(service_report(), st);
    press(&mut app, &[ch('2'), KeyCode::Right, KeyCode::Right]);
    assert_eq!(app.view(), View::Sql);
    insta::assert_snapshot!("service_sql", render(&mut app));
    press(&mut app, &[KeyCode::Right]);
    assert_eq!(app.view(), View::Http);
    insta::assert_snapshot!("service_http", render(&mut app));
    press(&mut app, &[KeyCode::Right]);
    assert_eq!(app.view(), View::Server);
    insta::assert_snapshot!("service_server", render(&mut app));
    press(&mut app, &[ch('4'), KeyCode::Right]);
    assert_eq!(app.view(), View::Tokio);
    insta::assert_snapshot!("service_tokio", render(&mut app));
}
