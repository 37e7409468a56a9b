//! What the facade generates from the sections table (`hotpath_macros::__sections!`, the
//! one declaration of every section): the builder's row-limit and time-sampling-rate
//! methods, in both feature states (so `#[hotpath::main(<name>_limit = N)]`, which calls
//! them, accepts exactly these); with `hotpath`, whether this build has a section and
//! which sampler times its events. The variables `HOTPATH_<NAME>_LIMIT` and
//! `HOTPATH_<NAME>_TIME_SAMPLING_RATE` are read from the same rows (`Section::limit_env`,
//! `Section::rate_env`, in `config/env.rs`).

#[cfg(feature = "hotpath")]
use crate::report::Section;
#[cfg(feature = "hotpath")]
use hotpath_core::state::Sampler;

macro_rules! generate {
    ($(
        $V:ident {
            doc: $doc:literal, name: $name:literal, route: $route:literal,
            aliases: [$($alias:literal),*], features: [$($feature:literal),*],
            target_os: $os:tt, limit: $limit:ident $(($($la:tt)*))?,
            rate: $rate:ident $(($($ra:tt)*))?, rows: $rows:tt,
            extra: [$($extra:literal),*], functions: $functions:tt, filter: $filter:literal
        }
    )*) => {
        impl crate::HotpathGuardBuilder {
            $(limit_method!($V, $limit $(($($la)*))?);)*
            $(rate_method!($rate $(($($ra)*))?);)*
        }

        /// Whether this build can produce `section`: one of its Cargo features is
        /// compiled in (if it needs one) and the target is its system (if it needs one).
        #[cfg(feature = "hotpath")]
        pub(crate) fn compiled(section: Section) -> bool {
            match section {
                $(Section::$V => features_on!($($feature),*) && os_on!($os),)*
            }
        }

        /// The sampler that times `section`'s events at a rate of their own.
        #[cfg(feature = "hotpath")]
        pub(crate) fn sampler(section: Section) -> Option<Sampler> {
            match section {
                $(Section::$V => sampler_of!($rate $(($($ra)*))?),)*
            }
        }
    };
}

/// The builder method of a section's own row limit.
macro_rules! limit_method {
    ($V:ident, own($key:ident, $env:literal, $what:literal)) => {
        #[doc = concat!(
                    "Rows of ", $what, "; overrides [`Self::limit`]. `", $env, "` overrides it; ",
                    "`#[hotpath::main(", stringify!($key), " = N)]` sets it."
                )]
        #[cfg_attr(not(feature = "hotpath"), allow(unused_mut))]
        pub fn $key(mut self, limit: usize) -> Self {
            #[cfg(feature = "hotpath")]
            {
                self.cfg.limits[crate::report::Section::$V as usize] = Some(limit);
            }
            #[cfg(not(feature = "hotpath"))]
            let _ = limit;
            self
        }
    };
    ($V:ident, $($other:tt)*) => {};
}

/// The builder method of a section's own time-sampling rate.
macro_rules! rate_method {
    (sampled($sampler:ident, $key:ident, $env:literal, $event:literal, $doc:literal)) => {
        #[doc = $doc]
        #[cfg_attr(not(feature = "hotpath"), allow(unused_mut))]
        pub fn $key(mut self, rate: f64) -> Self {
            #[cfg(feature = "hotpath")]
            crate::guard::set_rate(
                &mut self.cfg,
                Sampler::$sampler,
                stringify!($key),
                rate,
                concat!("timing every ", $event),
            );
            #[cfg(not(feature = "hotpath"))]
            let _ = rate;
            self
        }
    };
    (none) => {};
}

#[cfg(feature = "hotpath")]
macro_rules! features_on {
    () => {
        true
    };
    ($($feature:literal),+) => {
        cfg!(any($(feature = $feature),+))
    };
}

#[cfg(feature = "hotpath")]
macro_rules! os_on {
    (none) => {
        true
    };
    ("linux") => {
        cfg!(target_os = "linux")
    };
}

#[cfg(feature = "hotpath")]
macro_rules! sampler_of {
    (sampled($sampler:ident, $key:ident, $env:literal, $event:literal, $doc:literal)) => {
        Some(Sampler::$sampler)
    };
    (none) => {
        None
    };
}

hotpath_macros::__sections!(generate);
