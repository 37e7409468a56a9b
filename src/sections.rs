//! What the facade reads from the sections table (`hotpath_macros::__sections!`, the one
//! declaration of every section), a leaf below the configuration: with `hotpath`,
//! whether this build has a section and which sampler times its events; in both feature
//! states, each section's own row limit and time-sampling rate, of which
//! `guard/section_methods.rs` makes the builder's methods. The variables
//! `HOTPATH_<NAME>_LIMIT` and `HOTPATH_<NAME>_TIME_SAMPLING_RATE` are read from the same
//! rows (`Section::limit_env`, `Section::rate_env`, in `config/env.rs`).

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
            rate: $rate:ident $(($($ra:tt)*))?, $($rest:tt)*
        }
    )*) => {
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

        /// Hands `$m!` each section's own row limit and time-sampling rate, one
        /// `Variant: limit, rate;` a section: what the builder's methods are made of
        /// (`guard/section_methods.rs`).
        macro_rules! limits_and_rates {
            ($m:ident) => {
                $m! { $($V: $limit $(($($la)*))?, $rate $(($($ra)*))?;)* }
            };
        }
        pub(crate) use limits_and_rates;
    };
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
