//! Tests of whole expositions, section by section: encoded from a report, read back from
//! the protobuf format ([`roundtrip`]) and checked against the text format. Above the
//! encoders they test, so apart from them.

pub(crate) mod roundtrip;

/// The families of channels, streams and futures (`flow.rs`).
mod flow {
    use super::roundtrip;
    use crate::prometheus::encode;
    use hotpath_report::{
        ChannelEntry, DistNs, FutureEntry, Histogram, Percentiles, Report, SendBlocked, StreamEntry,
    };

    fn dist(v: u64, n: u64) -> DistNs {
        DistNs {
            count: n,
            total: v * n,
            mean: v,
            min: v,
            max: v,
            percentiles: Percentiles::default(),
            hist: Some(Histogram {
                sum: v * n,
                buckets: vec![(v, n)],
            }),
        }
    }

    fn channel(name: &str, sent: u64) -> ChannelEntry {
        ChannelEntry {
            name: name.into(),
            label: Some(name.into()),
            file: "src/main.rs".into(),
            line: sent as u32,
            type_name: "u64".into(),
            instances: 1,
            backend: "std".into(),
            kind: "bounded".into(),
            capacity: Some(8),
            sent,
            received: sent - 1,
            send_errors: 0,
            unread: 1,
            max_depth: 8,
            lagged: 0,
            send_blocked: SendBlocked {
                count: 2,
                total_ns: 3_000_000_000,
                max_ns: 2_000_000_000,
            },
            latency_ns: Some(dist(2_000, sent)),
        }
    }

    #[test]
    fn channel_stream_and_future_families_bounded_by_the_limit() {
        let r = Report {
            channels: Some(vec![
                channel("jobs", 30),
                channel("results", 20),
                channel("log", 10),
            ]),
            streams: Some(vec![StreamEntry {
                name: "rows".into(),
                label: Some("rows".into()),
                file: "src/db.rs".into(),
                line: 4,
                type_name: "Row".into(),
                instances: 2,
                items: 100,
                polls: 102,
                pending: 0,
                completed: 2,
                dropped: 0,
                first_item_ns: None,
                busy_ns: 1_000,
            }]),
            futures: Some(vec![FutureEntry {
                name: "app::fetch".into(),
                label: Some("fetch".into()),
                file: "src/net.rs".into(),
                line: 9,
                calls: 6,
                polls: 12,
                completed: 4,
                cancelled: 1,
                never_polled: 1,
                lifetime_ns: Some(dist(5_000_000, 5)),
                busy_ns: Some(dist(1_000, 5)),
            }]),
            ..Report::default()
        };
        roundtrip::same_as_text(&r, 2);
        let text = encode(&r, 2);
        for line in [
            "hotpath_channel_messages_total{channel=\"jobs\",direction=\"sent\"} 30",
            "hotpath_channel_messages_total{channel=\"jobs\",direction=\"received\"} 29",
            "hotpath_channel_messages_total{channel=\"results\",direction=\"sent\"} 20",
            "hotpath_channel_max_depth{channel=\"jobs\"} 8",
            "hotpath_channel_send_blocked_seconds_total{channel=\"jobs\"} 3",
            "hotpath_channel_latency_seconds_count{channel=\"jobs\"} 30",
            "hotpath_stream_items_total{stream=\"rows\"} 100",
            "hotpath_stream_polls_total{stream=\"rows\"} 102",
            "hotpath_future_calls_total{future=\"fetch\",outcome=\"completed\"} 4",
            "hotpath_future_calls_total{future=\"fetch\",outcome=\"cancelled\"} 1",
            "hotpath_future_calls_total{future=\"fetch\",outcome=\"never_polled\"} 1",
            "hotpath_future_lifetime_seconds_count{future=\"fetch\"} 5",
        ] {
            assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
        }
        // The limit of 2 keeps the two channels with the most messages.
        assert!(!text.contains("channel=\"log\""), "{text}");
    }
}

