//! Native (sparse, exponential) histograms of the protobuf exposition: how the report's
//! log-linear duration histograms become Prometheus native buckets.
//!
//! Schema [`SCHEMA`] (4): bucket `k` holds the values in `(2^((k-1)/16), 2^(k/16)]`
//! seconds, 16 buckets per power of two like ours, each 4.4 % wide (a factor
//! 2^(1/16) = 1.0443). Their boundaries are geometric and ours linear (16 equal slices of
//! each power of two), so one of our buckets may straddle two native ones. Rather than
//! splitting its count (which would invent a distribution inside it), the whole count
//! goes to the native bucket that holds the value the report shows for it: its midpoint,
//! clamped to the distribution's `[min, max]` (`Histogram::buckets`). Values are in
//! seconds (`ns / 1e9`), as in the classic buckets and `_sum`.
//!
//! What that guarantees: the native buckets' cumulative counts at any native bound are
//! the report's cumulative counts at that value, so `histogram_quantile(q, ...)` finds
//! the rank in the native bucket that holds the report's percentile `p = 100 q` and
//! returns a value inside that bucket: within a factor 2^(1/16) (4.4 %) of the report's
//! percentile, which is itself within 3.1 % of a recorded value. The count, the sum and
//! the zero bucket (durations of exactly 0 ns) are exact.

/// The schema: 2^4 = 16 buckets per power of two.
pub(super) const SCHEMA: i32 = 4;

/// The zero bucket's half-width, seconds: 2^-128, client_golang's default. Only
/// durations of exactly 0 ns land in it (1 ns is 1e-9 s). Being above 0, it also marks
/// the histogram as native for Prometheus (2.40 to 2.4x tell a native histogram by a
/// zero threshold, a zero count or buckets).
pub(super) const ZERO_THRESHOLD: f64 = 2.938_735_877_055_719e-39;

/// Upper bounds of the 16 buckets of one power of two, scaled into `[0.5, 1)`:
/// `2^(j/16) / 2`, the values Prometheus itself uses (`exponentialBounds` of its
/// `model/histogram`), so that a value on a bound lands where Prometheus expects it.
const BOUNDS: [f64; 16] = [
    0.5,
    0.522_136_891_213_706_9,
    0.545_253_866_332_628_8,
    0.569_394_317_378_345_8,
    0.594_603_557_501_360_5,
    0.620_928_906_036_742,
    0.648_419_777_325_504_8,
    0.677_127_773_468_446_3,
    0.707_106_781_186_547_5,
    0.738_413_072_969_749_6,
    0.771_105_412_703_970_4,
    0.805_245_165_974_627,
    0.840_896_415_253_714_4,
    0.878_126_080_186_649_5,
    0.917_004_043_204_671_1,
    0.957_603_280_698_573_5,
];

/// Empty native buckets between two used ones that are written as zeros rather than
/// starting a new span (a span costs two numbers, a zero bucket one), as client_golang.
const MAX_GAP: i32 = 2;

/// The native part of one histogram metric.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Native {
    /// Values in the zero bucket (durations of 0 ns).
    pub zero_count: u64,
    /// Runs of consecutive positive buckets: (offset from the end of the previous run,
    /// or the first bucket's index for the first run; length).
    pub spans: Vec<(i32, u32)>,
    /// Each positive bucket's count minus the previous bucket's (the first: minus 0),
    /// in bucket order across the spans.
    pub deltas: Vec<i64>,
}

/// `x = frac · 2^exp` with `frac` in `[0.5, 1)`, for a finite `x > 0`.
fn frexp(x: f64) -> (f64, i32) {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal: scale into the normal range first (never a duration in seconds).
        let (f, e) = frexp(x * 2f64.powi(64));
        return (f, e - 64);
    }
    let frac = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (frac, biased - 1022)
}

/// The native bucket of a value `x > 0`: the `k` with `2^((k-1)/16) < x <= 2^(k/16)`.
pub(super) fn index(x: f64) -> i32 {
    let (frac, exp) = frexp(x);
    // The first bound at least `frac`; 16 when `frac` is above every one (the bucket
    // whose upper bound is the next power of two).
    let j = BOUNDS.partition_point(|b| *b < frac) as i32;
    j + (exp - 1) * 16
}

