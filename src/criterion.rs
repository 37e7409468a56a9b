//! Drop-in replacements for criterion's `Criterion`, `BenchmarkId`, `criterion_group!` and
//! `criterion_main!` that profile each benchmark id in a session of its own.
//!
//! ```ignore
//! use hotpath::criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
//!
//! fn bench(c: &mut Criterion) {
//!     c.bench_function("parse", |b| b.iter(|| parse("1,2,3")));
//!     let mut group = c.benchmark_group("sum");
//!     group.bench_with_input(BenchmarkId::new("n", 100), &100, |b, &n| b.iter(|| sum(n)));
//!     group.finish();
//! }
//!
//! criterion_group!(benches, bench);
//! criterion_main!(benches);
//! ```
//!
//! Everything else (`BatchSize`, `Throughput`, `measurement`, ...) is criterion's own,
//! re-exported here too.
//!
//! With `hotpath`, each benchmark id that criterion runs (its filter decides) gets a
//! profiling session of its own, started when criterion first calls the benchmark's
//! routine: the report's caller is the full id (`group/function/parameter`, as criterion
//! prints it), and each file it writes (`HOTPATH_OUTPUT_PATH`, `HOTPATH_TRACE`,
//! `HOTPATH_EXPORT`) gets the id in its name: `out.json` → `out.group_function_parameter.json`
//! (characters other than ASCII letters, digits, `-`, `_` and `.` become `_`). In test mode
//! (`cargo bench -- --test`, `cargo test --benches`) the session is the one call of the
//! routine; when benchmarking it ends after criterion's analysis of that id, so its
//! elapsed time includes criterion's own work between samples (its rows do not: criterion
//! is not measured).
//!
//! `HOTPATH_CRITERION_ITERATIONS=N` makes each `Bencher::iter*` call of a routine run its
//! closure N times in test mode instead of once (`iter_custom` is asked for N iterations),
//! so call counts are exact: N times what one run makes. It has no effect when
//! benchmarking (criterion picks the iteration counts), and says so once.
//!
//! Without `hotpath` every item here is criterion's own, re-exported.
//!
//! With several `criterion-0-*` features on, this module is the newest's; the others' are
//! `hotpath::criterion::v0_5` and so on (hidden; the macros are this module's).

/// The items of `hotpath::criterion` for one criterion version, its crate `$upstream`:
/// criterion's own, and with `hotpath` the measuring `Criterion`, `BenchmarkGroup` and
/// `Bencher` of `criterion/wrap.rs`, the same file for every version (their APIs are the
/// same), compiled against each version's crate.
macro_rules! version {
    ($upstream:ident) => {
        pub use ::$upstream::*;

        #[cfg(feature = "hotpath")]
        use ::$upstream as upstream;

        #[cfg(feature = "hotpath")]
        #[allow(clippy::duplicate_mod)]
        #[path = "wrap.rs"]
        mod wrap;
        #[cfg(feature = "hotpath")]
        pub use super::{BenchmarkId, IntoBenchmarkId};
        #[cfg(feature = "hotpath")]
        pub use wrap::{Bencher, BenchmarkGroup, Criterion};
    };
}

#[cfg(feature = "criterion-0-5")]
#[doc(hidden)]
pub mod v0_5;
#[cfg(feature = "criterion-0-6")]
#[doc(hidden)]
pub mod v0_6;
#[cfg(feature = "criterion-0-7")]
#[doc(hidden)]
pub mod v0_7;
#[cfg(feature = "criterion-0-8")]
#[doc(hidden)]
pub mod v0_8;

#[cfg(all(
    feature = "criterion-0-5",
    not(any(
        feature = "criterion-0-6",
        feature = "criterion-0-7",
        feature = "criterion-0-8"
    ))
))]
pub use v0_5::*;
#[cfg(all(
    feature = "criterion-0-6",
    not(any(feature = "criterion-0-7", feature = "criterion-0-8"))
))]
pub use v0_6::*;
#[cfg(all(feature = "criterion-0-7", not(feature = "criterion-0-8")))]
pub use v0_7::*;
#[cfg(feature = "criterion-0-8")]
pub use v0_8::*;