/// The families of locks, waits and debug values (`locks.rs`).
mod locks {
    use super::roundtrip;
    use crate::prometheus::encode;
    use hotpath_report::{
        DebugEntry, Function, FunctionWaits, Histogram, LockDist, LockHolder, LockMode, MutexEntry,
        Report, RwLockEntry,
    };

    fn mode(acquisitions: u64, contended: u64) -> LockMode {
        let dist = |v: u64| LockDist {
            total: v * acquisitions,
            mean: v,
            min: v,
            max: v,
            hist: Some(Histogram {
                sum: v * acquisitions,
                buckets: vec![(v, acquisitions)],
            }),
            ..Default::default()
        };
        LockMode {
            acquisitions,
            contended,
            timed: acquisitions,
            wait_ns: Some(dist(0)),
            hold_ns: Some(dist(2_000)),
            holders: vec![LockHolder {
                function: "app::f".into(),
                acquisitions,
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn lock_wait_and_debug_families() {
        let id = |name: &str| (name.to_string(), "src/main.rs".to_string());
        let (name, file) = id("state");
        let r = Report {
            functions: vec![Function {
                name: "app::f".into(),
                calls: 2,
                timed_calls: 2,
                waits: Some(FunctionWaits {
                    lock_ns: 3_000_000_000,
                    ..Default::default()
                }),
                ..Default::default()
            }],
            mutexes: Some(vec![MutexEntry {
                name: name.clone(),
                label: Some(name.clone()),
                file: file.clone(),
                line: 3,
                backend: "std".into(),
                type_name: "std::sync::Mutex<u8>".into(),
                instances: 1,
                lock: mode(10, 4),
            }]),
            rw_locks: Some(vec![RwLockEntry {
                name: "table".into(),
                label: None,
                file,
                line: 9,
                backend: "std".into(),
                type_name: "std::sync::RwLock<u8>".into(),
                instances: 1,
                read: mode(7, 0),
                write: mode(1, 1),
                upgradable: None,
            }]),
            debug: Some(vec![DebugEntry {
                kind: "gauge".into(),
                key: "queue".into(),
                value: "2.5".into(),
                gauge: Some(2.5),
                updates: 3,
                file: "src/main.rs".into(),
                line: 4,
            }]),
            ..Report::default()
        };
        roundtrip::same_as_text(&r, 10);
        let text = encode(&r, 10);
        for line in [
            "hotpath_lock_acquisitions_total{lock=\"state\",mode=\"exclusive\"} 10",
            "hotpath_lock_contended_total{lock=\"state\",mode=\"exclusive\"} 4",
            "hotpath_lock_acquisitions_total{lock=\"table\",mode=\"read\"} 7",
            "hotpath_lock_acquisitions_total{lock=\"table\",mode=\"write\"} 1",
            "hotpath_lock_hold_seconds_count{lock=\"state\",mode=\"exclusive\"} 10",
            "hotpath_function_wait_seconds_total{function=\"app::f\",kind=\"lock\"} 3",
            "hotpath_debug_gauge{key=\"queue\"} 2.5",
            "hotpath_debug_updates_total{kind=\"gauge\",key=\"queue\"} 3",
        ] {
            assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
        }
        // No upgradable mode was used: no series for it.
        assert!(!text.contains("mode=\"upgradable\""));
    }
}

/// The families of SQL, HTTP, the server and tokio (`service.rs`).
mod service {
    use super::roundtrip;
    use crate::prometheus::encode;
    use crate::prometheus::family::duration_buckets;
    use hotpath_report::{
        Dist, Function, FunctionWaits, Histogram, HttpEntry, Report, ServerEntry, SqlEntry,
        StatusClasses, TokioGauge, TokioRuntime, TokioWorker,
    };

    /// `n` durations of `ns` each.
    fn dist(n: u64, ns: u64) -> Dist {
        Dist {
            total: n * ns,
            mean: ns,
            min: ns,
            max: ns,
            hist: Some(Histogram {
                sum: n * ns,
                buckets: vec![(ns, n)],
            }),
            ..Default::default()
        }
    }

    fn sql(query: &str, source: Option<&str>, calls: u64) -> SqlEntry {
        SqlEntry {
            query: query.into(),
            source: source.map(Into::into),
            backend: "sqlx".into(),
            calls,
            errors: None,
            rows_returned: Some(calls),
            rows_affected: Some(0),
            per_source_call: source.map(|_| 1.0),
            duration_ns: dist(calls, 2_000_000),
            share_of_wall: 0.1,
        }
    }

    fn report() -> Report {
        Report {
            functions: vec![Function {
                name: "app::handler".into(),
                calls: 4,
                timed_calls: 4,
                waits: Some(FunctionWaits {
                    sql_ns: 2_000_000_000,
                    http_ns: 500_000_000,
                    ..Default::default()
                }),
                ..Default::default()
            }],
            sql: Some(vec![
                sql(
                    "SELECT name FROM users WHERE id = ?",
                    Some("app::handler"),
                    40,
                ),
                sql("PRAGMA foreign_keys = ON;", None, 7),
            ]),
            http: Some(vec![
                HttpEntry {
                    endpoint: "GET 127.0.0.1:{port}/users/{id}".into(),
                    label: None,
                    source: Some("app::client".into()),
                    client: "reqwest".into(),
                    calls: 12,
                    errors: 1,
                    status: StatusClasses::from_array([0, 10, 0, 1, 0]),
                    ttfb_ns: dist(11, 1_000_000),
                    bodies: 9,
                    body_ns: Some(dist(9, 4_000_000)),
                },
                HttpEntry {
                    endpoint: "POST billing".into(),
                    label: Some("billing".into()),
                    source: None,
                    client: "ureq".into(),
                    calls: 3,
                    errors: 0,
                    status: StatusClasses::from_array([0, 0, 0, 0, 3]),
                    ttfb_ns: dist(3, 5_000_000),
                    bodies: 0,
                    body_ns: None,
                },
            ]),
            server: Some(vec![
                ServerEntry {
                    route: "GET /users/{id}".into(),
                    calls: 60,
                    status: StatusClasses::from_array([0, 59, 0, 0, 1]),
                    aborted: 2,
                    in_flight: 1,
                    ttfb_ns: dist(60, 10_000_000),
                    total_ns: dist(60, 12_000_000),
                },
                ServerEntry {
                    route: "GET <unmatched>".into(),
                    calls: 10,
                    status: StatusClasses::from_array([0, 0, 0, 10, 0]),
                    aborted: 0,
                    in_flight: 0,
                    ttfb_ns: dist(10, 10_000),
                    total_ns: dist(10, 11_000),
                },
            ]),
            tokio: Some(vec![TokioRuntime {
                label: Some("main".into()),
                flavor: "multi_thread".into(),
                workers: 2,
                elapsed_ns: 1_000_000_000,
                alive_tasks: TokioGauge {
                    last: 3,
                    max: 18,
                    mean: 4.5,
                    samples: 10,
                },
                global_queue_depth: TokioGauge {
                    last: 0,
                    max: 4,
                    mean: 0.5,
                    samples: 10,
                },
                worker_stats: vec![
                    TokioWorker {
                        index: 0,
                        busy_ns: 612_000_000,
                        busy_share: 0.612,
                        parks: 1204,
                        ..Default::default()
                    },
                    TokioWorker {
                        index: 1,
                        busy_ns: 455_000_000,
                        busy_share: 0.455,
                        parks: 1530,
                        ..Default::default()
                    },
                ],
                blocking_threads: None,
                spawned_tasks: None,
                unstable: false,
            }]),
            ..Report::default()
        }
    }

    fn has(text: &str, line: &str) {
        assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
    }

    #[test]
    fn sql_http_server_and_tokio_families() {
        roundtrip::same_as_text(&report(), 10);
        let text = encode(&report(), 10);
        for line in [
            "hotpath_sql_queries_total{query=\"SELECT name FROM users WHERE id = ?\",source=\"app::handler\"} 40",
            "hotpath_sql_queries_total{query=\"PRAGMA foreign_keys = ON;\",source=\"\"} 7",
            "hotpath_sql_duration_seconds_count{query=\"SELECT name FROM users WHERE id = ?\",source=\"app::handler\"} 40",
            "hotpath_sql_duration_seconds_sum{query=\"SELECT name FROM users WHERE id = ?\",source=\"app::handler\"} 0.08",
            "hotpath_http_client_requests_total{endpoint=\"GET 127.0.0.1:{port}/users/{id}\",source=\"app::client\",status_class=\"2xx\"} 10",
            "hotpath_http_client_requests_total{endpoint=\"GET 127.0.0.1:{port}/users/{id}\",source=\"app::client\",status_class=\"4xx\"} 1",
            "hotpath_http_client_requests_total{endpoint=\"POST billing\",source=\"\",status_class=\"5xx\"} 3",
            "hotpath_http_client_errors_total{endpoint=\"GET 127.0.0.1:{port}/users/{id}\",source=\"app::client\"} 1",
            "hotpath_http_client_errors_total{endpoint=\"POST billing\",source=\"\"} 0",
            "hotpath_http_client_duration_seconds_count{endpoint=\"POST billing\",source=\"\"} 3",
            "hotpath_http_client_body_duration_seconds_count{endpoint=\"GET 127.0.0.1:{port}/users/{id}\",source=\"app::client\"} 9",
            "hotpath_http_client_body_duration_seconds_sum{endpoint=\"GET 127.0.0.1:{port}/users/{id}\",source=\"app::client\"} 0.036",
            "hotpath_http_server_requests_total{route=\"GET /users/{id}\",status_class=\"2xx\"} 59",
            "hotpath_http_server_requests_total{route=\"GET /users/{id}\",status_class=\"5xx\"} 1",
            "hotpath_http_server_requests_total{route=\"GET <unmatched>\",status_class=\"4xx\"} 10",
            "hotpath_http_server_aborted_total{route=\"GET /users/{id}\"} 2",
            "hotpath_http_server_in_flight{route=\"GET /users/{id}\"} 1",
            "hotpath_http_server_ttfb_seconds_count{route=\"GET /users/{id}\"} 60",
            "hotpath_http_server_duration_seconds_sum{route=\"GET /users/{id}\"} 0.72",
            "hotpath_tokio_worker_busy_seconds_total{runtime=\"main\",worker=\"0\"} 0.612",
            "hotpath_tokio_worker_parks_total{runtime=\"main\",worker=\"1\"} 1530",
            "hotpath_tokio_alive_tasks{runtime=\"main\"} 3",
            "hotpath_tokio_global_queue_depth{runtime=\"main\"} 0",
            "hotpath_function_wait_seconds_total{function=\"app::handler\",kind=\"sql\"} 2",
            "hotpath_function_wait_seconds_total{function=\"app::handler\",kind=\"http\"} 0.5",
        ] {
            has(&text, line);
        }
        // A status class no response had gets no series; a client without body timing
        // no body series.
        assert!(!text.contains("status_class=\"3xx\""), "{text}");
        assert!(
            !text.contains(
                "hotpath_http_client_body_duration_seconds_count{endpoint=\"POST billing\""
            ),
            "{text}"
        );
        assert!(!text.contains("status_class=\"1xx\""), "{text}");
    }

    #[test]
    fn label_values_are_bounded_by_the_limit() {
        let text = encode(&report(), 1);
        // The first row of each section (by total time) only.
        has(
            &text,
            "hotpath_sql_queries_total{query=\"SELECT name FROM users WHERE id = ?\",source=\"app::handler\"} 40",
        );
        assert!(!text.contains("PRAGMA"), "{text}");
        assert!(!text.contains("POST billing"), "{text}");
        assert!(!text.contains("<unmatched>"), "{text}");
        let series = |family: &str| {
            text.lines()
                .filter(|l| l.starts_with(&format!("{family}{{")))
                .count()
        };
        assert_eq!(series("hotpath_sql_queries_total"), 1);
        assert_eq!(series("hotpath_http_client_errors_total"), 1);
        assert_eq!(series("hotpath_http_server_aborted_total"), 1);
        // Histograms: one series per bucket bound (+Inf included) of the one row.
        let buckets = duration_buckets().len() + 1;
        assert_eq!(series("hotpath_sql_duration_seconds_bucket"), buckets);
    }

    #[test]
    fn no_service_section_no_service_family() {
        let text = encode(&Report::default(), 10);
        for family in [
            "hotpath_sql_",
            "hotpath_http_client_",
            "hotpath_http_server_",
            "hotpath_tokio_",
        ] {
            assert!(
                !text.lines().any(|l| l.starts_with(family)),
                "{family} in\n{text}"
            );
        }
    }
}

/// The protobuf exposition (`protobuf.rs`): the text one with native histograms.
mod protobuf {
    use super::roundtrip;
    use crate::prometheus::native;
    use hotpath_report::{
        AllocTotal, CpuInfo, Function, FunctionAlloc, FunctionCpu, FunctionIo, Histogram,
        IoDirection, IoEntry, Percentiles, ProcessMemory, Report, ThreadRow, TimedSums, WallNs,
    };

    /// Durations, ns, as the report's histogram of them: 0 ns twice, then values from
    /// 90 ns to 2 s (midpoints of our buckets, the first and last the exact extremes).
    fn durations() -> Histogram {
        Histogram {
            sum: 2_000_123_456,
            buckets: vec![
                (0, 2),
                (90, 5),
                (1_000, 40),
                (1_016, 7),
                (1_056, 3),
                (250_000, 11),
                (251_904, 1),
                (40_000_000, 2),
                (2_000_000_000, 1),
            ],
        }
    }

    fn function(name: &str, line: u32) -> Function {
        let h = durations();
        Function {
            name: name.into(),
            file: "src/main.rs".into(),
            line,
            calls: h.count(),
            timed_calls: h.count(),
            wall_ns: Some(WallNs {
                total: h.sum,
                self_: h.sum / 2,
                mean: h.sum / h.count(),
                min: 0,
                max: 2_000_000_000,
                percentiles: Percentiles(vec![(50.0, 1_000)]),
                hist: Some(h.clone()),
            }),
            alloc: Some(FunctionAlloc {
                count: 12,
                bytes: 4096,
                self_count: 10,
                self_bytes: 4000,
                freed_bytes: 1024,
                retained_bytes: 3072,
                per_call_count: 0.2,
                per_call_bytes: 56,
                percentiles: Percentiles::default(),
                hist: None,
            }),
            cpu: Some(FunctionCpu {
                cpu_ns: 1_500_000_000,
                self_cpu_ns: 700_000_000,
                wait_ns: 500_123_456,
                cpu_share: 0.75,
                samples: Some(1500),
                voluntary_switches: None,
                involuntary_switches: None,
                instructions: None,
                cycles: None,
                percentiles: Percentiles::default(),
                hist: None,
            }),
            io: Some(FunctionIo {
                read_bytes: 100,
                write_bytes: 7,
                io_ns: 3_000,
            }),
            timed_sums: Some(TimedSums {
                wall_total_ns: h.sum,
                wall_self_ns: h.sum / 2,
                alloc_count: Some(12),
                alloc_bytes: Some(4096),
                freed_bytes: Some(1024),
                cpu_ns: None,
            }),
            ..Function::default()
        }
    }

    /// A report with every family of the timing, alloc, CPU, I/O and threads sections.
    fn report() -> Report {
        let direction = |ops: u64, timed: bool| IoDirection {
            ops,
            bytes: ops * 512,
            errors: 1,
            timed_ops: if timed { ops } else { 0 },
            total_ns: ops * 1_000,
            hist: timed.then(|| Histogram {
                sum: ops * 1_000,
                buckets: vec![(1_000, ops)],
            }),
            ..IoDirection::default()
        };
        Report {
            caller: "app::main".into(),
            elapsed_ns: 3_000_000_000,
            time_sampling_rate: 1.0,
            functions: vec![function("app::parse", 10), function("app::parse", 20)],
            alloc_total: Some(AllocTotal {
                count: 100,
                bytes: 1 << 20,
                freed_bytes: 1 << 19,
                unattributed_count: 1,
                unattributed_bytes: 2,
                unattributed_freed_bytes: 3,
            }),
            cpu: Some(CpuInfo {
                mode: "sampled".into(),
                source: "perf_event task-clock".into(),
                hz: Some(1000),
                fallback_reason: None,
                hw_counters_unavailable: None,
                process_cpu_ns: 2_500_000_000,
                sampled_cpu_ns: Some(2_400_000_000),
                unattributed_cpu_ns: 1_000_000,
            }),
            io: Some(vec![IoEntry {
                name: "socket \"a\"\n".into(),
                file: "src/net.rs".into(),
                line: 4,
                type_name: "TcpStream".into(),
                instances: 2,
                read: direction(30, true),
                write: direction(5, false),
                flush: IoDirection::default(),
                shutdown: IoDirection::default(),
                seek: IoDirection::default(),
            }]),
            threads: Some(vec![ThreadRow {
                name: "main".into(),
                tid: 42,
                state: "running".into(),
                cpu_percent_avg: 50.0,
                cpu_percent_max: 99.0,
                user_ns: 1_200_000_000,
                system_ns: 300_000_000,
                alloc_bytes: None,
                freed_bytes: None,
                profiler: false,
            }]),
            process_memory: Some(ProcessMemory {
                rss_bytes: 10 << 20,
                peak_rss_bytes: 12 << 20,
            }),
            ..Report::default()
        }
    }

    #[test]
    fn the_protobuf_exposition_is_the_text_one_with_native_histograms() {
        let r = report();
        let families = roundtrip::same_as_text(&r, 10);
        let names: Vec<&str> = families.iter().filter_map(|f| f.name.as_deref()).collect();
        for name in [
            "hotpath_info",
            "hotpath_function_calls_total",
            "hotpath_function_duration_seconds",
            "hotpath_function_allocations_total",
            "hotpath_function_cpu_seconds_total",
            "hotpath_function_io_bytes_total",
            "hotpath_io_operation_duration_seconds",
            "hotpath_process_allocations_total",
            "hotpath_process_cpu_seconds_total",
            "hotpath_process_resident_memory_bytes",
            "hotpath_thread_cpu_seconds_total",
        ] {
            assert!(names.contains(&name), "no {name} in {names:?}");
        }
        // The functions' native histograms, against the report's buckets: each count in
        // the native bucket `(2^((k-1)/16), 2^(k/16)]` s holding its value.
        let duration = families
            .iter()
            .find(|f| f.name.as_deref() == Some("hotpath_function_duration_seconds"))
            .unwrap();
        assert_eq!(duration.metric.len(), 2);
        let h = durations();
        let mut expected: Vec<(i32, u64)> = Vec::new();
        for &(v, c) in h.buckets.iter().filter(|b| b.0 > 0) {
            let x = v as f64 / 1e9;
            let k = (-600..200)
                .find(|&k| native::upper(k - 1) < x && x <= native::upper(k))
                .unwrap();
            match expected.last_mut() {
                Some(last) if last.0 == k => last.1 += c,
                _ => expected.push((k, c)),
            }
        }
        // 1000 and 1016 ns share a native bucket, 1056 ns is in the next; so do
        // 250 µs and 251.9 µs.
        assert_eq!(expected.len(), 6, "{expected:?}");
        assert_eq!(expected[1].1, 47);
        for m in &duration.metric {
            let n = m.histogram.as_ref().unwrap();
            assert_eq!(n.sample_count, Some(72));
            assert_eq!(n.sample_sum, Some(h.sum as f64 / 1e9));
            assert_eq!(n.zero_count, Some(2));
            let got: Vec<(i32, u64)> = roundtrip::native_buckets(n)
                .into_iter()
                .filter(|b| b.1 > 0)
                .collect();
            assert_eq!(got, expected);
            // The classic buckets are there too, as in the text format.
            assert_eq!(n.bucket.len(), 25);
        }
    }

    #[test]
    fn an_empty_report_has_the_same_families_in_both_formats() {
        let families = roundtrip::same_as_text(&Report::default(), 10);
        assert!(!families.is_empty());
    }
}
