//! The sections of a report: every kind of measurement is one [`Section`] value, named
//! here once. Configuration (`HOTPATH_REPORT`), the JSON `sections` array, the live
//! routes, the table renderer and the console all go through this type.

#[cfg(feature = "read")]
use serde::{Deserialize, Deserializer};
use serde::{Serialize, Serializer};

/// Where readers group sections: a tab of the console, a tool of the MCP server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    /// Per-function tables: timing, allocations, CPU, waits, the calling-context tree.
    Functions,
    /// I/O: `io!` entries and I/O per function, SQL, HTTP clients and servers.
    Io,
    /// Data moving between threads and tasks, and the locks around it: channels,
    /// streams, futures, mutexes, read-write locks.
    DataFlow,
    /// The process: its threads, the tokio runtimes.
    Threads,
    /// Debug values.
    Debug,
}

impl Group {
    /// Every group, in the order of its first section.
    pub const ALL: [Group; 5] = [
        Group::Functions,
        Group::Io,
        Group::DataFlow,
        Group::Threads,
        Group::Debug,
    ];

    /// The sections of the group, in report order.
    pub fn sections(self) -> impl Iterator<Item = Section> {
        Section::ALL.into_iter().filter(move |s| s.group() == self)
    }
}

/// Reads the sections table (`hotpath_macros::__sections!`) into [`Section`] and its
/// metadata.
macro_rules! declare {
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
        /// One section of the report.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Section {
            $(
                #[doc = $doc]
                $V,
            )*
        }

        impl Section {
            /// Every section, in report order.
            pub const ALL: [Section; Section::COUNT] = [$(Section::$V),*];
            /// How many sections there are.
            pub const COUNT: usize = [$($name),*].len();

            /// The name in JSON, `HOTPATH_REPORT` and the table header: `timing`, `alloc`, ...
            pub const fn name(self) -> &'static str {
                match self {
                    $(Section::$V => $name,)*
                }
            }

            /// Other names `HOTPATH_REPORT` and readers accept (hotpath 0.30's among them).
            pub const fn aliases(self) -> &'static [&'static str] {
                match self {
                    $(Section::$V => &[$($alias),*],)*
                }
            }

            /// The live route that serves the section: `/functions_timing`, `/io`, ...
            pub const fn route(self) -> &'static str {
                match self {
                    $(Section::$V => $route,)*
                }
            }

            /// The Cargo features of the `hotpath` crate of which any one compiles the
            /// section in, beyond `hotpath` itself (empty: always there).
            pub const fn features(self) -> &'static [&'static str] {
                match self {
                    $(Section::$V => &[$($feature),*],)*
                }
            }

            /// The only target system that can measure the section, if it needs one.
            pub const fn target_os(self) -> Option<&'static str> {
                match self {
                    $(Section::$V => opt!($os),)*
                }
            }

            /// The section whose row limit applies to this one: itself when it has its
            /// own, the function sections' for `alloc`, `cpu` and `waits`; `None` when only
            /// the general `limit` applies.
            pub const fn limit_owner(self) -> Option<Section> {
                match self {
                    $(Section::$V => limit_owner!($V, $limit $(($($la)*))?),)*
                }
            }

            /// The name of the section's own limit, as the builder method and
            /// `#[hotpath::main]` argument: `functions_limit`, `io_limit`, ...
            pub const fn limit_key(self) -> Option<&'static str> {
                match self {
                    $(Section::$V => limit_key!($limit $(($($la)*))?),)*
                }
            }

            /// The variable of the section's own limit: `HOTPATH_IO_LIMIT`, ...
            pub const fn limit_env(self) -> Option<&'static str> {
                match self {
                    $(Section::$V => limit_env!($limit $(($($la)*))?),)*
                }
            }

            /// The name of the section's own time-sampling rate, as the builder method:
            /// `channels_time_sampling_rate`, ...
            pub const fn rate_key(self) -> Option<&'static str> {
                match self {
                    $(Section::$V => rate_key!($rate $(($($ra)*))?),)*
                }
            }

            /// The variable of the section's own time-sampling rate:
            /// `HOTPATH_CHANNELS_TIME_SAMPLING_RATE`, ...
            pub const fn rate_env(self) -> Option<&'static str> {
                match self {
                    $(Section::$V => rate_env!($rate $(($($ra)*))?),)*
                }
            }

            /// The report's key of the section's rows (a list): `io`, `mutexes`, ...
            pub const fn rows_key(self) -> Option<&'static str> {
                match self {
                    $(Section::$V => opt!($rows),)*
                }
            }

            /// The report's other top-level keys that belong to the section (its
            /// sampling rate, totals).
            pub const fn extra_keys(self) -> &'static [&'static str] {
                match self {
                    $(Section::$V => &[$($extra),*],)*
                }
            }

            /// The field of each function row the section fills in (`alloc`, `cpu`,
            /// `io`, `waits`), if it has a per-function object.
            pub const fn function_field(self) -> Option<&'static str> {
                match self {
                    $(Section::$V => opt!($functions),)*
                }
            }

            /// Whether the section's fragment lists only the functions that have its
            /// per-function object.
            pub const fn filters_functions(self) -> bool {
                match self {
                    $(Section::$V => $filter,)*
                }
            }

            /// Where readers group the section: a tab of the console, a tool of the MCP
            /// server.
            pub const fn group(self) -> Group {
                match self {
                    $(Section::$V => Group::$group,)*
                }
            }
        }
    };
}

