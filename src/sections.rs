//! What the session needs to know of each section, generated from the sections table
//! (`hotpath_macros::__sections!`, the one declaration of every section): whether this
//! build has it, and which sampler times its events. A leaf below the configuration.
//! The builder's row-limit and time-sampling-rate methods are generated from the same
//! rows in `guard/section_methods.rs`; the variables `HOTPATH_<NAME>_LIMIT` and
//! `HOTPATH_<NAME>_TIME_SAMPLING_RATE` are read from them (`Section::limit_env`,
//! `Section::rate_env`, in `config/env.rs`).

use crate::report::Section;
use hotpath_core::state::Sampler;

macro_rules! generate {
    ($(
        $V:ident {
            doc: $doc:literal, name: $name:literal, route: $route:literal,
            aliases: [$($alias:literal),*], features: [$($feature:literal),*],
            target_os: $os:tt, limit: $limit:ident $(($($la:tt)*))?,
            rate: $rate:ident $(($($ra:tt)*))?, $($rest:tt)*
        }
    )*) => {
        /// Whether this build can produce `section`: one of its Cargo features is
        /// compiled in (if it needs one) and the target is its system (if it needs one).
        pub(crate) fn compiled(section: Section) -> bool {
            match section {
                $(Section::$V => features_on!($($feature),*) && os_on!($os),)*
            }
        }

        /// The sampler that times `section`'s events at a rate of their own.
        pub(crate) fn sampler(section: Section) -> Option<Sampler> {
            match section {
                $(Section::$V => sampler_of!($rate $(($($ra)*))?),)*
            }
        }
    };
}

macro_rules! features_on {
    () => {
        true
    };
    ($($feature:literal),+) => {
        cfg!(any($(feature = $feature),+))
    };
}

macro_rules! os_on {
    (none) => {
        true
    };
    ("linux") => {
        cfg!(target_os = "linux")
    };
}

macro_rules! sampler_of {
    (sampled($sampler:ident, $key:ident, $env:literal, $event:literal, $doc:literal)) => {
        Some(Sampler::$sampler)
    };
    (none) => {
        None
    };
}

hotpath_macros::__sections!(generate);