#[cfg(feature = "hotpath")]
pub use crate::{
    __hotpath_criterion_group as criterion_group, __hotpath_criterion_main as criterion_main,
};
#[cfg(feature = "hotpath")]
pub use on::{BenchmarkId, IntoBenchmarkId};

/// Criterion's `criterion_group!` over [`hotpath::criterion::Criterion`](crate::criterion).
#[cfg(feature = "hotpath")]
#[doc(hidden)]
#[macro_export]
macro_rules! __hotpath_criterion_group {
    (name = $name:ident; config = $config:expr; targets = $( $target:path ),+ $(,)*) => {
        /// The function which runs the benchmarks.
        pub fn $name() {
            let mut criterion: $crate::criterion::Criterion<_> = $config.configure_from_args();
            $(
                $target(&mut criterion);
            )+
        }
    };
    ($name:ident, $( $target:path ),+ $(,)*) => {
        $crate::__hotpath_criterion_group! {
            name = $name;
            config = $crate::criterion::Criterion::default();
            targets = $( $target ),+
        }
    };
}

/// Criterion's `criterion_main!` over [`hotpath::criterion::Criterion`](crate::criterion).
#[cfg(feature = "hotpath")]
#[doc(hidden)]
#[macro_export]
macro_rules! __hotpath_criterion_main {
    ( $( $group:path ),+ $(,)* ) => {
        fn main() {
            $(
                $group();
            )+
            $crate::criterion::Criterion::default()
                .configure_from_args()
                .final_summary();
        }
    };
}

#[cfg(feature = "hotpath")]
pub(crate) use on::{test_mode_from_args, Session};

#[cfg(feature = "hotpath")]
mod on {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::OnceLock;

    /// A benchmark's name, as criterion's `BenchmarkId` (the same constructors), which
    /// the report can name: criterion's keeps its parts private.
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    pub struct BenchmarkId {
        pub(crate) function_name: Option<String>,
        pub(crate) parameter: Option<String>,
    }

    impl BenchmarkId {
        /// A function name and a parameter value (shown with `Display`).
        pub fn new<S: Into<String>, P: std::fmt::Display>(
            function_name: S,
            parameter: P,
        ) -> BenchmarkId {
            BenchmarkId {
                function_name: Some(function_name.into()),
                parameter: Some(parameter.to_string()),
            }
        }

        /// A parameter value alone, for groups whose benchmarks differ only by it.
        pub fn from_parameter<P: std::fmt::Display>(parameter: P) -> BenchmarkId {
            BenchmarkId {
                function_name: None,
                parameter: Some(parameter.to_string()),
            }
        }

        /// The id criterion prints (and the report's caller): `group/function/parameter`
        /// with the parts there are.
        pub(crate) fn full(&self, group: &str) -> String {
            match (&self.function_name, &self.parameter) {
                (Some(f), Some(p)) => format!("{group}/{f}/{p}"),
                (Some(f), None) => format!("{group}/{f}"),
                (None, Some(p)) => format!("{group}/{p}"),
                (None, None) => group.to_string(),
            }
        }
    }

    mod private {
        pub trait Sealed {}
        impl Sealed for super::BenchmarkId {}
        impl<S: Into<String>> Sealed for S {}
    }

    /// What a group's `bench_function` and `bench_with_input` take as an id: a
    /// [`BenchmarkId`] or a function name (`&str`, `String`), as in criterion.
    pub trait IntoBenchmarkId: private::Sealed {
        /// The id.
        #[doc(hidden)]
        fn into_benchmark_id(self) -> BenchmarkId;
    }

    impl IntoBenchmarkId for BenchmarkId {
        fn into_benchmark_id(self) -> BenchmarkId {
            self
        }
    }

    impl<S: Into<String>> IntoBenchmarkId for S {
        fn into_benchmark_id(self) -> BenchmarkId {
            let name: String = self.into();
            assert!(!name.is_empty(), "Function name must not be empty.");
            BenchmarkId {
                function_name: Some(name),
                parameter: None,
            }
        }
    }