/// `none` → `None`, a literal → `Some(literal)`.
macro_rules! opt {
    (none) => {
        None
    };
    ($l:literal) => {
        Some($l)
    };
}

macro_rules! limit_owner {
    ($V:ident, own($key:ident, $env:literal, $what:literal)) => {
        Some(Section::$V)
    };
    ($V:ident, of($owner:ident)) => {
        Some(Section::$owner)
    };
    ($V:ident, none) => {
        None
    };
}

macro_rules! limit_key {
    (own($key:ident, $env:literal, $what:literal)) => {
        Some(stringify!($key))
    };
    ($($other:tt)*) => {
        None
    };
}

macro_rules! limit_env {
    (own($key:ident, $env:literal, $what:literal)) => {
        Some($env)
    };
    ($($other:tt)*) => {
        None
    };
}

macro_rules! rate_key {
    (sampled($sampler:ident, $key:ident, $env:literal, $event:literal, $doc:literal)) => {
        Some(stringify!($key))
    };
    (none) => {
        None
    };
}

macro_rules! rate_env {
    (sampled($sampler:ident, $key:ident, $env:literal, $event:literal, $doc:literal)) => {
        Some($env)
    };
    (none) => {
        None
    };
}

hotpath_macros::__sections!(declare);

impl Section {
    /// The section named `name` or one of its aliases.
    pub fn parse(name: &str) -> Option<Section> {
        Section::ALL
            .into_iter()
            .find(|s| s.name() == name || s.aliases().contains(&name))
    }

    /// The features that add the section, for a message: `hotpath-alloc`, `sqlx or
    /// diesel`, `reqwest-0-12, reqwest-0-13 or ureq-3`.
    pub fn features_text(self) -> Option<String> {
        match self.features() {
            [] => None,
            [one] => Some(one.to_string()),
            [rest @ .., last] => Some(format!("{} or {last}", rest.join(", "))),
        }
    }

    /// The names of `sections`, joined by `sep`.
    pub fn join(sections: &[Section], sep: &str) -> String {
        let names: Vec<&str> = sections.iter().map(|s| s.name()).collect();
        names.join(sep)
    }

    /// The section a live route serves.
    pub fn from_route(path: &str) -> Option<Section> {
        Section::ALL.into_iter().find(|s| s.route() == path)
    }
}

impl std::fmt::Display for Section {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A section equals its name: `Section::Io == "io"`.
impl PartialEq<str> for Section {
    fn eq(&self, name: &str) -> bool {
        self.name() == name
    }
}

impl PartialEq<&str> for Section {
    fn eq(&self, name: &&str) -> bool {
        self.name() == *name
    }
}

impl Serialize for Section {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

#[cfg(feature = "read")]
impl<'de> Deserialize<'de> for Section {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Section::parse(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown section {name:?}")))
    }
}

/// Reads a `sections` array, leaving out names this build does not know (a report from
/// a newer hotpath), as readers ignore unknown keys.
#[cfg(feature = "read")]
pub(crate) fn known_sections<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Section>, D::Error> {
    let names: Vec<String> = Vec::deserialize(d)?;
    Ok(names.iter().filter_map(|n| Section::parse(n)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_routes_and_parsing_agree() {
        for s in Section::ALL {
            assert_eq!(Section::parse(s.name()), Some(s));
            assert_eq!(Section::from_route(s.route()), Some(s));
            assert_eq!(s.to_string(), s.name());
            assert_eq!(
                serde_json::to_string(&s).unwrap(),
                format!("\"{}\"", s.name())
            );
        }
        assert_eq!(Section::parse("functions-cpu"), Some(Section::Cpu));
        assert_eq!(Section::parse("nope"), None);
    }
}
