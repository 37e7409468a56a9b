//! The channels, streams and futures sections against programs with known numbers
//! (`src/bin/flow_*.rs`), read back from their JSON reports.
#![cfg(feature = "hotpath")]

use std::process::Command;

use hotpath::report::{ChannelEntry, FutureEntry, Report, Section, StreamEntry};

fn fixture(bin: &str, env: &[(&str, &str)]) -> (Report, String) {
    let mut c = Command::new(bin);
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("HOTPATH_") {
            c.env_remove(k);
        }
    }
    let out = c
        .envs(env.iter().copied())
        .env("HOTPATH_OUTPUT_FORMAT", "json")
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{stderr}");
    let json = String::from_utf8(out.stdout).unwrap();
    let report = Report::from_json(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    (report, stderr)
}

fn channel<'a>(r: &'a Report, name: &str) -> &'a ChannelEntry {
    r.channels
        .as_ref()
        .expect("a channels section")
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no channel {name}"))
}

fn stream<'a>(r: &'a Report, name: &str) -> &'a StreamEntry {
    r.streams
        .as_ref()
        .expect("a streams section")
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no stream {name}"))
}

fn future<'a>(r: &'a Report, label: &str) -> &'a FutureEntry {
    r.futures
        .as_ref()
        .expect("a futures section")
        .iter()
        .find(|e| e.display_name() == label)
        .unwrap_or_else(|| panic!("no future {label}"))
}

const MS: u64 = 1_000_000;

/// The number a fixture printed on stderr as `key=N`.
fn printed(stderr: &str, key: &str) -> u64 {
    stderr
        .split_whitespace()
        .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("the fixture prints {key}: {stderr}"))
        .parse()
        .unwrap()
}

#[test]
fn channels_count_exactly() {
    // Every message timed, so that the latency counts are exact too (the default
    // samples: see `channels_sample_by_default`).
    let (r, stderr) = fixture(
        env!("CARGO_BIN_EXE_flow_channels"),
        &[("HOTPATH_CHANNELS_TIME_SAMPLING_RATE", "1")],
    );
    assert!(r.has(Section::Channels));
    assert_eq!(r.schema_version, hotpath::report::SCHEMA_VERSION);

    // C1: bounded(10), 1000 messages, a consumer sleeping 1 ms after each, taking a
    // message only while the producer sleeps in its send.
    let c1 = channel(&r, "c1");
    assert_eq!((c1.backend.as_str(), c1.kind.as_str()), ("std", "bounded"));
    assert_eq!(c1.capacity, Some(10));
    assert_eq!((c1.instances, c1.sent, c1.received), (1, 1000, 1000));
    assert_eq!((c1.max_depth, c1.unread, c1.send_errors), (10, 0, 0));
    // Every send after the first ten found the channel full and waited.
    assert_eq!(c1.send_blocked.count, 990, "{:?}", c1.send_blocked);
    let b = &c1.send_blocked;
    assert!(b.total_ns > 0 && b.max_ns <= b.total_ns, "{b:?}");
    let lat = c1.latency_ns.as_ref().expect("timed");
    assert_eq!(lat.count, 1000);
    // Ten messages ahead of each one from the eleventh on, each taking at least 1 ms to
    // be taken out; and no more than the program measured around the same messages
    // (within the histogram's resolution, 1/32).
    let p50 = lat.percentiles.get(50.0).unwrap();
    let bound = printed(&stderr, "c1_p50_ns");
    assert!(p50 >= 10 * MS, "p50 {p50}");
    assert!(
        p50 as f64 <= bound as f64 * (1.0 + 1.0 / 32.0),
        "p50 {p50} vs {bound}"
    );

    // C1f: futures-channel channel(10) with one sender holds 11.
    let c1f = channel(&r, "c1f");
    assert_eq!((c1f.backend.as_str(), c1f.capacity), ("futures", Some(10)));
    assert_eq!((c1f.sent, c1f.received, c1f.max_depth), (11, 11, 11));

    // C4: three messages left at close.
    let c4 = channel(&r, "c4");
    assert_eq!((c4.sent, c4.received, c4.unread), (3, 0, 3));

    // C5: five channels from one site: one row; with iter = true five.
    let c5 = channel(&r, "c5");
    assert_eq!((c5.instances, c5.sent, c5.received), (5, 10, 10));
    assert_eq!(c5.kind, "unbounded");
    assert_eq!(c5.max_depth, 2);
    for name in ["c5i", "c5i-2", "c5i-3", "c5i-4", "c5i-5"] {
        let e = channel(&r, name);
        assert_eq!((e.instances, e.sent, e.received), (1, 2, 2), "{name}");
    }

    // C6: four producer threads.
    let c6 = channel(&r, "c6");
    assert_eq!(
        (c6.backend.as_str(), c6.sent, c6.received),
        ("crossbeam", 1000, 1000)
    );

    // C6s: four producers one after another, all unread.
    let c6s = channel(&r, "c6s");
    assert_eq!(
        (
            c6s.sent,
            c6s.received,
            c6s.unread,
            c6s.max_depth,
            c6s.send_errors
        ),
        (1000, 0, 1000, 1000, 1)
    );

    // C7: oneshots: 100 sent and received, one sender dropped unsent, one receiver gone.
    let c7 = channel(&r, "c7");
    assert_eq!((c7.kind.as_str(), c7.instances), ("oneshot", 102));
    assert_eq!((c7.sent, c7.received, c7.send_errors), (100, 100, 1));
    assert_eq!(c7.max_depth, 1);

    // C8: the one message's latency against an independent clock.
    let c8 = channel(&r, "c8").latency_ns.as_ref().expect("timed");
    let bound = printed(&stderr, "c8_bound_ns");
    assert_eq!((c8.count, c8.min), (1, c8.max));
    assert!(c8.min >= 5 * MS && c8.min <= bound, "{} vs {bound}", c8.min);

    // Broadcast: 6 missed; watch: 9 coalesced before `changed`, 4 before `wait_for`.
    let bc = channel(&r, "bc");
    assert_eq!((bc.kind.as_str(), bc.capacity), ("broadcast", Some(4)));
    assert_eq!((bc.sent, bc.received, bc.lagged), (10, 4, 6));
    let wt = channel(&r, "wt");
    assert_eq!(
        (wt.kind.as_str(), wt.sent, wt.received, wt.lagged),
        ("watch", 15, 2, 13)
    );
    assert!(wt.latency_ns.is_none());

    // Tokio permits and recv_many.
    let tk = channel(&r, "tk");
    assert_eq!((tk.backend.as_str(), tk.capacity), ("tokio", Some(8)));
    assert_eq!((tk.sent, tk.received, tk.max_depth), (8, 8, 8));
}

