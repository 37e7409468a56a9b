//! hotpath showcase: a small sensor-data pipeline.
//!
//! ```text
//! cargo run --release --example demo --features hotpath   # program output + report
//! cargo run --release --example demo                      # program output only
//! ```
//!
//! The pipeline generates a CSV-like dataset of temperature readings, round-trips it
//! through a file in the system temp directory (wrapped with `io!`, a buffered writer over
//! the file so both layers show), parses it (skipping malformed lines), groups it by
//! station, computes statistics (with a recursive merge sort), fetches station metadata
//! concurrently on a two-thread tokio runtime from a small TCP service on loopback (whose
//! connections are wrapped with `io!`, the answers collected as a `stream!`), scans for
//! anomalies on a plain `std::thread` fed through a bounded `channel!`, and prints a
//! summary. Everything is seeded, so both builds print the same results.

use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::io::{BufWriter, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_util::StreamExt;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

/// Data lines in the generated dataset (plus one header line).
const LINES: usize = 1_000_000;
/// Seed of every random choice in the dataset.
const SEED: u64 = 0x5EED_0FC0_FFEE;
/// Stations and their mean annual temperature in °C.
const STATIONS: [(&str, f64); 16] = [
    ("Abha", 18.0),
    ("Bergen", 7.7),
    ("Cairo", 21.4),
    ("Dakar", 24.0),
    ("Edinburgh", 9.3),
    ("Fairbanks", -2.3),
    ("Guatemala City", 20.4),
    ("Hanoi", 23.6),
    ("Istanbul", 13.9),
    ("Jakarta", 26.7),
    ("Kyiv", 8.4),
    ("Lima", 19.2),
    ("Montreal", 6.8),
    ("Nairobi", 17.8),
    ("Oslo", 5.7),
    ("Perth", 18.7),
];
/// Tag names; a reading's tags are stored as a bit set in this order.
const TAGS: [&str; 4] = ["calibrated", "battery_low", "indoor", "backfilled"];

// ---------------------------------------------------------------------------------------
// Deterministic random numbers

/// xorshift64: small, fast, and good enough for synthetic data.
struct XorShift64(u64);

impl XorShift64 {
    fn new(seed: u64) -> Self {
        XorShift64(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Uniform in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Approximately standard normal (Irwin–Hall: sum of 12 uniforms minus 6).
    fn normal(&mut self) -> f64 {
        (0..12).map(|_| self.unit()).sum::<f64>() - 6.0
    }
}

/// FNV-1a, used for checksums and to derive per-station values.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

// ---------------------------------------------------------------------------------------
// Generating the dataset

/// `id,station,timestamp,temp_c,tags` lines; about one line in 250 is malformed on purpose.
#[hotpath::measure]
fn generate_dataset(lines: usize, seed: u64) -> String {
    let mut rng = XorShift64::new(seed);
    let mut out = String::with_capacity(lines * 48);
    out.push_str("id,station,timestamp,temp_c,tags\n");
    let mut ts: u64 = 1_704_067_200; // 2024-01-01T00:00:00Z
    for id in 0..lines as u64 {
        let (station, mean) = STATIONS[rng.below(STATIONS.len() as u64) as usize];
        ts += 1 + rng.below(120);
        // A seasonal swing over the year, plus noise.
        let day = ((ts - 1_704_067_200) / 86_400) as f64;
        let season = 6.0 * (day / 365.0 * std::f64::consts::TAU).cos();
        let temp = mean + season + 3.5 * rng.normal();
        let mut tags = String::new();
        for (bit, tag) in TAGS.iter().enumerate() {
            if rng.below(4 + 4 * bit as u64) == 0 {
                if !tags.is_empty() {
                    tags.push('|');
                }
                tags.push_str(tag);
            }
        }
        let r = if rng.below(250) == 0 {
            match rng.below(4) {
                0 => writeln!(out, "{id},{station},{ts}"),
                1 => writeln!(out, "{id},{station},{ts},n/a,{tags}"),
                2 => writeln!(out, "{id},{station},yesterday,{temp:.1},{tags}"),
                _ => writeln!(out, "{id},{station},{ts},{temp:.1},solar_flare"),
            }
        } else {
            writeln!(out, "{id},{station},{ts},{temp:.1},{tags}")
        };
        r.expect("writing to a String cannot fail");
    }
    out
}

/// A file in the system temp directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str) -> Self {
        TempFile(std::env::temp_dir().join(format!("{name}-{}", std::process::id())))
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Writes the dataset a line at a time through a 64 KiB buffer: the report shows the
/// million small writes the program makes and the few large ones that reach the file.
#[hotpath::measure]
fn write_dataset(path: &Path, data: &str) -> std::io::Result<()> {
    let file = hotpath::io!(std::fs::File::create(path)?, label = "dataset file");
    let mut out = hotpath::io!(
        BufWriter::with_capacity(64 * 1024, file),
        label = "dataset writer"
    );
    for line in data.split_inclusive('\n') {
        out.write_all(line.as_bytes())?;
    }
    out.flush()
}

#[hotpath::measure]
fn read_dataset(path: &Path) -> std::io::Result<String> {
    let mut file = hotpath::io!(std::fs::File::open(path)?, label = "dataset file");
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    Ok(text)
}

// ---------------------------------------------------------------------------------------
// Parsing

#[derive(Debug, Clone, Copy)]
struct Reading<'a> {
    id: u64,
    station: &'a str,
    timestamp: u64,
    temp_c: f64,
    tags: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ParseError {
    MissingField(&'static str),
    BadNumber(&'static str),
    UnknownTag,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::MissingField(name) => write!(f, "missing field `{name}`"),
            ParseError::BadNumber(name) => write!(f, "field `{name}` is not a number"),
            ParseError::UnknownTag => f.write_str("unknown tag"),
        }
    }
}

#[derive(Debug, Default)]
struct ParseStats {
    parsed: usize,
    skipped: usize,
    missing_field: usize,
    bad_number: usize,
    unknown_tag: usize,
    first_error: Option<(usize, ParseError)>,
}

fn field<'a>(
    fields: &mut impl Iterator<Item = &'a str>,
    name: &'static str,
) -> Result<&'a str, ParseError> {
    fields.next().ok_or(ParseError::MissingField(name))
}

fn parse_tags(s: &str) -> Result<u8, ParseError> {
    if s.is_empty() {
        return Ok(0);
    }
    s.split('|').try_fold(0u8, |bits, tag| {
        let i = TAGS
            .iter()
            .position(|&t| t == tag)
            .ok_or(ParseError::UnknownTag)?;
        Ok(bits | 1 << i)
    })
}

#[hotpath::measure]
fn parse_line(line: &str) -> Result<Reading<'_>, ParseError> {
    let mut fields = line.split(',');
    let id = field(&mut fields, "id")?
        .parse()
        .map_err(|_| ParseError::BadNumber("id"))?;
    let station = field(&mut fields, "station")?;
    if station.is_empty() {
        return Err(ParseError::MissingField("station"));
    }
    let timestamp = field(&mut fields, "timestamp")?
        .parse()
        .map_err(|_| ParseError::BadNumber("timestamp"))?;
    let temp_c = field(&mut fields, "temp_c")?
        .parse()
        .map_err(|_| ParseError::BadNumber("temp_c"))?;
    let tags = parse_tags(field(&mut fields, "tags")?)?;
    Ok(Reading {
        id,
        station,
        timestamp,
        temp_c,
        tags,
    })
}