    /// Whether `configure_from_args` puts criterion in test mode, by criterion's own rule
    /// (the same in 0.5 to 0.8): `--test` given, or `--bench` not given (`cargo test
    /// --benches` passes neither).
    pub(crate) fn test_mode_from_args() -> bool {
        let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
        let has = |flag: &str| args.iter().any(|a| a == flag);
        has("--test") || !has("--bench")
    }

    /// How many times each `Bencher::iter*` call runs its closure: N of
    /// `HOTPATH_CRITERION_ITERATIONS` in test mode, else once (and a warning, once, that
    /// N is not applied).
    fn repeat(test_mode: bool) -> u64 {
        static N: OnceLock<Option<u64>> = OnceLock::new();
        static WARNED: AtomicBool = AtomicBool::new(false);
        let n = *N.get_or_init(crate::config::env::criterion_iterations);
        match n {
            Some(n) if test_mode => n,
            Some(n) => {
                if !WARNED.swap(true, Ordering::Relaxed) {
                    crate::config::warn(&format!(
                        "HOTPATH_CRITERION_ITERATIONS={n} applies in criterion's test mode only \
                         (`cargo bench -- --test`, `cargo test --benches`); when benchmarking, \
                         criterion chooses the iterations"
                    ));
                }
                1
            }
            None => 1,
        }
    }

    /// `group/function/7` → `group_function_7`: the id as it goes into file names.
    pub(crate) fn file_tag(id: &str) -> String {
        let tag: String = id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if tag.is_empty() {
            "benchmark".to_string()
        } else {
            tag
        }
    }

    /// One benchmark id's profiling session: started when criterion first calls the
    /// routine (a benchmark its filter leaves out writes no report), ended after that call
    /// in test mode, or when dropped (after criterion's analysis) when benchmarking.
    pub(crate) struct Session {
        id: String,
        test_mode: bool,
        repeat: u64,
        guard: Option<crate::HotpathGuard>,
    }

    impl Session {
        pub(crate) fn new(id: String, test_mode: bool) -> Session {
            Session {
                id,
                test_mode,
                repeat: repeat(test_mode),
                guard: None,
            }
        }

        /// Runs per `Bencher::iter*` call.
        pub(crate) fn repeat(&self) -> u64 {
            self.repeat
        }

        /// Criterion calls the routine.
        pub(crate) fn enter(&mut self) {
            if self.guard.is_none() {
                // The report's caller lives as long as the program: one string per
                // benchmark id that ran.
                let caller: &'static str = Box::leak(self.id.clone().into_boxed_str());
                let mut builder = crate::HotpathGuardBuilder::new(caller);
                builder.cfg.file_tag = Some(file_tag(&self.id));
                self.guard = Some(builder.build());
            }
        }

        /// The routine returned.
        pub(crate) fn leave(&mut self) {
            if self.test_mode {
                self.guard = None;
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn ids_are_criterions_and_file_tags_keep_safe_characters() {
            let id = BenchmarkId::new("parse", 1.5);
            assert_eq!(id.full("codec"), "codec/parse/1.5");
            assert_eq!(BenchmarkId::from_parameter(64).full("sizes"), "sizes/64");
            assert_eq!("encode".into_benchmark_id().full("codec"), "codec/encode");
            assert_eq!(file_tag("codec/parse/1.5"), "codec_parse_1.5");
            assert_eq!(file_tag("a b:c\u{e9}"), "a_b_c_");
            assert_eq!(file_tag(""), "benchmark");
        }

        #[test]
        fn the_tag_goes_before_the_extension() {
            use std::path::Path;
            let tagged = |p: &str| crate::config::tagged(Path::new(p), "codec_encode");
            assert_eq!(tagged("out.json"), Path::new("out.codec_encode.json"));
            assert_eq!(
                tagged("dir/r.tar.gz"),
                Path::new("dir/r.tar.codec_encode.gz")
            );
            assert_eq!(tagged("/tmp/report"), Path::new("/tmp/report.codec_encode"));
        }
    }
}