#[test]
fn channels_sample_by_default() {
    // A fixed sampling seed, so that the same messages are timed in every run.
    let (r, _) = fixture(
        env!("CARGO_BIN_EXE_flow_channels"),
        &[("HOTPATH_SAMPLING_SEED", "1")],
    );
    let c1 = channel(&r, "c1");
    assert_eq!((c1.sent, c1.received, c1.max_depth), (1000, 1000, 10));
    // A send that waits is always timed.
    assert_eq!(c1.send_blocked.count, 990);
    assert!(
        c1.send_blocked.total_ns >= 990 * MS / 2,
        "{:?}",
        c1.send_blocked
    );
    // The first 256 messages (the site's warm-up) are timed, then each with probability
    // 1/16, standing for 16: the latency distribution describes about 1000 messages (of
    // the other 744, about 46 are timed, standard deviation 6.6). Every send is on the
    // producer thread, whose sampling starts from the seed alone: with seed 1, 43 of the
    // 744 are timed in every run, 256 + 43 × 16 = 944 messages.
    let lat = c1.latency_ns.as_ref().expect("timed");
    assert_eq!(lat.count, 944, "{lat:?}");
    assert!(lat.percentiles.get(50.0).unwrap() >= 10 * MS, "{lat:?}");
    // A channel with few messages is timed in full.
    let c1f = channel(&r, "c1f");
    let lat = c1f.latency_ns.as_ref().expect("timed");
    assert_eq!((c1f.received, lat.count), (11, 11));
}

/// With a sampling seed, which messages of C1 are timed depends on the seed alone (its
/// sends are all on one thread): the same count twice with seed 1, another with seed 2.
#[test]
fn a_sampling_seed_fixes_the_timed_messages() {
    let count = |seed: &'static str| {
        let (r, _) = fixture(
            env!("CARGO_BIN_EXE_flow_channels"),
            &[("HOTPATH_SAMPLING_SEED", seed)],
        );
        channel(&r, "c1").latency_ns.as_ref().expect("timed").count
    };
    let counts = std::thread::scope(|s| {
        ["1", "1", "2"]
            .map(|seed| s.spawn(move || count(seed)))
            .map(|run| run.join().unwrap())
    });
    // 256 + 43 × 16 and 256 + 56 × 16.
    assert_eq!(counts, [944, 944, 1152]);
}

#[test]
fn channels_count_without_timing_at_rate_0() {
    let (r, _) = fixture(
        env!("CARGO_BIN_EXE_flow_channels"),
        &[("HOTPATH_CHANNELS_TIME_SAMPLING_RATE", "0")],
    );
    let c1 = channel(&r, "c1");
    assert_eq!((c1.sent, c1.received, c1.max_depth), (1000, 1000, 10));
    assert!(c1.latency_ns.is_none());
    assert_eq!((c1.send_blocked.count, c1.send_blocked.total_ns), (990, 0));
}

