//! Library code annotated the way a user of `hotpath` annotates theirs, built with the
//! `hotpath` feature off. `tests/identity.rs` checks that every annotation, the guard
//! and the builder are then the plain code, print nothing and pull in no dependency.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

use std::sync::atomic::{AtomicUsize, Ordering};

/// Calls of [`shapes::Rect::area`] (and nothing else), to check side effects happen
/// exactly once per call.
pub static AREA_CALLS: AtomicUsize = AtomicUsize::new(0);

/// Shapes whose every method is measured (with the feature on).
#[hotpath::measure_all]
pub mod shapes {
    use super::{Ordering, AREA_CALLS};

    /// An axis-aligned rectangle.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Rect {
        /// Width.
        pub w: u32,
        /// Height.
        pub h: u32,
    }

    impl Rect {
        /// A `w` × `h` rectangle.
        pub const fn new(w: u32, h: u32) -> Self {
            Rect { w, h }
        }

        /// Width × height; counts its calls in [`AREA_CALLS`].
        pub fn area(&self) -> u32 {
            AREA_CALLS.fetch_add(1, Ordering::SeqCst);
            self.w * self.h
        }

        /// Left out of measurement.
        #[hotpath::skip]
        pub fn is_square(&self) -> bool {
            self.w == self.h
        }
    }

    /// The rectangle with the larger area, `a` on ties.
    pub fn larger(a: Rect, b: Rect) -> Rect {
        if b.area() > a.area() {
            return b;
        }
        a
    }
}

/// Parses a comma-separated list of numbers; measured under its own label.
#[hotpath::measure(label = "parse_list")]
pub fn parse_list(s: &str) -> Result<Vec<u64>, std::num::ParseIntError> {
    s.split(',').map(|p| p.trim().parse()).collect()
}