#[hotpath::measure]
fn parse_all(text: &str) -> (Vec<Reading<'_>>, ParseStats) {
    let mut readings = Vec::with_capacity(text.len() / 40);
    let mut stats = ParseStats::default();
    for (n, line) in text.lines().enumerate().skip(1) {
        match parse_line(line) {
            Ok(r) => {
                stats.parsed += 1;
                readings.push(r);
            }
            Err(e) => {
                stats.skipped += 1;
                match e {
                    ParseError::MissingField(_) => stats.missing_field += 1,
                    ParseError::BadNumber(_) => stats.bad_number += 1,
                    ParseError::UnknownTag => stats.unknown_tag += 1,
                }
                stats.first_error.get_or_insert((n + 1, e));
            }
        }
    }
    (readings, stats)
}

// ---------------------------------------------------------------------------------------
// Grouping and statistics

#[derive(Debug, Clone)]
struct StationStats {
    name: String,
    count: usize,
    mean: f64,
    stddev: f64,
    min: f64,
    median: f64,
    p95: f64,
    max: f64,
    low_battery: usize,
}

/// Readings grouped by station.
struct StationIndex<'a> {
    temps: HashMap<&'a str, Vec<f64>>,
    low_battery: HashMap<&'a str, usize>,
}

#[hotpath::measure_all]
impl<'a> StationIndex<'a> {
    fn build(readings: &[Reading<'a>]) -> Self {
        let mut index = StationIndex {
            temps: HashMap::new(),
            low_battery: HashMap::new(),
        };
        for r in readings {
            index.insert(r);
        }
        index
    }

    /// Called once per reading and trivially cheap: not worth a row in the report.
    #[hotpath::skip]
    fn insert(&mut self, r: &Reading<'a>) {
        self.temps.entry(r.station).or_default().push(r.temp_c);
        if r.tags & 0b10 != 0 {
            *self.low_battery.entry(r.station).or_default() += 1;
        }
    }

    /// Per-station statistics, sorted by station name. Sorts each station's readings.
    fn statistics(&mut self) -> Vec<StationStats> {
        let mut names: Vec<&'a str> = self.temps.keys().copied().collect();
        names.sort_unstable();
        let mut scratch = Vec::new();
        names
            .into_iter()
            .map(|name| {
                let temps = self.temps.get_mut(name).expect("key from the map");
                scratch.resize(temps.len(), 0.0);
                merge_sort(temps, &mut scratch);
                Self::describe(name, temps, self.low_battery.get(name).copied())
            })
            .collect()
    }

    fn describe(name: &str, sorted: &[f64], low_battery: Option<usize>) -> StationStats {
        let n = sorted.len() as f64;
        let mean = sorted.iter().sum::<f64>() / n;
        let var = sorted.iter().map(|t| (t - mean) * (t - mean)).sum::<f64>() / n;
        let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
        StationStats {
            name: name.to_string(),
            count: sorted.len(),
            mean,
            stddev: var.sqrt(),
            min: sorted[0],
            median: at(0.5),
            p95: at(0.95),
            max: sorted[sorted.len() - 1],
            low_battery: low_battery.unwrap_or(0),
        }
    }
}

/// Top-down merge sort; `scratch` must be as long as `v`. Short runs use insertion sort.
#[hotpath::measure]
fn merge_sort(v: &mut [f64], scratch: &mut [f64]) {
    let len = v.len();
    if len <= 24 {
        for i in 1..len {
            let mut j = i;
            while j > 0 && v[j - 1] > v[j] {
                v.swap(j - 1, j);
                j -= 1;
            }
        }
        return;
    }
    let mid = len / 2;
    {
        let (left, right) = v.split_at_mut(mid);
        let (s_left, s_right) = scratch.split_at_mut(mid);
        merge_sort(left, s_left);
        merge_sort(right, s_right);
    }
    let (mut i, mut j) = (0, mid);
    for slot in scratch.iter_mut() {
        if j >= len || (i < mid && v[i] <= v[j]) {
            *slot = v[i];
            i += 1;
        } else {
            *slot = v[j];
            j += 1;
        }
    }
    v.copy_from_slice(scratch);
}

// ---------------------------------------------------------------------------------------
// Anomaly scan (runs on its own std::thread)

/// Readings before each one that the anomaly scan compares it with.
const ANOMALY_WINDOW: usize = 64;

/// Readings more than 3 standard deviations from the mean of the 64 readings before them.
#[hotpath::measure]
fn count_anomalies(temps: &[f64]) -> usize {
    const W: usize = ANOMALY_WINDOW;
    temps
        .windows(W + 1)
        .filter(|w| {
            let (window, x) = (&w[..W], w[W]);
            let mean = window.iter().sum::<f64>() / W as f64;
            let var = window.iter().map(|t| (t - mean) * (t - mean)).sum::<f64>() / W as f64;
            (x - mean).abs() > 3.0 * var.sqrt()
        })
        .count()
}

// ---------------------------------------------------------------------------------------
// Async: station metadata from a TCP service on loopback

/// Starts the metadata service: a thread accepting connections on a free loopback port and
/// one thread per connection. Each request is a line, `HEAD <name>` or `BODY <header>`;
/// each answer comes after a simulated network delay, a 16-hex-digit line for `HEAD` and
/// a 32 KiB payload for `BODY`.
fn start_metadata_service() -> std::io::Result<SocketAddr> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    std::thread::Builder::new()
        .name("metadata-accept".into())
        .spawn(move || {
            for stream in listener.incoming().flatten() {
                let spawned = std::thread::Builder::new()
                    .name("metadata-conn".into())
                    .spawn(move || serve_metadata(stream));
                if spawned.is_err() {
                    break;
                }
            }
        })?;
    Ok(addr)
}

