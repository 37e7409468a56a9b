//! `hotpath::criterion` for criterion 0.5.

pub use ::criterion::*;

#[cfg(feature = "hotpath")]
use ::criterion as upstream;

// The same file for every criterion version (their APIs are the same), each compiled
// against its own `upstream`.
#[cfg(feature = "hotpath")]
#[allow(clippy::duplicate_mod)]
#[path = "wrap.rs"]
mod wrap;
#[cfg(feature = "hotpath")]
pub use super::{BenchmarkId, IntoBenchmarkId};
#[cfg(feature = "hotpath")]
pub use wrap::{Bencher, BenchmarkGroup, Criterion};