#[test]
fn streams_count_items_and_polls() {
    let (r, stderr) = fixture(env!("CARGO_BIN_EXE_flow_streams"), &[]);
    assert!(r.has(Section::Streams));
    let s1 = stream(&r, "s1");
    assert_eq!(
        (
            s1.instances,
            s1.items,
            s1.polls,
            s1.pending,
            s1.completed,
            s1.dropped
        ),
        (1, 1000, 1001, 0, 1, 0)
    );
    assert_eq!(s1.type_name, "u32");
    assert_eq!(s1.first_item_ns.as_ref().map(|d| d.count), Some(1));
    let s3 = stream(&r, "s3");
    assert_eq!((s3.items, s3.completed, s3.dropped), (3, 0, 1));
    let s4 = stream(&r, "s4");
    assert_eq!((s4.instances, s4.items, s4.completed), (5, 50, 5));
    for name in ["s4i", "s4i-2", "s4i-3", "s4i-4", "s4i-5"] {
        let e = stream(&r, name);
        assert_eq!((e.instances, e.items, e.polls), (1, 10, 11), "{name}");
    }
    // S5: 1 ms of work in each of ten polls: busy at least 10 ms, the first item at least
    // 1 ms after the first poll; both within what the program measured around it.
    let s5 = stream(&r, "s5");
    assert_eq!((s5.items, s5.polls, s5.completed), (10, 11, 1));
    let measured = printed(&stderr, "s5_ns");
    let busy = s5.busy_ns;
    assert!((10 * MS..=measured).contains(&busy), "{busy} vs {measured}");
    let first = s5.first_item_ns.as_ref().expect("timed");
    assert_eq!((first.count, first.min), (1, first.max));
    assert!(
        (MS..=measured).contains(&first.max),
        "{first:?} vs {measured}"
    );
}

#[test]
fn futures_count_calls_and_outcomes() {
    let (r, stderr) = fixture(env!("CARGO_BIN_EXE_flow_futures"), &[]);
    assert!(r.has(Section::Futures));
    // F1: each lifetime holds a 50 ms sleep and lies inside what the program measured.
    let f1 = future(&r, "f1");
    assert_eq!(
        (f1.calls, f1.completed, f1.cancelled, f1.never_polled),
        (4, 4, 0, 0)
    );
    assert!((8..=12).contains(&f1.polls), "polls {}", f1.polls);
    let life = f1.lifetime_ns.as_ref().unwrap();
    assert_eq!(life.count, 4);
    let f1_max = printed(&stderr, "f1_max_ns");
    assert!(life.min >= 50 * MS, "{life:?}");
    assert!(life.max <= f1_max, "{} vs {f1_max}", life.max);
    assert!(life.percentiles.get(50.0).unwrap() >= 50 * MS);
    // Two polls of a sleep: far less busy than alive.
    let busy = f1.busy_ns.as_ref().unwrap();
    assert!(busy.total < life.total, "{busy:?} {life:?}");

    // F2: cancelled by select! 10 ms after its first poll.
    let f2 = future(&r, "f2");
    assert_eq!((f2.calls, f2.completed, f2.cancelled), (1, 0, 1));
    let life = f2.lifetime_ns.as_ref().unwrap();
    let measured = printed(&stderr, "f2_ns");
    assert_eq!((life.count, life.min), (1, life.max));
    assert!(
        (10 * MS..=measured).contains(&life.max),
        "{} vs {measured}",
        life.max
    );

    let f3 = future(&r, "f3");
    assert_eq!(
        (f3.calls, f3.never_polled, f3.cancelled, f3.completed),
        (1, 1, 0, 0)
    );

    let f7 = future(&r, "f7");
    assert_eq!((f7.calls, f7.polls, f7.completed), (1, 101, 1));

    // #[future_fn] is in the futures section only; #[measure(future = true)] in both.
    let fetched = r
        .futures
        .as_ref()
        .unwrap()
        .iter()
        .find(|e| e.name.ends_with("::fetched"))
        .expect("fetched");
    assert_eq!((fetched.calls, fetched.completed, fetched.polls), (3, 3, 6));
    assert!(!r.functions.iter().any(|f| f.name.ends_with("::fetched")));
    let both = r
        .futures
        .as_ref()
        .unwrap()
        .iter()
        .find(|e| e.name.ends_with("::both"))
        .expect("both");
    assert_eq!(both.calls, 2);
    let f = r
        .functions
        .iter()
        .find(|f| f.name.ends_with("::both"))
        .expect("both in timing");
    assert_eq!((f.calls, f.is_async), (2, true));
}

#[test]
fn the_table_shows_the_three_sections() {
    let out = Command::new(env!("CARGO_BIN_EXE_flow_streams"))
        .env("HOTPATH_OUTPUT_FORMAT", "table")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("streams: items per stream"), "{text}");
    let line = text.lines().find(|l| l.starts_with("s1 ")).expect("row s1");
    let cells: Vec<&str> = line.split_whitespace().collect();
    // Stream, Inst, Done, Dropped, Items, Polls, Pending
    assert_eq!(&cells[..7], ["s1", "1", "1", "0", "1,000", "1,001", "0"]);
}
