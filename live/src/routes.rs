//! Routing and answering one request of the metrics server: authentication, limits,
//! and which part of the report each route serves. Pure apart from reading the
//! [`Source`], so it is tested without a socket.

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};

use crate::access;
use crate::source::{unavailable, Source};
use hotpath_report::{ApiError, Section};

/// A response: status, content type, body.
#[derive(Debug, PartialEq)]
pub(crate) struct Answer {
    pub status: u16,
    pub content_type: &'static str,
    /// UTF-8 text except for the protobuf format of `/metrics`.
    pub body: Vec<u8>,
    /// Extra header, e.g. `Allow` on a 405.
    pub header: Option<(&'static str, &'static str)>,
}

impl Answer {
    fn json(status: u16, body: String) -> Answer {
        Answer {
            status,
            content_type: "application/json",
            body: body.into_bytes(),
            header: None,
        }
    }

    /// The body as text (every answer but the protobuf `/metrics`).
    #[cfg(test)]
    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.body).unwrap_or("<not UTF-8>")
    }

    /// An error answer; `features`: the Cargo features of which any one would add what
    /// was asked for.
    fn error(status: u16, error: String, features: &[&str]) -> Answer {
        let body = serde_json::to_string(&ApiError {
            error,
            feature: match features {
                [one] => Some(one.to_string()),
                _ => None,
            },
            features: features.iter().map(|f| f.to_string()).collect(),
        })
        .unwrap_or_else(|_| "{\"error\":\"internal error\"}".into());
        Answer::json(status, body)
    }
}

pub(super) fn answer(
    request: &Request<Incoming>,
    token: Option<&str>,
    source: &dyn Source,
) -> Response<Full<Bytes>> {
    let headers: Vec<(&str, &str)> = request
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str(), v.to_str().unwrap_or("")))
        .collect();
    let url = request.uri().path_and_query().map_or("/", |p| p.as_str());
    let a = route(request.method(), url, &headers, token, source);
    let mut response = Response::new(Full::new(Bytes::from(a.body)));
    *response.status_mut() =
        StatusCode::from_u16(a.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let h = response.headers_mut();
    let mut add = |name: &str, value: &str| {
        // Checked conversions: a header never panics the server's thread.
        if let (Ok(n), Ok(v)) = (
            hyper::header::HeaderName::from_bytes(name.as_bytes()),
            hyper::header::HeaderValue::from_str(value),
        ) {
            h.insert(n, v);
        }
    };
    add("content-type", a.content_type);
    add("cache-control", "no-store");
    if let Some((name, value)) = a.header {
        add(name, value);
    }
    response
}

/// Every route, for the 404 message.
fn routes() -> String {
    let mut all = vec!["/report"];
    all.extend(Section::ALL.iter().map(|s| s.route()));
    all.extend(["/profiler_status", "/metrics"]);
    all.join(", ")
}

/// The answer to one request; pure apart from reading `source`, for tests.
pub(crate) fn route(
    method: &Method,
    url: &str,
    headers: &[(&str, &str)],
    token: Option<&str>,
    source: &dyn Source,
) -> Answer {
    let header_bytes: usize = headers.iter().map(|(k, v)| k.len() + v.len()).sum();
    if let Some((status, error)) = access::too_large(url, header_bytes) {
        return Answer::error(status, error, &[]);
    }
    if let Some(token) = token {
        let given = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("authorization"))
            .map(|(_, v)| *v)
            .unwrap_or("");
        if !access::bearer_ok(given, token) {
            let mut a = Answer::error(
                401,
                "missing or wrong token: send `Authorization: Bearer <HOTPATH_METRICS_AUTH_TOKEN>`"
                    .into(),
                &[],
            );
            a.header = Some(("WWW-Authenticate", "Bearer"));
            return a;
        }
    }
    let path = url.split(['?', '#']).next().unwrap_or("");
    let path = if path.len() > 1 {
        path.trim_end_matches('/')
    } else {
        path
    };
    let section = Section::from_route(path);
    let known = section.is_some() || matches!(path, "/report" | "/profiler_status" | "/metrics");
    if !known {
        return Answer::error(404, format!("no route {path}; routes: {}", routes()), &[]);
    }
    if method != Method::GET && method != Method::HEAD {
        let mut a = Answer::error(405, format!("{path} answers GET only, not {method}"), &[]);
        a.header = Some(("Allow", "GET, HEAD"));
        return a;
    }
    match (path, section) {
        (_, Some(s)) => fragment(source, s),
        ("/report", _) => Answer::json(200, to_json(&source.report())),
        ("/profiler_status", _) => Answer::json(200, to_json(&source.status())),
        _ => metrics(source, headers),
    }
}

