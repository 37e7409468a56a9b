//! Framework integrations of the hotpath profiler, built only with the facade's
//! `hotpath` feature.
//!
//! Today this crate carries the crates the facade's integrations need only when
//! profiling is on: reqwest-middleware for `http!(client)` with reqwest (features
//! `reqwest-middleware-04`, `reqwest-middleware-05`, turned on by the facade's
//! `reqwest-0-12` and `reqwest-0-13`). With `hotpath` off, `http!` is the client itself
//! and nothing but reqwest is built. The integrations' code (SQL, HTTP, the tokio
//! runtime) is to move here from the facade (issue 23, item 4).

#[cfg(feature = "reqwest-middleware-04")]
pub use reqwest_middleware_04;
#[cfg(feature = "reqwest-middleware-05")]
pub use reqwest_middleware_05;
