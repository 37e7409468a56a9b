//! Tests' reading of the protobuf exposition: decoded by `prost` from `metrics.proto`'s
//! field numbers (independently of the writer), turned back into the `prometheus`
//! crate's model and encoded as text, which must be the text exposition byte for byte.

use prometheus::proto::{
    Bucket, Counter, Gauge, Histogram, LabelPair, Metric, MetricFamily, MetricType,
};
use prometheus::TextEncoder;
use prost::Message;

use crate::prometheus::native::{upper, SCHEMA, ZERO_THRESHOLD};
use hotpath_report::Report;

/// `io.prometheus.client` messages, as client_model's `metrics.proto` declares them.
pub(crate) mod dto {
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct MetricFamily {
        #[prost(string, optional, tag = "1")]
        pub name: Option<String>,
        #[prost(string, optional, tag = "2")]
        pub help: Option<String>,
        #[prost(int32, optional, tag = "3")]
        pub r#type: Option<i32>,
        #[prost(message, repeated, tag = "4")]
        pub metric: Vec<Metric>,
        #[prost(string, optional, tag = "5")]
        pub unit: Option<String>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Metric {
        #[prost(message, repeated, tag = "1")]
        pub label: Vec<LabelPair>,
        #[prost(message, optional, tag = "2")]
        pub gauge: Option<Value>,
        #[prost(message, optional, tag = "3")]
        pub counter: Option<Value>,
        #[prost(message, optional, tag = "4")]
        pub summary: Option<Summary>,
        #[prost(message, optional, tag = "5")]
        pub untyped: Option<Value>,
        #[prost(message, optional, tag = "7")]
        pub histogram: Option<Histogram>,
        #[prost(int64, optional, tag = "6")]
        pub timestamp_ms: Option<i64>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct LabelPair {
        #[prost(string, optional, tag = "1")]
        pub name: Option<String>,
        #[prost(string, optional, tag = "2")]
        pub value: Option<String>,
    }

    /// `Gauge`, `Counter`, `Untyped`: one double, field 1.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Value {
        #[prost(double, optional, tag = "1")]
        pub value: Option<f64>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Summary {
        #[prost(uint64, optional, tag = "1")]
        pub sample_count: Option<u64>,
        #[prost(double, optional, tag = "2")]
        pub sample_sum: Option<f64>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Histogram {
        #[prost(uint64, optional, tag = "1")]
        pub sample_count: Option<u64>,
        #[prost(double, optional, tag = "4")]
        pub sample_count_float: Option<f64>,
        #[prost(double, optional, tag = "2")]
        pub sample_sum: Option<f64>,
        #[prost(message, repeated, tag = "3")]
        pub bucket: Vec<Bucket>,
        #[prost(sint32, optional, tag = "5")]
        pub schema: Option<i32>,
        #[prost(double, optional, tag = "6")]
        pub zero_threshold: Option<f64>,
        #[prost(uint64, optional, tag = "7")]
        pub zero_count: Option<u64>,
        #[prost(message, repeated, tag = "9")]
        pub negative_span: Vec<BucketSpan>,
        #[prost(sint64, repeated, packed = "false", tag = "10")]
        pub negative_delta: Vec<i64>,
        #[prost(message, repeated, tag = "12")]
        pub positive_span: Vec<BucketSpan>,
        #[prost(sint64, repeated, packed = "false", tag = "13")]
        pub positive_delta: Vec<i64>,
        #[prost(double, repeated, packed = "false", tag = "14")]
        pub positive_count: Vec<f64>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Bucket {
        #[prost(uint64, optional, tag = "1")]
        pub cumulative_count: Option<u64>,
        #[prost(double, optional, tag = "2")]
        pub upper_bound: Option<f64>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct BucketSpan {
        #[prost(sint32, optional, tag = "1")]
        pub offset: Option<i32>,
        #[prost(uint32, optional, tag = "2")]
        pub length: Option<u32>,
    }
}

/// The families of a protobuf exposition.
pub(crate) fn decode(mut bytes: &[u8]) -> Vec<dto::MetricFamily> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        out.push(
            dto::MetricFamily::decode_length_delimited(&mut bytes)
                .expect("a length-delimited MetricFamily"),
        );
    }
    out
}

/// A native histogram's positive buckets as (index, count), its spans and deltas read
/// as Prometheus reads them; every count at least 0.
pub(crate) fn native_buckets(h: &dto::Histogram) -> Vec<(i32, u64)> {
    let mut out = Vec::new();
    let (mut k, mut count, mut deltas) = (0i32, 0i64, h.positive_delta.iter());
    for (i, span) in h.positive_span.iter().enumerate() {
        let offset = span.offset.unwrap_or(0);
        k = if i == 0 { offset } else { k + offset };
        for _ in 0..span.length.unwrap_or(0) {
            count += deltas.next().expect("a delta per bucket");
            assert!(count >= 0, "bucket {k} has count {count}");
            out.push((k, count as u64));
            k += 1;
        }
    }
    assert!(deltas.next().is_none(), "more deltas than buckets");
    out
}

/// Checks the protobuf exposition of `r` against its text exposition: the same
/// families, help, types, labels and values (decoded and re-encoded as text, the text
/// exposition byte for byte), and every histogram a native one whose buckets hold its
/// count and agree with its classic buckets. Returns the decoded families.
pub(crate) fn same_as_text(r: &Report, limit: usize) -> Vec<dto::MetricFamily> {
    let families = decode(&crate::prometheus::encode_protobuf(r, limit));
    let mut model = Vec::new();
    for f in &families {
        let kind = match f.r#type {
            Some(0) => MetricType::COUNTER,
            Some(1) => MetricType::GAUGE,
            Some(4) => MetricType::HISTOGRAM,
            other => panic!("{:?}: type {other:?}", f.name),
        };
        let mut mf = MetricFamily::default();
        mf.set_name(f.name.clone().expect("a name"));
        mf.set_help(f.help.clone().expect("a help"));
        mf.set_field_type(kind);
        let mut metrics = Vec::new();
        for m in &f.metric {
            let mut out = Metric::default();
            out.set_label(
                m.label
                    .iter()
                    .map(|l| {
                        let mut p = LabelPair::default();
                        p.set_name(l.name.clone().expect("a label name"));
                        p.set_value(l.value.clone().expect("a label value"));
                        p
                    })
                    .collect(),
            );
            // Exactly the value of the family's type.
            let present = [
                m.gauge.is_some(),
                m.counter.is_some(),
                m.summary.is_some(),
                m.untyped.is_some(),
                m.histogram.is_some(),
            ];
            assert_eq!(present.iter().filter(|p| **p).count(), 1, "{f:?}");
            assert_eq!(m.timestamp_ms, None);
            match kind {
                MetricType::COUNTER => {
                    let mut c = Counter::default();
                    c.set_value(m.counter.as_ref().and_then(|c| c.value).expect("a counter"));
                    out.set_counter(c);
                }
                MetricType::GAUGE => {
                    let mut g = Gauge::default();
                    g.set_value(m.gauge.as_ref().and_then(|g| g.value).expect("a gauge"));
                    out.set_gauge(g);
                }
                _ => {
                    let h = m.histogram.as_ref().expect("a histogram");
                    check_native(h);
                    let mut classic = Histogram::default();
                    classic.set_sample_count(h.sample_count.expect("a count"));
                    classic.set_sample_sum(h.sample_sum.expect("a sum"));
                    classic.set_bucket(
                        h.bucket
                            .iter()
                            .map(|b| {
                                let mut out = Bucket::default();
                                out.set_cumulative_count(b.cumulative_count.expect("a count"));
                                out.set_upper_bound(b.upper_bound.expect("a bound"));
                                out
                            })
                            .collect(),
                    );
                    out.set_histogram(classic);
                }
            }
            metrics.push(out);
        }
        mf.set_metric(metrics);
        model.push(mf);
    }
    let mut text = String::new();
    TextEncoder::new()
        .encode_utf8(&model, &mut text)
        .expect("text encoding");
    assert_eq!(text, crate::prometheus::encode(r, limit));
    families
}

/// A native histogram: schema 4, the zero bucket of 2^-128, positive buckets only,
/// integer counts that with the zero bucket make the count, and, at every classic
/// bucket's bound, a cumulative count between those at the bounds of the native bucket
/// holding it.
fn check_native(h: &dto::Histogram) {
    assert_eq!(h.schema, Some(SCHEMA));
    assert_eq!(h.zero_threshold, Some(ZERO_THRESHOLD));
    assert!(h.negative_span.is_empty() && h.negative_delta.is_empty());
    assert!(h.positive_count.is_empty() && h.sample_count_float.is_none());
    let buckets = native_buckets(h);
    let zero = h.zero_count.expect("a zero count");
    let count = h.sample_count.expect("a count");
    assert_eq!(zero + buckets.iter().map(|b| b.1).sum::<u64>(), count);
    for b in &h.bucket {
        let bound = b.upper_bound.expect("a bound");
        let k = crate::prometheus::native::index(bound);
        let below: u64 = zero + buckets.iter().filter(|b| b.0 < k).map(|b| b.1).sum::<u64>();
        let through: u64 = below
            + buckets
                .iter()
                .filter(|b| b.0 == k)
                .map(|b| b.1)
                .sum::<u64>();
        let classic = b.cumulative_count.expect("a count");
        assert!(
            below <= classic && classic <= through,
            "le {bound}: {classic} outside [{below}, {through}] (native bucket {k}: ({}, {}])",
            upper(k - 1),
            upper(k)
        );
    }
}
