//! The protobuf exposition format: varint-length-delimited `io.prometheus.client.MetricFamily`
//! messages (client_model's `metrics.proto`), written by hand.
//!
//! The `prometheus` crate's own protobuf model (its feature `protobuf`, which pulls in
//! the `protobuf` crate) predates native histograms: it has no `schema`, `zero_*`,
//! `*_span` or `*_delta` fields. The few messages needed here take a hundred lines, so
//! they are written directly: every family of the text format with the same names,
//! help, labels and values (and its classic buckets), plus each histogram's native
//! buckets ([`super::native`]).
//!
//! Field numbers, from `metrics.proto` (proto2; repeated scalars unpacked, the proto2
//! default, which every parser reads):
//!
//! | message | fields written |
//! |---|---|
//! | `MetricFamily` | 1 name, 2 help, 3 type, 4 metric |
//! | `Metric` | 1 label, 2 gauge, 3 counter, 4 summary, 5 untyped, 7 histogram, 6 timestamp_ms |
//! | `LabelPair` | 1 name, 2 value |
//! | `Gauge`, `Counter`, `Untyped` | 1 value |
//! | `Summary` | 1 sample_count, 2 sample_sum, 3 quantile (`Quantile`: 1 quantile, 2 value) |
//! | `Histogram` | 1 sample_count, 2 sample_sum, 3 bucket, 5 schema, 6 zero_threshold, 7 zero_count, 12 positive_span, 13 positive_delta |
//! | `Bucket` | 1 cumulative_count, 2 upper_bound |
//! | `BucketSpan` | 1 offset, 2 length |

use prometheus::proto::{Metric, MetricType};

use super::family::Family;
use super::native::{Native, SCHEMA, ZERO_THRESHOLD};

/// The media type of the format, with the parameters Prometheus asks for.
pub(crate) const CONTENT_TYPE: &str =
    "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";

/// Whether an `Accept` header asks for the protobuf format rather than the text one:
/// `application/vnd.google.protobuf` with `proto=io.prometheus.client.MetricFamily` and
/// `encoding=delimited`, at a quality above 0 and at least that of any range the text
/// format matches (`text/plain`, `text/*`, `*/*`). Prometheus sends it first
/// (`q=0.7` or more against the text format's lower `q`) when native histograms are
/// enabled. No header, or any other, is the text format.
pub(crate) fn wanted(accept: &str) -> bool {
    let (mut protobuf, mut text) = (0.0f64, 0.0f64);
    for range in accept.split(',') {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let (mut q, mut proto, mut encoding) = (1.0f64, None, None);
        for param in parts {
            let Some((name, value)) = param.split_once('=') else {
                continue;
            };
            let value = value.trim().trim_matches('"');
            match name.trim().to_ascii_lowercase().as_str() {
                "q" => {
                    q = value
                        .parse()
                        .ok()
                        .filter(|q: &f64| q.is_finite())
                        .unwrap_or(0.0)
                }
                "proto" => proto = Some(value.to_string()),
                "encoding" => encoding = Some(value.to_string()),
                _ => {}
            }
        }
        match media.as_str() {
            "application/vnd.google.protobuf"
                if proto.as_deref() == Some("io.prometheus.client.MetricFamily")
                    && encoding.as_deref() == Some("delimited") =>
            {
                protobuf = protobuf.max(q)
            }
            "text/plain" | "text/*" | "*/*" => text = text.max(q),
            _ => {}
        }
    }
    protobuf > 0.0 && protobuf >= text
}

/// Wire types.
const VARINT: u8 = 0;
const FIXED64: u8 = 1;
const LEN: u8 = 2;

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn key(out: &mut Vec<u8>, field: u32, wire: u8) {
    varint(out, u64::from(field) << 3 | u64::from(wire));
}

fn uint(out: &mut Vec<u8>, field: u32, v: u64) {
    key(out, field, VARINT);
    varint(out, v);
}

/// `sint32`/`sint64`: zigzag.
fn sint(out: &mut Vec<u8>, field: u32, v: i64) {
    key(out, field, VARINT);
    varint(out, ((v << 1) ^ (v >> 63)) as u64);
}

fn double(out: &mut Vec<u8>, field: u32, v: f64) {
    key(out, field, FIXED64);
    out.extend_from_slice(&v.to_le_bytes());
}

