//! One metric family of `/metrics` as the section encoders fill it, and what they
//! share: the duration histograms' buckets and unique label values.

use prometheus::proto::{
    Bucket, Counter, Gauge, Histogram, LabelPair, Metric, MetricFamily, MetricType,
};

use super::native::Native;
use hotpath_report::format::{twin_names, Twin};
use hotpath_report::{DistNs, Histogram as Hist, LockDist, WallNs};

/// Upper bounds of the duration histograms, seconds: 1, 2.5 and 5 per decade from
/// 100 ns to 10 s.
pub(crate) fn duration_buckets() -> Vec<f64> {
    let mut v = Vec::new();
    for exp in -7..1 {
        for m in ["1", "2.5", "5"] {
            // Parsed from decimal text, so that each bound prints as written.
            v.push(format!("{m}e{exp}").parse().expect("a decimal number"));
        }
    }
    v.push(10.0);
    v
}

/// One metric family: the `prometheus` crate's model, which its text encoder writes,
/// and each histogram metric's native buckets, which only the protobuf format carries.
pub(crate) struct Family {
    pub(crate) mf: MetricFamily,
    pub(crate) metrics: Vec<Metric>,
    /// One per metric: the native buckets of a histogram, `None` for other metrics.
    pub(crate) native: Vec<Option<Native>>,
}

impl Family {
    pub(crate) fn new(name: &str, help: &str, kind: MetricType) -> Family {
        let mut mf = MetricFamily::default();
        mf.set_name(name.to_string());
        mf.set_help(help.to_string());
        mf.set_field_type(kind);
        Family {
            mf,
            metrics: Vec::new(),
            native: Vec::new(),
        }
    }

    fn labelled(labels: &[(&str, &str)]) -> Metric {
        let mut m = Metric::default();
        m.set_label(
            labels
                .iter()
                .map(|(k, v)| {
                    let mut l = LabelPair::default();
                    l.set_name(k.to_string());
                    l.set_value(v.to_string());
                    l
                })
                .collect(),
        );
        m
    }

    pub(crate) fn counter(&mut self, labels: &[(&str, &str)], v: f64) {
        let mut c = Counter::default();
        c.set_value(v);
        let mut m = Family::labelled(labels);
        m.set_counter(c);
        self.push(m, None);
    }

    pub(crate) fn gauge(&mut self, labels: &[(&str, &str)], v: f64) {
        let mut g = Gauge::default();
        g.set_value(v);
        let mut m = Family::labelled(labels);
        m.set_gauge(g);
        self.push(m, None);
    }

    /// Adds a metric, with its native buckets if it is a histogram.
    fn push(&mut self, m: Metric, native: Option<Native>) {
        self.metrics.push(m);
        self.native.push(native);
    }

    /// The family of one series without labels, `v` its counter or gauge value
    /// (`kind`), added to `out`.
    pub(crate) fn single(name: &str, help: &str, kind: MetricType, v: f64, out: &mut Vec<Family>) {
        let mut f = Family::new(name, help, kind);
        if kind == MetricType::COUNTER {
            f.counter(&[], v);
        } else {
            f.gauge(&[], v);
        }
        f.finish(out);
    }

    /// A duration histogram from a report's distribution, when it has one (kept its
    /// histogram).
    pub(crate) fn durations(
        &mut self,
        labels: &[(&str, &str)],
        d: Option<&impl Durations>,
        bounds: &[f64],
    ) {
        if let Some((h, min, max)) = d.and_then(Durations::parts) {
            self.histogram(labels, h, min, max, bounds);
        }
    }

    /// A duration histogram from a report's distribution (`min` and `max` in ns).
    pub(crate) fn histogram(
        &mut self,
        labels: &[(&str, &str)],
        d: &Hist,
        min: u64,
        max: u64,
        bounds: &[f64],
    ) {
        let mut h = Histogram::default();
        h.set_sample_count(d.count());
        h.set_sample_sum(d.sum as f64 / 1e9);
        h.set_bucket(
            bounds
                .iter()
                .map(|b| {
                    let mut bucket = Bucket::default();
                    bucket.set_upper_bound(*b);
                    bucket.set_cumulative_count(d.count_at_most(
                        (b * 1e9).round() as u64,
                        min,
                        max,
                    ));
                    bucket
                })
                .collect(),
        );
        let mut m = Family::labelled(labels);
        m.set_histogram(h);
        self.push(m, Some(Native::of(d)));
    }

    pub(crate) fn finish(self, out: &mut Vec<Family>) {
        if !self.metrics.is_empty() {
            out.push(self);
        }
    }

    /// The family as the `prometheus` crate's text encoder takes it.
    pub(crate) fn into_proto(mut self) -> MetricFamily {
        self.mf.set_metric(self.metrics);
        self.mf
    }
}

/// A report's distribution of durations (ns) that may keep its histogram.
pub(crate) trait Durations {
    /// The histogram, when kept, with the minimum and maximum.
    fn parts(&self) -> Option<(&Hist, u64, u64)>;
}

macro_rules! durations {
    ($($t:ty),*) => {$(
        impl Durations for $t {
            fn parts(&self) -> Option<(&Hist, u64, u64)> {
                Some((self.hist.as_ref()?, self.min, self.max))
            }
        }
    )*};
}

durations!(WallNs, DistNs, LockDist);

/// Label values for rows, told apart as the tables tell them apart ([`twin_names`]),
/// and made unique: Prometheus refuses a scrape with two series of the same labels.
pub(crate) fn unique<'a>(rows: impl IntoIterator<Item = Twin<'a>>) -> Vec<String> {
    let rows: Vec<Twin<'a>> = rows.into_iter().collect();
    let mut out: Vec<String> = Vec::with_capacity(rows.len());
    for v in twin_names(&rows) {
        let mut v2 = v.clone();
        let mut k = 2;
        while out.contains(&v2) {
            v2 = format!("{v} #{k}");
            k += 1;
        }
        out.push(v2);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_are_unique() {
        let t = |name, file, line, type_name| Twin {
            name,
            type_name,
            file,
            line,
        };
        let rows = [
            t("parse", "src/a.rs", 10, ""),
            t("parse", "src/b.rs", 20, ""),
            t("load", "src/a.rs", 30, ""),
            t("x", "src/a.rs", 40, "File"),
            t("x", "src/a.rs", 40, "File"),
            // A name that another row's told-apart name equals.
            t("x (#1)", "src/a.rs", 50, ""),
        ];
        assert_eq!(
            unique(rows),
            [
                "parse (a.rs:10)",
                "parse (b.rs:20)",
                "load",
                "x (#1)",
                "x (#2)",
                "x (#1) #2"
            ]
        );
    }

    #[test]
    fn buckets_rise_from_100ns_to_10s() {
        let b = duration_buckets();
        assert_eq!(b.len(), 25);
        assert!((b[0] - 1e-7).abs() < 1e-12);
        assert_eq!(*b.last().unwrap(), 10.0);
        assert!(b.windows(2).all(|w| w[0] < w[1]));
    }
}
