//! The drop-in types over one criterion version, `super::upstream`: this file is the
//! module `wrap` of each of `v0_5.rs` to `v0_8.rs` (criterion's API is the same in all
//! four), compiled once per enabled version.
//!
//! Each type wraps criterion's and forwards every method; what differs is where a
//! benchmark's routine runs: inside a [`Session`] of its own, with a [`Bencher`] that
//! repeats each `iter*` closure `HOTPATH_CRITERION_ITERATIONS` times in test mode.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use super::upstream;
use crate::criterion::{test_mode_from_args, BenchmarkId, IntoBenchmarkId, Session};
use upstream::measurement::{Measurement, WallTime};
use upstream::profiler::Profiler;
use upstream::{
    BatchSize, BenchmarkFilter, PlotConfiguration, PlottingBackend, SamplingMode, Throughput,
};

/// Criterion's `Criterion`, each benchmark id of which is profiled in a session of its
/// own. Every builder method is criterion's.
pub struct Criterion<M: Measurement = WallTime> {
    inner: upstream::Criterion<M>,
    /// Whether criterion runs each routine once (its test mode), by the arguments that
    /// `configure_from_args` read; false until then, as criterion's mode.
    test_mode: bool,
}

impl Default for Criterion {
    fn default() -> Criterion {
        Criterion {
            inner: upstream::Criterion::default(),
            test_mode: false,
        }
    }
}

/// Calls `$forward!` with the settings that `Criterion` and `BenchmarkGroup` both
/// forward, after the type's own ones.
macro_rules! with_common_settings {
    ($forward:ident! $($own:tt)*) => {
        $forward! {
            $($own)*
            /// Criterion's `sample_size`.
            fn sample_size(n: usize);
            /// Criterion's `warm_up_time`.
            fn warm_up_time(dur: Duration);
            /// Criterion's `measurement_time`.
            fn measurement_time(dur: Duration);
            /// Criterion's `nresamples`.
            fn nresamples(n: usize);
            /// Criterion's `noise_threshold`.
            fn noise_threshold(threshold: f64);
            /// Criterion's `confidence_level`.
            fn confidence_level(cl: f64);
            /// Criterion's `significance_level`.
            fn significance_level(sl: f64);
        }
    };
}