/// `/metrics`: the protobuf format with native histograms when the `Accept` header
/// prefers it ([`crate::prometheus::protobuf::wanted`]), the text format otherwise.
#[cfg(feature = "prometheus")]
fn metrics(source: &dyn Source, headers: &[(&str, &str)]) -> Answer {
    use crate::prometheus::{encode, encode_protobuf, protobuf};
    let accept = headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("accept"))
        .map(|(_, v)| *v)
        .collect::<Vec<_>>()
        .join(",");
    let (report, limit) = (source.report(), source.metrics_limit());
    let (content_type, body) = if protobuf::wanted(&accept) {
        (protobuf::CONTENT_TYPE, encode_protobuf(&report, limit))
    } else {
        (
            "text/plain; version=0.0.4; charset=utf-8",
            encode(&report, limit).into_bytes(),
        )
    };
    Answer {
        status: 200,
        content_type,
        body,
        // The answer depends on the request's Accept header: caches must not mix them.
        header: Some(("Vary", "Accept")),
    }
}

#[cfg(not(feature = "prometheus"))]
fn metrics(_source: &dyn Source, _headers: &[(&str, &str)]) -> Answer {
    Answer::error(
        404,
        "/metrics needs the feature hotpath-prometheus".into(),
        &["hotpath-prometheus"],
    )
}

/// A section of the report, or why it is not there.
fn fragment(source: &dyn Source, section: Section) -> Answer {
    if let Some((why, features)) = unavailable(source, section) {
        return Answer::error(404, why, features);
    }
    Answer::json(200, source.report().fragment(section).to_string())
}

fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v)
        .unwrap_or_else(|e| format!("{{\"error\":\"could not serialize: {e}\"}}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::{MAX_HEADERS, MAX_URL};
    use hotpath_report::{
        ChannelEntry, Fragment, Function, FutureEntry, ProfilerStatus, Report, SendBlocked,
        StreamEntry, WallNs, SCHEMA_VERSION,
    };

    /// A session with one function of 3 calls, of a build without the sections in
    /// `missing`.
    struct Fake {
        sections: Vec<Section>,
        missing: Vec<Section>,
    }

    impl Source for Fake {
        fn report(&self) -> Report {
            Report {
                schema_version: SCHEMA_VERSION,
                caller: "app::main".into(),
                label: None,
                elapsed_ns: 1_000,
                sections: self.sections.clone(),
                percentiles: vec![50.0],
                overhead_per_call_ns: 20.0,
                overhead_ns: 60,
                clock_floor_ns: None,
                clock: "tsc".into(),
                time_sampling_rate: 1.0,
                io_time_sampling_rate: None,
                notes: vec![],
                alloc_total: None,
                cpu: None,
                functions: vec![Function {
                    name: "app::work".into(),
                    file: "src/main.rs".into(),
                    line: 3,
                    calls: 3,
                    timed_calls: 3,
                    wall_ns: Some(WallNs {
                        total: 300,
                        self_: 300,
                        mean: 100,
                        min: 90,
                        max: 110,
                        percentiles: hotpath_report::Percentiles(vec![(50.0, 100)]),
                        hist: None,
                    }),
                    ..Function::default()
                }],
                io: None,
                channels: Some(vec![ChannelEntry {
                    name: "jobs".into(),
                    label: Some("jobs".into()),
                    file: "src/main.rs".into(),
                    line: 5,
                    type_name: "u64".into(),
                    instances: 1,
                    backend: "std".into(),
                    kind: "bounded".into(),
                    capacity: Some(4),
                    sent: 9,
                    received: 8,
                    send_errors: 0,
                    unread: 1,
                    max_depth: 4,
                    lagged: 0,
                    send_blocked: SendBlocked::default(),
                    latency_ns: None,
                }]),
                streams: Some(vec![StreamEntry {
                    name: "rows".into(),
                    label: Some("rows".into()),
                    file: "src/main.rs".into(),
                    line: 6,
                    type_name: "u8".into(),
                    instances: 1,
                    items: 10,
                    polls: 11,
                    pending: 0,
                    completed: 1,
                    dropped: 0,
                    first_item_ns: None,
                    busy_ns: 0,
                }]),
                futures: Some(vec![FutureEntry {
                    name: "app::main".into(),
                    label: Some("fetch".into()),
                    file: "src/main.rs".into(),
                    line: 7,
                    calls: 2,
                    polls: 4,
                    completed: 2,
                    cancelled: 0,
                    never_polled: 0,
                    lifetime_ns: None,
                    busy_ns: None,
                }]),
                threads: Some(vec![]),
                process_memory: None,
                ..Report::default()
            }
        }

        fn status(&self) -> ProfilerStatus {
            ProfilerStatus {
                schema_version: SCHEMA_VERSION,
                version: "0.1.0".into(),
                pid: 7,
                caller: "app::main".into(),
                uptime_ns: 1_000,
                sections: self.sections.clone(),
                features: vec!["hotpath".into()],
                cpu_mode: None,
                cpu_source: None,
                clock: "tsc".into(),
                time_sampling_rate: 1.0,
            }
        }

        fn sections(&self) -> Vec<Section> {
            self.sections.clone()
        }

        fn metrics_limit(&self) -> usize {
            200
        }

        fn compiled(&self, section: Section) -> bool {
            !self.missing.contains(&section)
        }
    }

    /// A session of a build with every section, collecting these.
    fn fake() -> Fake {
        Fake {
            sections: vec![
                Section::Timing,
                Section::Alloc,
                Section::Cpu,
                Section::Io,
                Section::Threads,
            ],
            missing: vec![],
        }
    }

    fn get(url: &str, headers: &[(&str, &str)], token: Option<&str>) -> Answer {
        route(&Method::GET, url, headers, token, &fake())
    }

    fn error_of(a: &Answer) -> ApiError {
        serde_json::from_str(a.text()).unwrap_or_else(|e| panic!("{e}: {}", a.text()))
    }

    #[test]
    fn the_report_and_the_status_are_typed_json() {
        let a = get("/report", &[], None);
        assert_eq!((a.status, a.content_type), (200, "application/json"));
        assert_eq!(Report::from_json(a.text()).unwrap(), fake().report());
        let a = get("/profiler_status?x=1", &[], None);
        assert_eq!(
            ProfilerStatus::from_json(a.text()).unwrap(),
            fake().status()
        );
        // A trailing slash is the same route.
        assert_eq!(get("/report/", &[], None).status, 200);
    }

    #[test]
    fn fragments_carry_only_their_section() {
        let a = get("/functions_timing", &[], None);
        let f = Fragment::from_json(a.text()).unwrap();
        assert_eq!(f.section, Section::Timing);
        assert_eq!(f.keys, ["functions"]);
        assert_eq!(f.part.functions[0].calls, 3);
        let f = Fragment::from_json(get("/io", &[], None).text()).unwrap();
        // No function made I/O: the io fragment lists none.
        assert_eq!(f.keys, ["functions", "io"]);
        assert_eq!((f.part.io, f.part.functions), (Some(vec![]), vec![]));
        if cfg!(target_os = "linux") {
            let f = Fragment::from_json(get("/threads", &[], None).text()).unwrap();
            assert_eq!(f.keys, ["threads"]);
            assert_eq!(f.part.threads, Some(vec![]));
        }
    }

    #[test]
    fn sections_not_compiled_in_name_their_feature() {
        for (url, section, feature, on) in [
            (
                "/functions_alloc",
                Some(Section::Alloc),
                "hotpath-alloc",
                true,
            ),
            (
                "/functions_alloc",
                Some(Section::Alloc),
                "hotpath-alloc",
                false,
            ),
            ("/functions_cpu", Some(Section::Cpu), "hotpath-cpu", true),
            ("/functions_cpu", Some(Section::Cpu), "hotpath-cpu", false),
            (
                "/metrics",
                None,
                "hotpath-prometheus",
                cfg!(feature = "prometheus"),
            ),
        ] {
            let mut source = fake();
            if !on {
                source.missing.extend(section);
            }
            let a = route(&Method::GET, url, &[], None, &source);
            if on {
                assert_eq!(a.status, 200, "{url}: {}", a.text());
            } else {
                assert_eq!(a.status, 404, "{url}");
                let e = error_of(&a);
                assert_eq!(e.feature.as_deref(), Some(feature), "{url}");
                assert!(e.error.contains(feature), "{e:?}");
            }
        }
    }

    #[test]
    fn service_sections_answer_their_fragment_or_name_their_feature() {
        let http = ["reqwest-0-12", "reqwest-0-13", "ureq-3"];
        for (url, section, features, on) in [
            ("/sql", Section::Sql, &["sqlx", "diesel"][..], true),
            ("/sql", Section::Sql, &["sqlx", "diesel"][..], false),
            ("/http", Section::Http, &http[..], true),
            ("/http", Section::Http, &http[..], false),
            ("/server", Section::Server, &["axum-0-8"][..], true),
            ("/server", Section::Server, &["axum-0-8"][..], false),
            ("/tokio_runtime", Section::Tokio, &["tokio"][..], true),
            ("/tokio_runtime", Section::Tokio, &["tokio"][..], false),
        ] {
            let source = Fake {
                sections: vec![
                    Section::Timing,
                    Section::Sql,
                    Section::Http,
                    Section::Server,
                    Section::Tokio,
                ],
                missing: if on { vec![] } else { vec![section] },
            };
            let a = route(&Method::GET, url, &[], None, &source);
            if on {
                assert_eq!(a.status, 200, "{url}: {}", a.text());
                let f = Fragment::from_json(a.text()).unwrap();
                assert_eq!(f.section, section);
                // The section's own key, empty here; no functions, no other section.
                assert_eq!(f.keys, [section.name()], "{url}: {}", a.text());
                let lens = [
                    f.part.sql.as_ref().map(Vec::len),
                    f.part.http.as_ref().map(Vec::len),
                    f.part.server.as_ref().map(Vec::len),
                    f.part.tokio.as_ref().map(Vec::len),
                ];
                assert_eq!(lens.iter().flatten().sum::<usize>(), 0, "{url}");
            } else {
                assert_eq!(a.status, 404, "{url}");
                let e = error_of(&a);
                assert_eq!(e.features, features, "{url}");
                let one = (features.len() == 1).then(|| features[0].to_string());
                assert_eq!(e.feature, one, "{url}");
            }
        }
    }

    #[test]
    fn data_flow_routes_carry_their_entries_only() {
        let source = Fake {
            sections: vec![
                Section::Timing,
                Section::Channels,
                Section::Streams,
                Section::Futures,
            ],
            missing: vec![],
        };
        let fragment = |url: &str| {
            let a = route(&Method::GET, url, &[], None, &source);
            assert_eq!(a.status, 200, "{url}: {}", a.text());
            Fragment::from_json(a.text()).unwrap()
        };
        let f = fragment("/channels");
        assert_eq!(f.section, Section::Channels);
        assert_eq!(f.keys, ["channels"]);
        let c = &f.part.channels.expect("channels")[0];
        assert_eq!((c.name.as_str(), c.sent, c.unread), ("jobs", 9, 1));
        let f = fragment("/streams");
        assert_eq!(f.keys, ["streams"]);
        assert_eq!(f.part.streams.expect("streams")[0].items, 10);
        let f = fragment("/futures");
        assert_eq!(f.part.futures.expect("futures")[0].calls, 2);
        // A session that leaves the section out answers 404.
        let without = Fake {
            sections: vec![Section::Timing],
            missing: vec![],
        };
        let a = route(&Method::GET, "/channels", &[], None, &without);
        assert_eq!(a.status, 404);
        assert!(error_of(&a).error.contains("turned off"), "{}", a.text());
    }

    #[test]
    fn sections_turned_off_answer_404() {
        let source = Fake {
            sections: vec![Section::Timing],
            missing: vec![],
        };
        let a = route(&Method::GET, "/io", &[], None, &source);
        assert_eq!(a.status, 404);
        assert!(error_of(&a).error.contains("turned off"), "{}", a.text());
    }

    #[test]
    fn unknown_routes_wrong_methods_and_oversized_requests_are_4xx() {
        let a = get("/nope", &[], None);
        assert_eq!(a.status, 404);
        assert!(error_of(&a).error.contains("/report"), "{}", a.text());
        let a = route(&Method::POST, "/report", &[], None, &fake());
        assert_eq!((a.status, a.header), (405, Some(("Allow", "GET, HEAD"))));
        let long = format!("/report?{}", "x".repeat(MAX_URL));
        assert_eq!(get(&long, &[], None).status, 414);
        let big = "y".repeat(MAX_HEADERS);
        assert_eq!(get("/report", &[("X-Big", &big)], None).status, 431);
    }

    #[test]
    fn a_token_is_required_when_set() {
        let t = Some("s3cret");
        let a = get("/report", &[], t);
        assert_eq!(
            (a.status, a.header),
            (401, Some(("WWW-Authenticate", "Bearer")))
        );
        assert_eq!(
            get("/report", &[("Authorization", "Bearer wrong")], t).status,
            401
        );
        assert_eq!(
            get("/report", &[("Authorization", "s3cret")], t).status,
            401
        );
        assert_eq!(
            get("/report", &[("authorization", "Bearer s3cret")], t).status,
            200
        );
        // Unknown routes do not tell who is not authorised.
        assert_eq!(get("/nope", &[], t).status, 401);
    }

    #[cfg(feature = "prometheus")]
    #[test]
    fn metrics_are_protobuf_when_the_scraper_prefers_it() {
        use crate::prometheus::{encode, encode_protobuf, protobuf::CONTENT_TYPE};
        let text = get("/metrics", &[], None);
        assert_eq!(
            (text.status, text.content_type, text.header),
            (
                200,
                "text/plain; version=0.0.4; charset=utf-8",
                Some(("Vary", "Accept"))
            )
        );
        assert_eq!(text.text(), encode(&fake().report(), 200));
        assert!(text
            .text()
            .contains("hotpath_function_calls_total{function=\"app::work\"} 3\n"));
        // What Prometheus with native histograms sends; the header's name in any case.
        let accept = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;\
                      encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3,*/*;q=0.2";
        for name in ["Accept", "accept"] {
            let proto = get("/metrics", &[(name, accept)], None);
            assert_eq!(
                (proto.status, proto.content_type, proto.header),
                (200, CONTENT_TYPE, Some(("Vary", "Accept")))
            );
            assert_eq!(proto.body, encode_protobuf(&fake().report(), 200));
        }
        let families = crate::prometheus::tests::roundtrip::same_as_text(&fake().report(), 200);
        assert!(families
            .iter()
            .any(|f| f.name.as_deref() == Some("hotpath_function_calls_total")));
        // Other clients: the text format.
        let curl = get("/metrics", &[("Accept", "*/*")], None);
        assert_eq!(
            curl.content_type,
            "text/plain; version=0.0.4; charset=utf-8"
        );
    }
}