/// The upper bound of native bucket `k`, seconds (its lower bound is `upper(k - 1)`).
#[cfg(test)]
pub(super) fn upper(k: i32) -> f64 {
    let j = k.rem_euclid(16) as usize;
    BOUNDS[j] * 2f64.powi(k.div_euclid(16) + 1)
}

impl Native {
    /// The native buckets of a report histogram of durations in ns.
    pub(super) fn of(h: &hotpath_report::Histogram) -> Native {
        let mut native = Native::default();
        // (bucket, count), ascending: the report's buckets are ascending and `index`
        // is monotonic, so equal indexes are neighbours.
        let mut used: Vec<(i32, u64)> = Vec::new();
        for &(v, c) in &h.buckets {
            if c == 0 {
                continue;
            }
            if v == 0 {
                native.zero_count += c;
                continue;
            }
            let k = index(v as f64 / 1e9);
            match used.last_mut() {
                Some((last, n)) if *last == k => *n += c,
                _ => used.push((k, c)),
            }
        }
        let mut prev_count = 0i64;
        let mut next: Option<i32> = None;
        for (k, c) in used {
            match next {
                Some(n) if k - n <= MAX_GAP => {
                    // Fill the gap with empty buckets in the current span.
                    for _ in n..k {
                        native.deltas.push(-prev_count);
                        prev_count = 0;
                    }
                    if let Some(span) = native.spans.last_mut() {
                        span.1 += (k - n) as u32 + 1;
                    }
                }
                Some(n) => native.spans.push((k - n, 1)),
                None => native.spans.push((k, 1)),
            }
            let c = i64::try_from(c).unwrap_or(i64::MAX);
            native.deltas.push(c - prev_count);
            prev_count = c;
            next = Some(k + 1);
        }
        if native.spans.is_empty() {
            // No value above 0: a no-op span, as client_golang writes, so that a
            // histogram with no values yet is also read as native.
            native.spans.push((0, 0));
        }
        native
    }