/// Serves one connection until the client closes it. One `io!` site, one row in the
/// report however many connections it serves.
#[hotpath::measure]
fn serve_metadata(stream: TcpStream) -> std::io::Result<()> {
    let mut conn = hotpath::io!(stream, label = "metadata service");
    let mut request = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        request.clear();
        // A byte at a time: requests are a few bytes, and it keeps the framing obvious.
        while conn.read(&mut byte)? == 1 && byte[0] != b'\n' {
            request.push(byte[0]);
        }
        let Ok(request) = std::str::from_utf8(&request) else {
            return Ok(());
        };
        if let Some(name) = request.strip_prefix("HEAD ") {
            let h = fnv1a(name.as_bytes());
            std::thread::sleep(Duration::from_millis(2 + h % 4)); // the network
            writeln!(conn, "{h:016x}")?;
        } else if let Some(header) = request.strip_prefix("BODY ") {
            let header: u64 = header.parse().unwrap_or(0);
            std::thread::sleep(Duration::from_millis(3 + header % 5));
            let mut rng = XorShift64::new(header);
            let body: Vec<u8> = (0..32 * 1024).map(|_| rng.next_u64() as u8).collect();
            conn.write_all(&body)?;
        } else {
            return Ok(()); // the client closed the connection
        }
    }
}