/// Forwards criterion's builder methods that take and return `Criterion<M>`.
macro_rules! builders {
    ($( $(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*); )+) => {
        $(
            $(#[$doc])*
            #[must_use]
            pub fn $name(self, $($arg: $ty),*) -> Criterion<M> {
                Criterion {
                    inner: self.inner.$name($($arg),*),
                    test_mode: self.test_mode,
                }
            }
        )+
    };
}

impl<M: Measurement> Criterion<M> {
    with_common_settings! {
        builders!
        /// Criterion's `plotting_backend`.
        fn plotting_backend(backend: PlottingBackend);
        /// Criterion's `with_plots`.
        fn with_plots();
        /// Criterion's `without_plots`.
        fn without_plots();
        /// Criterion's `save_baseline`.
        fn save_baseline(baseline: String);
        /// Criterion's `retain_baseline`.
        fn retain_baseline(baseline: String, strict: bool);
        /// Criterion's `with_benchmark_filter`.
        fn with_benchmark_filter(filter: BenchmarkFilter);
        /// Criterion's `with_output_color`.
        fn with_output_color(enabled: bool);
        /// Criterion's `output_directory`.
        fn output_directory(path: &Path);
    }

    /// Criterion's `with_measurement`.
    #[must_use]
    pub fn with_measurement<M2: Measurement>(self, m: M2) -> Criterion<M2> {
        Criterion {
            inner: self.inner.with_measurement(m),
            test_mode: self.test_mode,
        }
    }

    /// Criterion's `with_profiler`.
    #[must_use]
    pub fn with_profiler<P: Profiler + 'static>(self, p: P) -> Criterion<M> {
        Criterion {
            inner: self.inner.with_profiler(p),
            test_mode: self.test_mode,
        }
    }

    /// Criterion's `with_filter`.
    #[must_use]
    pub fn with_filter<S: Into<String>>(self, filter: S) -> Criterion<M> {
        Criterion {
            inner: self.inner.with_filter(filter),
            test_mode: self.test_mode,
        }
    }

    /// Criterion's `profile_time`: `Some` profiles, `None` benchmarks (neither is test
    /// mode).
    #[must_use]
    pub fn profile_time(self, profile_time: Option<Duration>) -> Criterion<M> {
        Criterion {
            inner: self.inner.profile_time(profile_time),
            test_mode: false,
        }
    }

    /// Criterion's `configure_from_args`; also notes whether the arguments ask for test
    /// mode, where `HOTPATH_CRITERION_ITERATIONS` applies.
    #[must_use]
    pub fn configure_from_args(self) -> Criterion<M> {
        Criterion {
            inner: self.inner.configure_from_args(),
            test_mode: test_mode_from_args(),
        }
    }

    /// Criterion's `final_summary`.
    pub fn final_summary(&self) {
        self.inner.final_summary();
    }

    /// Criterion's `benchmark_group`: a group whose benchmarks are profiled one by one.
    pub fn benchmark_group<S: Into<String>>(&mut self, group_name: S) -> BenchmarkGroup<'_, M> {
        let name: String = group_name.into();
        BenchmarkGroup {
            test_mode: self.test_mode,
            inner: self.inner.benchmark_group(name.clone()),
            name,
        }
    }

    /// Criterion's `bench_function`; the report is `id`'s.
    pub fn bench_function<F>(&mut self, id: &str, mut f: F) -> &mut Criterion<M>
    where
        F: FnMut(&mut Bencher<'_, '_, M>),
        M: 'static,
    {
        let mut session = Session::new(id.to_string(), self.test_mode);
        let repeat = session.repeat();
        self.inner.bench_function(id, |b| {
            session.enter();
            f(&mut Bencher { inner: b, repeat });
            session.leave();
        });
        self
    }

    /// Criterion's `bench_with_input`; the report is `function/parameter`'s. As in
    /// criterion, an id made by `BenchmarkId::from_parameter` panics here.
    pub fn bench_with_input<F, I>(
        &mut self,
        id: BenchmarkId,
        input: &I,
        mut f: F,
    ) -> &mut Criterion<M>
    where
        F: FnMut(&mut Bencher<'_, '_, M>, &I),
        M: 'static,
    {
        let full = match (&id.function_name, &id.parameter) {
            (Some(f), Some(p)) => format!("{f}/{p}"),
            // No function name: criterion panics (its own message) before any session.
            _ => String::new(),
        };
        let mut session = Session::new(full, self.test_mode);
        let repeat = session.repeat();
        self.inner.bench_with_input(upstream_id(id), input, |b, i| {
            session.enter();
            f(&mut Bencher { inner: b, repeat }, i);
            session.leave();
        });
        self
    }
}

/// Criterion's id for one with a parameter.
fn upstream_id(id: BenchmarkId) -> upstream::BenchmarkId {
    match (id.function_name, id.parameter) {
        (Some(f), Some(p)) => upstream::BenchmarkId::new(f, p),
        (_, p) => upstream::BenchmarkId::from_parameter(p.unwrap_or_default()),
    }
}

/// Criterion's `BenchmarkGroup`, each benchmark of which is profiled in a session of its
/// own. Every setting is criterion's.
pub struct BenchmarkGroup<'a, M: Measurement = WallTime> {
    inner: upstream::BenchmarkGroup<'a, M>,
    name: String,
    test_mode: bool,
}