fn bytes(out: &mut Vec<u8>, field: u32, b: &[u8]) {
    key(out, field, LEN);
    varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// A nested message: written on its own, then copied in after its length.
fn message(out: &mut Vec<u8>, field: u32, write: impl FnOnce(&mut Vec<u8>)) {
    let mut m = Vec::new();
    write(&mut m);
    bytes(out, field, &m);
}

/// The whole exposition: one length-delimited `MetricFamily` per family.
pub(super) fn encode(families: &[Family]) -> Vec<u8> {
    let mut out = Vec::new();
    for f in families {
        let mut m = Vec::new();
        family(&mut m, f);
        varint(&mut out, m.len() as u64);
        out.extend_from_slice(&m);
    }
    out
}

fn family(out: &mut Vec<u8>, f: &Family) {
    bytes(out, 1, f.mf.name().as_bytes());
    bytes(out, 2, f.mf.help().as_bytes());
    let kind = f.mf.get_field_type();
    uint(
        out,
        3,
        match kind {
            MetricType::COUNTER => 0,
            MetricType::GAUGE => 1,
            MetricType::SUMMARY => 2,
            MetricType::UNTYPED => 3,
            MetricType::HISTOGRAM => 4,
        },
    );
    for (i, m) in f.metrics.iter().enumerate() {
        let native = f.native.get(i).and_then(Option::as_ref);
        message(out, 4, |out| metric(out, kind, m, native));
    }
}

fn metric(out: &mut Vec<u8>, kind: MetricType, m: &Metric, native: Option<&Native>) {
    for l in m.get_label() {
        message(out, 1, |out| {
            bytes(out, 1, l.name().as_bytes());
            bytes(out, 2, l.value().as_bytes());
        });
    }
    match kind {
        MetricType::COUNTER => message(out, 3, |out| double(out, 1, m.get_counter().get_value())),
        MetricType::GAUGE => message(out, 2, |out| double(out, 1, m.get_gauge().get_value())),
        // No family here is untyped; the crate deprecates its accessors (protobuf
        // specific, it says), but the format has the type.
        #[allow(deprecated)]
        MetricType::UNTYPED => message(out, 5, |out| double(out, 1, m.get_untyped().get_value())),
        MetricType::SUMMARY => message(out, 4, |out| {
            let s = m.get_summary();
            uint(out, 1, s.sample_count());
            double(out, 2, s.sample_sum());
            for q in s.get_quantile() {
                message(out, 3, |out| {
                    double(out, 1, q.quantile());
                    double(out, 2, q.value());
                });
            }
        }),
        MetricType::HISTOGRAM => message(out, 7, |out| {
            let h = m.get_histogram();
            uint(out, 1, h.get_sample_count());
            double(out, 2, h.get_sample_sum());
            // The classic buckets as the text format has them, for scrapers that read
            // those (Prometheus 2.42 keeps only the native series; later versions can be
            // told to keep both).
            for b in h.get_bucket() {
                message(out, 3, |out| {
                    uint(out, 1, b.cumulative_count());
                    double(out, 2, b.upper_bound());
                });
            }
            if let Some(n) = native {
                sint(out, 5, i64::from(SCHEMA));
                double(out, 6, ZERO_THRESHOLD);
                uint(out, 7, n.zero_count);
                for &(offset, length) in &n.spans {
                    message(out, 12, |out| {
                        sint(out, 1, i64::from(offset));
                        uint(out, 2, u64::from(length));
                    });
                }
                for &d in &n.deltas {
                    sint(out, 13, d);
                }
            }
        }),
    }
    if m.timestamp_ms() != 0 {
        uint(out, 6, m.timestamp_ms() as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prometheus_accept_headers_ask_for_protobuf() {
        // Prometheus 2.42 with --enable-feature=native-histograms.
        assert!(wanted(
            "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;\
             encoding=delimited,application/openmetrics-text;version=1.0.0;q=0.8,\
             application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;\
             q=0.5,*/*;q=0.1"
        ));
        assert!(wanted(
            "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;\
             encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3,*/*;q=0.2"
        ));
        // Spaces and quoted parameters.
        assert!(wanted(
            "application/vnd.google.protobuf; proto=\"io.prometheus.client.MetricFamily\"; \
             encoding=delimited"
        ));
        // Prometheus without native histograms: OpenMetrics and text only.
        assert!(!wanted(
            "application/openmetrics-text;version=1.0.0,application/openmetrics-text;\
             version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
        ));
    }

    #[test]
    fn other_accept_headers_get_the_text_format() {
        for accept in [
            "",
            "*/*",
            "text/plain",
            // Preferred less than the text format.
            "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;\
             encoding=delimited;q=0.2,text/plain;q=0.5",
            // Refused.
            "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;\
             encoding=delimited;q=0",
            // Not the delimited MetricFamily stream.
            "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;\
             encoding=text",
            "application/vnd.google.protobuf;proto=other.Message;encoding=delimited",
            "application/vnd.google.protobuf",
            "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;\
             encoding=delimited;q=nan",
        ] {
            assert!(!wanted(accept), "{accept}");
        }
    }

    #[test]
    fn varints_and_zigzag() {
        let mut out = Vec::new();
        varint(&mut out, 300);
        assert_eq!(out, [0xac, 0x02]);
        let mut out = Vec::new();
        sint(&mut out, 1, -1);
        sint(&mut out, 1, 1);
        sint(&mut out, 1, i64::MIN);
        assert_eq!(
            out,
            [8, 1, 8, 2, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
        );
    }
}
