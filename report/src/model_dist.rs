//! The report's distributions (see `docs/report-schema.md`): the percentiles and the
//! histogram every distribution carries, and the three sets of keys distributions have:
//! a function's [`WallNs`] (with its self time), a data-flow [`DistNs`] (with the count of
//! values), and [`Dist`] (lock modes, SQL queries, HTTP endpoints and server routes, whose
//! entries count the values themselves).
//!
//! Three types because their JSON keys differ: `wall_ns` has `self` between `total` and
//! `mean`, a data-flow dist starts with `count`, and the others have neither (the
//! schema's "lock dist"). Lock and service distributions were two names of one type and
//! are one type, [`Dist`].

use hotpath_macros::SerializeFields;
#[cfg(feature = "read")]
use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
#[cfg(feature = "read")]
use serde::{Deserialize, Deserializer};
use serde::{Serialize, Serializer};

/// Values at the configured percentiles, serialized as `"p<percentile>": value` keys in
/// order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Percentiles(pub Vec<(f64, u64)>);

impl Percentiles {
    /// The value at percentile `p`, if it was computed.
    pub fn get(&self, p: f64) -> Option<u64> {
        self.0.iter().find(|(q, _)| *q == p).map(|(_, v)| *v)
    }
}

/// `50` → `p50`, `99.9` → `p99.9`.
pub fn percentile_key(p: f64) -> String {
    format!("p{}", percentile_label(p))
}

/// `50` → `50`, `99.9` → `99.9`.
pub fn percentile_label(p: f64) -> String {
    let s = format!("{p:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl crate::ser::Fields for Percentiles {
    fn fields<M: SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
        for (p, v) in &self.0 {
            m.serialize_entry(&percentile_key(*p), v)?;
        }
        Ok(())
    }
}

impl Serialize for Percentiles {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::ser::map(self, s)
    }
}

#[cfg(feature = "read")]
impl<'de> Deserialize<'de> for Percentiles {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Percentiles;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("percentile keys such as \"p95\"")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Percentiles, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, u64>()? {
                    if let Some(p) = k.strip_prefix('p').and_then(|p| p.parse::<f64>().ok()) {
                        out.push((p, v));
                    }
                }
                Ok(Percentiles(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// The histogram behind a distribution's percentiles, for exports that need the whole
/// shape (Prometheus buckets). Values are in the distribution's base unit.
#[derive(Clone, Debug, Default, PartialEq, SerializeFields)]
#[cfg_attr(feature = "read", derive(Deserialize))]
pub struct Histogram {
    /// Sum of every recorded value.
    pub sum: u64,
    /// Non-empty buckets in ascending order, each `[value, count]`: the value the bucket
    /// stands for (its midpoint, clamped to the distribution's minimum and maximum:
    /// within 3.1 % of every value in it) and how many values it holds.
    pub buckets: Vec<(u64, u64)>,
}

impl Histogram {
    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.buckets.iter().map(|(_, c)| c).sum()
    }

    /// How many values are at most `bound`: exact below `min` and from `max` on (the
    /// distribution's extremes), by bucket in between.
    pub fn count_at_most(&self, bound: u64, min: u64, max: u64) -> u64 {
        if bound < min {
            0
        } else if bound >= max {
            self.count()
        } else {
            self.buckets
                .iter()
                .take_while(|(v, _)| *v <= bound)
                .map(|(_, c)| c)
                .sum()
        }
    }
}

/// What the three distribution types share, for the code that reads any of them (the
/// tables' mean and percentile columns, `hotpath diff`'s comparison of them).
pub(crate) trait Distribution {
    /// Mean of one value.
    fn mean(&self) -> u64;
    /// The values at the configured percentiles.
    fn percentiles(&self) -> &Percentiles;
}

/// Declares a distribution type: its own fields (up to `mean`), then `min` and `max`
/// (documented by `$min`, `$max`), the percentiles and the histogram (`$hist`); and its
/// [`Distribution`].
macro_rules! distribution {
    (
        $(#[$attr:meta])*
        pub struct $T:ident { $($head:tt)* }
        min: $min:literal, max: $max:literal, hist: $hist:literal
    ) => {
        $(#[$attr])*
        pub struct $T {
            $($head)*
            #[doc = $min]
            pub min: u64,
            #[doc = $max]
            pub max: u64,
            /// One key per configured percentile: `p50`, `p95`, `p99.9`.
            #[serde(flatten)]
            pub percentiles: Percentiles,
            #[doc = $hist]
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub hist: Option<Histogram>,
        }

        impl Distribution for $T {
            fn mean(&self) -> u64 {
                self.mean
            }
            fn percentiles(&self) -> &Percentiles {
                &self.percentiles
            }
        }
    };
}

distribution! {
    /// Wall-time statistics of one function, ns.
    #[derive(Clone, Debug, PartialEq, SerializeFields)]
    #[cfg_attr(feature = "read", derive(Deserialize))]
    pub struct WallNs {
        /// Inclusive wall time; recursion counts the outermost call only. Scaled up to all
        /// calls when sampled.
        pub total: u64,
        /// Exclusive of measured children (async: busy time minus children). Scaled when sampled.
        #[serde(rename = "self")]
        pub self_: u64,
        /// Mean duration of one timed call (each recursive level counts its own inclusive
        /// duration, so for recursion this is not `total / calls`).
        pub mean: u64,
    }
    min: "Shortest timed call.",
    max: "Longest timed call.",
    hist: "The histogram of per-call durations (timed calls), ns."
}

distribution! {
    /// A distribution of durations, ns: the same keys as [`WallNs`] without self time.
    #[derive(Clone, Debug, PartialEq, SerializeFields)]
    #[cfg_attr(feature = "read", derive(Deserialize))]
    pub struct DistNs {
        /// Values recorded (timed operations).
        pub count: u64,
        /// Their sum.
        pub total: u64,
        /// `total / count`.
        pub mean: u64,
    }
    min: "Smallest value.",
    max: "Largest value.",
    hist: "The histogram behind the percentiles."
}

distribution! {
    /// A distribution of durations, ns: `total, mean, min, max, p<P>…, hist` (the schema's
    /// "lock dist"): a lock mode's waits and holds, and the durations of a SQL query, an HTTP
    /// endpoint or a server route. The values are counted by the entry (`timed`, `calls`).
    #[derive(Clone, Debug, Default, PartialEq, SerializeFields)]
    #[cfg_attr(feature = "read", derive(Deserialize))]
    pub struct Dist {
        /// Sum of the values (lock modes: over the timed acquisitions).
        pub total: u64,
        /// Mean of one.
        pub mean: u64,
    }
    min: "Shortest.",
    max: "Longest.",
    hist: "The histogram behind the percentiles."
}

/// [`Dist`] by the name the lock sections gave it first.
pub type LockDist = Dist;