#[derive(Debug, Clone)]
struct StationMeta {
    name: String,
    elevation_m: u32,
    firmware: u32,
}

/// Simulated expensive payload check: hashes `rounds` pseudo-random bytes from `seed`.
fn verify_payload(seed: u64, rounds: usize) -> u64 {
    let mut rng = XorShift64::new(seed);
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for _ in 0..rounds {
        h = (h ^ (rng.next_u64() & 0xff)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Looks up a station's metadata: two round trips to the metadata service (the waiting
/// is the point here), each followed by CPU work on the response.
#[hotpath::measure]
async fn fetch_station_metadata(service: SocketAddr, name: String) -> std::io::Result<StationMeta> {
    let mut conn = tokio::io::BufReader::new(tokio::net::TcpStream::connect(service).await?);
    conn.get_mut()
        .write_all(format!("HEAD {name}\n").as_bytes())
        .await?;
    let mut line = String::new();
    conn.read_line(&mut line).await?;
    let h = u64::from_str_radix(line.trim_end(), 16).unwrap_or(0);
    let header = verify_payload(h, 150_000);
    conn.get_mut()
        .write_all(format!("BODY {header}\n").as_bytes())
        .await?;
    let mut body = vec![0u8; 32 * 1024];
    conn.read_exact(&mut body).await?;
    let body = verify_payload(fnv1a(&body) ^ header, 400_000);
    Ok(StationMeta {
        name,
        elevation_m: (body % 2_500) as u32,
        firmware: 100 + (header % 60) as u32,
    })
}

#[derive(Debug, Clone, Copy)]
struct Thresholds {
    heat_c: f64,
    frost_c: f64,
}

#[hotpath::measure]
async fn fetch_thresholds() -> Thresholds {
    tokio::time::sleep(Duration::from_millis(4)).await;
    let h = verify_payload(7, 200_000);
    Thresholds {
        heat_c: 30.0 + (h % 5) as f64,
        frost_c: -5.0 - (h % 3) as f64,
    }
}

#[hotpath::measure]
async fn fetch_calibration(thresholds: Thresholds) -> f64 {
    tokio::time::sleep(Duration::from_millis(6)).await;
    let h = verify_payload(thresholds.heat_c.to_bits(), 200_000);
    (h % 11) as f64 / 20.0 - 0.25 // sensor offset in °C
}

/// Reference data: thresholds, then the calibration that depends on them.
#[hotpath::measure]
async fn load_reference_data() -> (Thresholds, f64) {
    let thresholds = fetch_thresholds().await;
    let offset = fetch_calibration(thresholds).await;
    (thresholds, offset)
}

// ---------------------------------------------------------------------------------------
// Summary

struct Summary<'s> {
    stats: &'s [StationStats],
    meta: &'s [StationMeta],
    thresholds: Thresholds,
    offset: f64,
    heat_alerts: usize,
    frost_alerts: usize,
}

#[hotpath::measure_all]
impl fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<15} {:>6} {:>7} {:>6} {:>7} {:>7} {:>7} {:>6} {:>6}",
            "station", "n", "mean", "sd", "min", "median", "p95", "max", "elev"
        )?;
        for (s, m) in self.stats.iter().zip(self.meta) {
            debug_assert_eq!(s.name, m.name);
            writeln!(
                f,
                "{:<15} {:>6} {:>7.2} {:>6.2} {:>7.1} {:>7.1} {:>7.1} {:>6.1} {:>5}m",
                s.name,
                s.count,
                s.mean + self.offset,
                s.stddev,
                s.min + self.offset,
                s.median + self.offset,
                s.p95 + self.offset,
                s.max + self.offset,
                m.elevation_m,
            )?;
        }
        write!(
            f,
            "alerts: {} above {:.0} °C, {} below {:.0} °C (calibration offset {:+.2} °C)",
            self.heat_alerts,
            self.thresholds.heat_c,
            self.frost_alerts,
            self.thresholds.frost_c,
            self.offset
        )
    }
}

