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
            extra: [$($extra:literal),*], functions: $functions:tt, filter: $filter:literal,
            group: $group:ident
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

        /// The builder method of each section's own row limit, for tests.
        #[cfg(all(test, feature = "hotpath"))]
        #[allow(clippy::vec_init_then_push, reason = "one push per section with a limit, generated")]
        fn limit_setters() -> Vec<(Section, fn(crate::HotpathGuardBuilder, usize) -> crate::HotpathGuardBuilder)> {
            let mut v: Vec<(Section, fn(crate::HotpathGuardBuilder, usize) -> crate::HotpathGuardBuilder)> = Vec::new();
            $(limit_setter!(v, $V, $limit $(($($la)*))?);)*
            v
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

#[cfg(all(test, feature = "hotpath"))]
macro_rules! limit_setter {
    ($v:ident, $V:ident, own($key:ident, $env:literal, $what:literal)) => {
        $v.push((Section::$V, crate::HotpathGuardBuilder::$key));
    };
    ($v:ident, $V:ident, $($other:tt)*) => {};
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

/// Every section, walked through the surfaces that configure it: its row limit set by
/// the builder and by its variable reaches the text report's limits, for it and for the
/// sections that follow its limit.
#[cfg(all(test, feature = "hotpath"))]
mod tests {
    use super::*;

    #[test]
    fn every_section_has_a_limit_settable_by_the_builder_and_by_its_variable() {
        let setters = limit_setters();
        for section in Section::ALL {
            let owner = section
                .limit_owner()
                .expect("every section has a row limit");
            let set = setters
                .iter()
                .find(|(s, _)| *s == owner)
                .unwrap_or_else(|| panic!("{owner}: no builder method"));
            let b = (set.1)(crate::HotpathGuardBuilder::new("t"), 7);
            assert_eq!(b.cfg.limits().of(section), 7, "{section} via the builder");
            assert_eq!(
                owner.limit_env().map(|e| e.to_string()),
                Some(format!(
                    "HOTPATH_{}_LIMIT",
                    owner
                        .limit_key()
                        .unwrap()
                        .trim_end_matches("_limit")
                        .to_uppercase()
                )),
                "{owner}"
            );
        }
    }

    /// The variables, in one test: the environment is the process's.
    #[test]
    fn every_section_limit_variable_is_applied() {
        for section in Section::ALL {
            let owner = section.limit_owner().unwrap();
            let var = owner.limit_env().unwrap();
            // No other test of this binary reads the limit variables.
            std::env::set_var(var, "5");
            let mut cfg = crate::config::Config::new("t");
            cfg.apply_env();
            std::env::remove_var(var);
            assert_eq!(cfg.limits().of(section), 5, "{section} via {var}");
        }
    }
}