/// Forwards criterion's group settings (`&mut self` in, `&mut Self` out).
macro_rules! settings {
    ($( $(#[$doc:meta])* fn $name:ident($arg:ident: $ty:ty); )+) => {
        $(
            $(#[$doc])*
            pub fn $name(&mut self, $arg: $ty) -> &mut Self {
                self.inner.$name($arg);
                self
            }
        )+
    };
}

impl<M: Measurement> BenchmarkGroup<'_, M> {
    with_common_settings! {
        settings!
        /// Criterion's `plot_config`.
        fn plot_config(new_config: PlotConfiguration);
        /// Criterion's `throughput`.
        fn throughput(throughput: Throughput);
        /// Criterion's `sampling_mode`.
        fn sampling_mode(new_mode: SamplingMode);
    }

    /// Criterion's `bench_function`; the report is `group/id`'s.
    pub fn bench_function<ID: IntoBenchmarkId, F>(&mut self, id: ID, mut f: F) -> &mut Self
    where
        F: FnMut(&mut Bencher<'_, '_, M>),
    {
        self.bench_with_input(id, &(), |b, _| f(b))
    }

    /// Criterion's `bench_with_input`; the report is `group/id`'s.
    pub fn bench_with_input<ID: IntoBenchmarkId, F, I>(
        &mut self,
        id: ID,
        input: &I,
        mut f: F,
    ) -> &mut Self
    where
        F: FnMut(&mut Bencher<'_, '_, M>, &I),
        I: ?Sized,
    {
        let id = id.into_benchmark_id();
        let mut session = Session::new(id.full(&self.name), self.test_mode);
        let repeat = session.repeat();
        let mut routine = |b: &mut upstream::Bencher<'_, M>, i: &I| {
            session.enter();
            f(&mut Bencher { inner: b, repeat }, i);
            session.leave();
        };
        match id {
            BenchmarkId {
                function_name: Some(name),
                parameter: None,
            } => self.inner.bench_with_input(name, input, &mut routine),
            id => self
                .inner
                .bench_with_input(upstream_id(id), input, &mut routine),
        };
        self
    }

    /// Criterion's `finish`.
    pub fn finish(self) {
        self.inner.finish();
    }
}

/// Criterion's `Bencher`: each `iter*` call runs its closure N times in test mode with
/// `HOTPATH_CRITERION_ITERATIONS=N`, else exactly as criterion's. Derefs to criterion's
/// (for `to_async` and the like, which are not repeated).
pub struct Bencher<'a, 'b, M: Measurement = WallTime> {
    inner: &'b mut upstream::Bencher<'a, M>,
    /// Runs per criterion iteration: N in test mode with the variable set, else 1.
    repeat: u64,
}

impl<'a, M: Measurement> Bencher<'a, '_, M> {
    /// Criterion's `iter`.
    pub fn iter<O, R>(&mut self, routine: R)
    where
        R: FnMut() -> O,
    {
        let n = self.repeat;
        if n == 1 {
            return self.inner.iter(routine);
        }
        self.inner.iter(repeated(n, routine));
    }

    /// Criterion's `iter_with_large_drop`.
    pub fn iter_with_large_drop<O, R>(&mut self, routine: R)
    where
        R: FnMut() -> O,
    {
        let n = self.repeat;
        if n == 1 {
            return self.inner.iter_with_large_drop(routine);
        }
        self.inner.iter_with_large_drop(repeated(n, routine));
    }

    /// Criterion's `iter_custom`: asked for N times criterion's iterations.
    pub fn iter_custom<R>(&mut self, mut routine: R)
    where
        R: FnMut(u64) -> M::Value,
    {
        let n = self.repeat;
        self.inner
            .iter_custom(|iters| routine(iters.saturating_mul(n)));
    }

    /// Criterion's `iter_with_setup` (`iter_batched` with one input per iteration).
    pub fn iter_with_setup<I, O, S, R>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        self.iter_batched(setup, routine, BatchSize::PerIteration);
    }

    /// Criterion's `iter_batched`; repeated, each run gets its own input from `setup`.
    pub fn iter_batched<I, O, S, R>(&mut self, mut setup: S, mut routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        let n = self.repeat;
        if n == 1 {
            return self.inner.iter_batched(setup, routine, size);
        }
        self.inner.iter(|| {
            for _ in 0..n {
                drop(black_box(routine(black_box(setup()))));
            }
        });
    }

    /// Criterion's `iter_batched_ref`; repeated, each run gets its own input from
    /// `setup`.
    pub fn iter_batched_ref<I, O, S, R>(&mut self, mut setup: S, mut routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(&mut I) -> O,
    {
        let n = self.repeat;
        if n == 1 {
            return self.inner.iter_batched_ref(setup, routine, size);
        }
        self.inner.iter(|| {
            for _ in 0..n {
                let mut input = black_box(setup());
                drop(black_box(routine(&mut input)));
            }
        });
    }
}

/// `routine` run `n` times in one iteration: the first `n - 1` outputs dropped (as
/// criterion drops each iteration's), the last returned to criterion.
fn repeated<O>(n: u64, mut routine: impl FnMut() -> O) -> impl FnMut() -> O {
    move || {
        for _ in 1..n {
            drop(black_box(routine()));
        }
        routine()
    }
}

impl<'a, M: Measurement> std::ops::Deref for Bencher<'a, '_, M> {
    type Target = upstream::Bencher<'a, M>;

    fn deref(&self) -> &Self::Target {
        self.inner
    }
}

impl<M: Measurement> std::ops::DerefMut for Bencher<'_, '_, M> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.inner
    }
}