#[hotpath::measure_all]
impl fmt::Debug for Summary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hottest = self.stats.iter().max_by(|a, b| a.mean.total_cmp(&b.mean));
        let coldest = self.stats.iter().min_by(|a, b| a.mean.total_cmp(&b.mean));
        f.debug_struct("Summary")
            .field("stations", &self.stats.len())
            .field("hottest", &hottest.map(|s| &s.name))
            .field("coldest", &coldest.map(|s| &s.name))
            .field(
                "low_battery",
                &self.stats.iter().map(|s| s.low_battery).sum::<usize>(),
            )
            .field(
                "firmware",
                &self.meta.iter().map(|m| m.firmware).max().unwrap_or(0),
            )
            .finish()
    }
}

// ---------------------------------------------------------------------------------------

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
#[hotpath::main(percentiles = [50, 95, 99], limit = 25)]
async fn main() {
    let started = std::time::Instant::now();

    // 1. Generate, write to a temp file, read back.
    let data = generate_dataset(LINES, SEED);
    let file = TempFile::new("hotpath-demo.csv");
    write_dataset(&file.0, &data).expect("write the dataset to the temp dir");
    let text = read_dataset(&file.0).expect("read the dataset back");
    drop(file);
    assert_eq!(text.len(), data.len());
    drop(data);

    // 2. Parse.
    let (readings, parse_stats) = parse_all(&text);

    // 3. Anomaly scan on its own thread, in parallel with the rest, fed chunks of
    //    temperatures through a bounded channel.
    let (chunks, chunks_rx) = hotpath::channel!(
        std::sync::mpsc::sync_channel::<Vec<f64>>(64),
        label = "temperature chunks"
    );
    let anomaly_thread = std::thread::Builder::new()
        .name("anomaly-scan".into())
        .spawn(move || {
            // The last 64 readings of the previous chunk open the next one's windows,
            // so the count is the one over the whole series.
            let (mut total, mut carry) = (0, Vec::new());
            for chunk in chunks_rx {
                let mut series = carry;
                series.extend(chunk);
                total += count_anomalies(&series);
                carry = series[series.len().saturating_sub(ANOMALY_WINDOW)..].to_vec();
            }
            total
        })
        .expect("spawn the anomaly thread");
    for chunk in readings.chunks(4096) {
        chunks
            .send(chunk.iter().map(|r| r.temp_c).collect())
            .expect("the anomaly thread runs until the channel closes");
    }
    drop(chunks);

    // 4. Station metadata, fetched concurrently: 16 tasks on 2 worker threads.
    let service = start_metadata_service().expect("start the metadata service on loopback");
    let fetches: Vec<_> = STATIONS
        .iter()
        .map(|&(name, _)| tokio::spawn(fetch_station_metadata(service, name.to_string())))
        .collect();
    let reference = tokio::spawn(load_reference_data());

    // 5. Group and compute statistics while the lookups are in flight.
    let mut index = StationIndex::build(&readings);
    let stats = index.statistics();

    // The answers in the order they arrive.
    let mut answers = hotpath::stream!(
        futures_util::stream::iter(fetches).buffer_unordered(STATIONS.len()),
        label = "metadata answers"
    );
    let mut meta = Vec::with_capacity(STATIONS.len());
    while let Some(answer) = answers.next().await {
        meta.push(
            answer
                .expect("metadata task")
                .expect("talk to the metadata service"),
        );
    }
    meta.sort_by(|a, b| a.name.cmp(&b.name));
    let (thresholds, offset) = reference.await.expect("reference task");

    let heat_alerts = readings
        .iter()
        .filter(|r| r.temp_c + offset > thresholds.heat_c)
        .count();
    let frost_alerts = readings
        .iter()
        .filter(|r| r.temp_c + offset < thresholds.frost_c)
        .count();

    let anomalies = anomaly_thread.join().expect("anomaly thread");

    // 6. Checksum over everything the run computed.
    let checksum = hotpath::measure_block!("checksum", {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for r in &readings {
            let words = [r.id, r.timestamp, r.temp_c.to_bits(), u64::from(r.tags)];
            for w in words {
                h = (h ^ w).wrapping_mul(0x0000_0100_0000_01b3);
            }
            h ^= fnv1a(r.station.as_bytes());
        }
        for s in &stats {
            h = (h ^ s.median.to_bits() ^ s.p95.to_bits()).wrapping_mul(0x0000_0100_0000_01b3);
        }
        for m in &meta {
            h = (h ^ u64::from(m.elevation_m)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        h ^ anomalies as u64
    });

    // 7. Report.
    let summary = Summary {
        stats: &stats,
        meta: &meta,
        thresholds,
        offset,
        heat_alerts,
        frost_alerts,
    };
    println!(
        "lines: {} parsed, {} skipped ({} missing field, {} bad number, {} unknown tag)",
        parse_stats.parsed,
        parse_stats.skipped,
        parse_stats.missing_field,
        parse_stats.bad_number,
        parse_stats.unknown_tag
    );
    if let Some((line, e)) = parse_stats.first_error {
        println!("first malformed line: {line}: {e}");
    }
    println!("{summary}");
    println!("{summary:?}");
    println!("anomalies (3σ vs previous 64 readings): {anomalies}");
    println!("checksum: {checksum:016x}");
    println!("elapsed: {:.2?}", started.elapsed());
}
