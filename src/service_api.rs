//! SQL, HTTP and tokio runtime integrations: the public names, the same with and without
//! the `hotpath` feature (without it they are the identity and measure nothing).

/// A `tracing` layer that turns sqlx's query events into the `sql` section (feature
/// `sqlx`): add it with `tracing_subscriber::registry().with(hotpath::sqlx_tracing_layer())`.
///
/// sqlx logs each statement at DEBUG under the target `sqlx::query`: a global filter
/// above DEBUG for that target (or `log_statements(LevelFilter::Off)`) leaves the section
/// empty, and the report then says so. SQLite runs queries on a driver thread; the
/// layer still attributes them to the measured function that issued them, by entering a
/// `hotpath` span (target `sqlx::query`, DEBUG) around each poll of a measured
/// `async fn` while the layer exists. sqlx's duration of a streamed `fetch` includes the
/// program's time between rows; its event does not say whether the query failed.
///
/// Without the `hotpath` feature: a layer that does nothing.
#[cfg(feature = "sqlx")]
pub fn sqlx_tracing_layer<S>() -> impl tracing_subscriber::Layer<S>
where
    S: tracing_core::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    #[cfg(feature = "hotpath")]
    {
        crate::service::sqlx::SqlxLayer::new()
    }
    #[cfg(not(feature = "hotpath"))]
    {
        // Not a bare `Identity`: a layer without a filter of its own wants every span
        // and event, which makes tracing build them all (see `hotpath::tracing::layer`).
        use tracing_subscriber::Layer as _;
        tracing_subscriber::layer::Identity::new()
            .with_filter(tracing_subscriber::filter::LevelFilter::OFF)
    }
}

/// Measures diesel's queries (feature `diesel`): installs a default `Instrumentation`
/// for the connections made from now on, so the `sql` section shows each normalised
/// query per issuing function, with its errors. A default the program installed before
/// keeps receiving every event (one instance of it, shared by the connections); an
/// instrumentation set on one connection with `set_instrumentation` replaces hotpath's
/// on that connection.
///
/// Without the `hotpath` feature: does nothing and returns `Ok`.
#[cfg(feature = "diesel")]
pub fn instrument_diesel_sql() -> diesel::QueryResult<()> {
    #[cfg(feature = "hotpath")]
    {
        crate::service::diesel::install()
    }
    #[cfg(not(feature = "hotpath"))]
    {
        Ok(())
    }
}

/// Registers a tokio runtime for the `tokio` section (feature `tokio`): its workers,
/// alive tasks, global queue depth, busy time and parks per worker, sampled on the
/// threads monitor's tick and read at the report.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// hotpath::tokio_runtime!();
/// hotpath::tokio_runtime!(&tokio::runtime::Handle::current(), label = "main");
/// # }
/// ```
///
/// Forms: `tokio_runtime!()` (the runtime the calling thread runs in; outside one a
/// warning and a report note, never a panic), `tokio_runtime!(&handle)`,
/// `tokio_runtime!(&handle, label = "io")`. Cost: nothing per task or poll; a few atomic
/// loads per worker per tick. Without the `hotpath` and `tokio` features: nothing.
#[macro_export]
macro_rules! tokio_runtime {
    () => {
        $crate::__tokio_runtime_impl!(@current)
    };
    ($handle:expr $(,)?) => {
        $crate::__tokio_runtime_impl!(@handle $handle, ::core::option::Option::None)
    };
    ($handle:expr, label = $label:expr $(,)?) => {
        $crate::__tokio_runtime_impl!(@handle $handle, ::core::option::Option::Some($label))
    };
}

#[cfg(all(feature = "hotpath", feature = "tokio"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __tokio_runtime_impl {
    (@current) => {
        $crate::tokio_rt::register(::core::option::Option::None, ::core::option::Option::None)
    };
    (@handle $handle:expr, $label:expr) => {
        $crate::tokio_rt::register(::core::option::Option::Some($handle), $label)
    };
}

#[cfg(not(all(feature = "hotpath", feature = "tokio")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __tokio_runtime_impl {
    (@current) => {
        ()
    };
    (@handle $handle:expr, $label:expr) => {{
        let _ = &$handle;
    }};
}

