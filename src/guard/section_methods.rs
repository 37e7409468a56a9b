//! The builder's methods of the sections, generated from the sections table (as
//! `crate::sections` hands it over): each section's own row limit (`<key>_limit`) and
//! time-sampling rate (`<key>_time_sampling_rate`), in both feature states, so that
//! `#[hotpath::main(<key>_limit = N)]`, which calls them, accepts exactly these.

use super::HotpathGuardBuilder;

macro_rules! generate {
    ($($V:ident: $limit:ident $(($($la:tt)*))?, $rate:ident $(($($ra:tt)*))?;)*) => {
        impl HotpathGuardBuilder {
            $(limit_method!($V, $limit $(($($la)*))?);)*
            $(rate_method!($rate $(($($ra)*))?);)*
        }

        /// The builder method of each section's own row limit, for tests.
        #[cfg(all(test, feature = "hotpath"))]
        fn limit_setters() -> Vec<(Section, LimitSetter)> {
            [$(limit_setter!($V, $limit $(($($la)*))?)),*]
                .into_iter()
                .flatten()
                .collect()
        }
    };
}

/// The builder method of a section's own row limit.
macro_rules! limit_method {
    ($V:ident, own($key:ident, $env:literal, $what:literal)) => {
        setters! {
            #[doc = concat!(
                "Rows of ", $what, "; overrides [`Self::limit`]. `", $env, "` overrides it; ",
                "`#[hotpath::main(", stringify!($key), " = N)]` sets it."
            )]
            $key(limit: usize) |cfg| {
                cfg.limits[crate::report::Section::$V as usize] = Some(limit)
            };
        }
    };
    ($V:ident, $($other:tt)*) => {};
}

/// The builder method of a section's own time-sampling rate.
macro_rules! rate_method {
    (sampled($sampler:ident, $key:ident, $env:literal, $event:literal, $doc:literal)) => {
        setters! {
            #[doc = $doc]
            $key(rate: f64) |cfg| super::set_rate(
                cfg,
                hotpath_core::state::Sampler::$sampler,
                stringify!($key),
                rate,
                concat!("timing every ", $event),
            );
        }
    };
    (none) => {};
}

/// A builder method setting a row limit.
#[cfg(all(test, feature = "hotpath"))]
type LimitSetter = fn(HotpathGuardBuilder, usize) -> HotpathGuardBuilder;

#[cfg(all(test, feature = "hotpath"))]
macro_rules! limit_setter {
    ($V:ident, own($key:ident, $env:literal, $what:literal)) => {
        Some((Section::$V, HotpathGuardBuilder::$key as LimitSetter))
    };
    ($V:ident, $($other:tt)*) => {
        None
    };
}

#[cfg(all(test, feature = "hotpath"))]
use crate::report::Section;

crate::sections::limits_and_rates!(generate);
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
