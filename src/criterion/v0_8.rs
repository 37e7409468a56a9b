//! `hotpath::criterion` for criterion 0.8.

pub use ::criterion_08::*;

#[cfg(feature = "hotpath")]
use ::criterion_08 as upstream;

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