/// Measures an HTTP client's requests for the `http` section: per method and URL
/// template (numeric, UUID and long hex path segments folded to `{id}`, never the query
/// string) or per `label`, and calling function: calls, transport errors, status
/// classes and the time to the response head, charged to the caller (`waits`).
///
/// For a `reqwest::Client` (features `reqwest-0-12`, `reqwest-0-13`) it evaluates to a
/// `reqwest_middleware::ClientWithMiddleware` (0.4 and 0.5 respectively); for ureq 3's
/// `ConfigBuilder<AgentScope>` (feature `ureq-3`) to the builder with
/// [`UreqHttpMiddleware`](crate::UreqHttpMiddleware) added. Forms: `http!(client)`,
/// `http!(client, label = "billing")`. Without the `hotpath` feature: the client itself.
///
/// `http!(client, body = true)` and `http!(client, label = "billing", body = true)`
/// (reqwest only) also time each response to the end of its body (`body_ns`), and
/// charge the time spent reading it to the function that read it. The middleware sees
/// only the head unless it re-wraps the body, and reqwest's only way to do that (out
/// of the response and back) adds two `reqwest::Error`s (kind body) to the source chain
/// of an error met while reading the body, its text and kind unchanged: hence opt-in.
/// Status, headers, URL, length, extensions and data are unchanged.
#[macro_export]
macro_rules! http {
    ($client:expr $(,)?) => {
        $crate::__http_impl!($client, @none, InstrumentHttpClient::instrument)
    };
    ($client:expr, label = $label:expr $(,)?) => {
        $crate::__http_impl!($client, @some $label, InstrumentHttpClient::instrument)
    };
    ($client:expr, body = true $(,)?) => {
        $crate::__http_impl!(
            $client,
            @none,
            InstrumentHttpClientBodies::instrument_timing_bodies
        )
    };
    ($client:expr, label = $label:expr, body = true $(,)?) => {
        $crate::__http_impl!(
            $client,
            @some $label,
            InstrumentHttpClientBodies::instrument_timing_bodies
        )
    };
}

/// `http!`'s client through `$Trait::$method` of `crate::http_client`, with its label.
#[cfg(all(
    feature = "hotpath",
    any(feature = "reqwest-0-12", feature = "reqwest-0-13", feature = "ureq-3")
))]
#[doc(hidden)]
#[macro_export]
macro_rules! __http_impl {
    ($client:expr, @none, $Trait:ident::$method:ident) => {
        $crate::http_client::$Trait::$method($client, ::core::option::Option::None)
    };
    ($client:expr, @some $label:expr, $Trait:ident::$method:ident) => {
        $crate::http_client::$Trait::$method($client, ::core::option::Option::Some($label))
    };
}

/// `http!`'s client itself; the label is type-checked.
#[cfg(not(all(
    feature = "hotpath",
    any(feature = "reqwest-0-12", feature = "reqwest-0-13", feature = "ureq-3")
)))]
#[doc(hidden)]
#[macro_export]
macro_rules! __http_impl {
    ($client:expr, @none, $Trait:ident::$method:ident) => {
        $client
    };
    ($client:expr, @some $label:expr, $Trait:ident::$method:ident) => {{
        let _: &str = $label;
        $client
    }};
}

/// Adds [`AxumLayer`](crate::AxumLayer) to an axum `Router` (feature `axum-0-8`): the
/// `server` section then shows each route's requests (`GET /users/{id}`), status
/// classes, aborted responses, requests in flight, time to the response head and to the
/// end of the body. Use it after the last `.route(...)`. Without the `hotpath` feature
/// (or without `axum-0-8`) it is the router itself: no layer, nothing per request.
#[macro_export]
macro_rules! axum {
    ($router:expr $(,)?) => {
        $crate::__axum_impl!($router)
    };
}

#[cfg(all(feature = "hotpath", feature = "axum-0-8"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __axum_impl {
    ($router:expr) => {
        $router.layer($crate::AxumLayer::new())
    };
}

#[cfg(not(all(feature = "hotpath", feature = "axum-0-8")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __axum_impl {
    ($router:expr) => {
        $router
    };
}