    /// The positive buckets as (index, count), the spans and deltas decoded.
    #[cfg(test)]
    pub(super) fn buckets(&self) -> Vec<(i32, u64)> {
        let mut out = Vec::new();
        let (mut k, mut count, mut d) = (0i32, 0i64, self.deltas.iter());
        for (i, &(offset, len)) in self.spans.iter().enumerate() {
            k = if i == 0 { offset } else { k + offset };
            for _ in 0..len {
                count += d.next().copied().unwrap_or(0);
                out.push((k, count as u64));
                k += 1;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hotpath_report::Histogram;

    #[test]
    fn the_bounds_are_powers_of_two_to_the_sixteenth() {
        for (j, b) in BOUNDS.iter().enumerate() {
            let exact = (j as f64 / 16.0).exp2() / 2.0;
            assert!((b - exact).abs() <= f64::EPSILON, "{j}: {b} vs {exact}");
        }
        assert_eq!(upper(0), 1.0);
        assert_eq!(upper(16), 2.0);
        assert_eq!(upper(-16), 0.5);
        assert!((upper(1) - 2f64.powf(1.0 / 16.0)).abs() < 1e-15);
    }

    #[test]
    fn a_value_lands_in_the_bucket_whose_bounds_hold_it() {
        // Bounds are upper-inclusive: a value on one belongs to the bucket below it.
        assert_eq!(index(1.0), 0);
        assert_eq!(index(0.5), -16);
        assert_eq!(index(2.0), 16);
        assert_eq!(index(upper(5)), 5);
        assert_eq!(index(upper(5) * (1.0 + 1e-15)), 6);
        // Every duration from 1 ns to 100 s, stepping by about 0.3 %.
        let mut ns = 1u64;
        while ns < 100_000_000_000 {
            let x = ns as f64 / 1e9;
            let k = index(x);
            assert!(upper(k - 1) < x && x <= upper(k), "{ns} ns in bucket {k}");
            ns += ns / 300 + 1;
        }
        assert_eq!(frexp(f64::MIN_POSITIVE / 4.0), (0.5, -1023));
    }

    #[test]
    fn counts_go_to_the_bucket_of_the_reported_value() {
        // 0 ns twice; 1 µs (bucket k0); 1.01 µs (same bucket); then one bucket up, two
        // empty buckets later (one span, zeros filled), and far away (a new span).
        let k0 = index(1e-6);
        // A duration in the middle of native bucket `k`.
        let ns = |k: i32| ((upper(k - 1) + upper(k)) / 2.0 * 1e9).round() as u64;
        let h = Histogram {
            sum: 0,
            buckets: vec![
                (0, 2),
                (1_000, 3),
                (1_010, 4),
                (ns(k0 + 1), 5),
                (ns(k0 + 4), 6),
                (ns(k0 + 40), 7),
            ],
        };
        assert_eq!(index(1.01e-6), k0);
        let n = Native::of(&h);
        assert_eq!(n.zero_count, 2);
        assert_eq!(n.spans, [(k0, 5), (35, 1)]);
        assert_eq!(n.deltas, [7, -2, -5, 0, 6, 1]);
        assert_eq!(
            n.buckets(),
            [
                (k0, 7),
                (k0 + 1, 5),
                (k0 + 2, 0),
                (k0 + 3, 0),
                (k0 + 4, 6),
                (k0 + 40, 7)
            ]
        );
        let total: u64 = n.buckets().iter().map(|b| b.1).sum::<u64>() + n.zero_count;
        assert_eq!(total, h.count());
    }

    /// Prometheus's `histogram_quantile` over a native histogram (promql/quantile.go
    /// of 2.42): the first bucket whose cumulative count reaches `q · count`, linear
    /// interpolation inside it.
    fn native_quantile(n: &Native, count: u64, q: f64) -> f64 {
        let rank = q * count as f64;
        let mut seen = n.zero_count as f64;
        if seen >= rank {
            return ZERO_THRESHOLD * rank / seen;
        }
        for (k, c) in n.buckets() {
            let c = c as f64;
            seen += c;
            if seen >= rank {
                let (lo, hi) = (upper(k - 1), upper(k));
                return lo + (hi - lo) * (rank - (seen - c)) / c;
            }
        }
        f64::NAN
    }

    #[test]
    fn quantiles_stay_in_the_native_bucket_of_the_reported_percentile() {
        // 20,000 durations spread log-uniformly from 100 ns to 10 ms (a fixed
        // pseudo-random sequence), recorded by the profiler's own histogram.
        let mut hist = hotpath_core::hist::Hist::default();
        let (mut x, mut min, mut max) = (0x2545_f491_4f6c_dd1du64, u64::MAX, 0);
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let ns = (100.0 * 1e5f64.powf((x >> 11) as f64 / (1u64 << 53) as f64)) as u64;
            hist.record(ns);
            (min, max) = (min.min(ns), max.max(ns));
        }
        // As the report carries it: each bucket's midpoint clamped to [min, max].
        let h = Histogram {
            sum: 0,
            buckets: hist
                .buckets()
                .map(|(v, c)| (v.clamp(min, max), c))
                .collect(),
        };
        let n = Native::of(&h);
        let width = 2f64.powf(1.0 / 16.0);
        for q in [0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999] {
            let p = hist.percentile(q * 100.0, min, max).unwrap() as f64 / 1e9;
            let got = native_quantile(&n, h.count(), q);
            let k = index(p);
            assert!(
                upper(k - 1) <= got && got <= upper(k),
                "q {q}: {got} s outside bucket {k} ({}, {}] of the percentile {p} s",
                upper(k - 1),
                upper(k)
            );
            assert!(got / p <= width && p / got <= width, "q {q}: {got} vs {p}");
        }
    }

    #[test]
    fn an_empty_histogram_is_still_native() {
        let n = Native::of(&Histogram::default());
        assert_eq!(n.spans, [(0, 0)]);
        assert!(n.deltas.is_empty() && n.zero_count == 0);
        let zeros = Native::of(&Histogram {
            sum: 0,
            buckets: vec![(0, 9)],
        });
        assert_eq!((zeros.zero_count, zeros.spans), (9, vec![(0, 0)]));
    }
}
