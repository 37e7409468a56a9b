//! `hotpath::io!` on both sides of a zstd stream: bytes in at codec speed, bytes out to disk.
//!
//! ```text
//! cargo run --release --example basic_zstd_io --features hotpath   # output + report
//! cargo run --release --example basic_zstd_io                      # output only
//! ```
//!
//! A generated 8 MiB access log is compressed at level 3 with
//! `zstd::stream::write::Encoder` into a temp file, then decompressed with
//! `zstd::stream::read::Decoder` and compared with the original. Four wrappers:
//!
//! * `zstd input`, the encoder itself: 512 writes of 16 KiB (8 MiB), at the speed zstd
//!   compresses, and 1 flush (which ends the current block and pushes it to the file).
//! * `zstd file`, the file under the encoder: the compressed bytes (2.2 MiB), in about 130
//!   writes: at each input write the encoder first hands down whatever output it has
//!   pending, so the writes follow zstd's blocks, not a fixed size. Plus 1 flush, passed
//!   down by the encoder's flush. `finish()` writes the end of the frame through the same
//!   wrapper, so it is counted.
//! * `zstd file read`, the file under the decoder (which puts a `BufReader` in between):
//!   reads of up to zstd's input buffer size (128 KiB), the compressed bytes.
//! * `zstd output`, the decoder: 8 MiB read back in 64 KiB pieces, at decompression speed.
//!
//! "io by function" charges each function its outermost operations only: `compress` wrote
//! the 8 MiB through the encoder (whose writes include the file writes they trigger),
//! plus the few bytes that end the frame, which `finish()` writes straight to the file.
//!
//! `io!(encoder)` derefs to the encoder but `finish()` takes it by value, hence
//! `hotpath::io_unwrap(...)`: it gives the encoder back (without the feature it is the
//! identity).

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;
use std::time::Instant;

const LEVEL: i32 = 3;
const INPUT_BYTES: usize = 8 << 20;

/// A deterministic, semi-compressible access log of about `bytes` bytes.
fn access_log(bytes: usize) -> Vec<u8> {
    const PATHS: [&str; 6] = [
        "/",
        "/api/items",
        "/api/items/42",
        "/login",
        "/static/app.js",
        "/health",
    ];
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut out = Vec::with_capacity(bytes + 128);
    let mut t = 1_700_000_000u64;
    while out.len() < bytes {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        t += x % 3;
        let status = [200, 200, 200, 304, 404, 500][(x >> 8) as usize % 6];
        let line = format!(
            "{t} 10.0.{}.{} GET {} {status} {} {:.3}ms\n",
            (x >> 16) % 4,
            (x >> 24) % 256,
            PATHS[(x >> 32) as usize % PATHS.len()],
            (x >> 40) % 50_000,
            ((x >> 48) % 10_000) as f64 / 1000.0
        );
        out.extend_from_slice(line.as_bytes());
    }
    out.truncate(bytes);
    out
}

/// Compresses `data` into `path`; returns the compressed size.
#[hotpath::measure]
fn compress(path: &Path, data: &[u8]) -> io::Result<u64> {
    let file = hotpath::io!(File::create(path)?, label = "zstd file");
    let encoder = zstd::stream::write::Encoder::new(file, LEVEL)?;
    let mut input = hotpath::io!(encoder, label = "zstd input");
    for chunk in data.chunks(16 * 1024) {
        input.write_all(chunk)?;
    }
    input.flush()?;
    let file = hotpath::io_unwrap(input).finish()?;
    Ok(file.metadata()?.len())
}

/// Decompresses `path` in 64 KiB reads.
#[hotpath::measure]
fn decompress(path: &Path) -> io::Result<Vec<u8>> {
    let file = hotpath::io!(File::open(path)?, label = "zstd file read");
    let mut output = hotpath::io!(
        zstd::stream::read::Decoder::new(file)?,
        label = "zstd output"
    );
    let mut data = Vec::with_capacity(INPUT_BYTES);
    let mut buf = vec![0; 64 * 1024];
    loop {
        let n = output.read(&mut buf)?;
        if n == 0 {
            return Ok(data);
        }
        data.extend_from_slice(&buf[..n]);
    }
}

#[hotpath::main]
fn main() -> io::Result<()> {
    let data = access_log(INPUT_BYTES);
    let path = std::env::temp_dir().join(format!("hotpath-basic-zstd-{}.zst", std::process::id()));

    let start = Instant::now();
    let compressed = compress(&path, &data)?;
    let compress_ms = start.elapsed().as_secs_f64() * 1e3;
    let start = Instant::now();
    let back = decompress(&path)?;
    let decompress_ms = start.elapsed().as_secs_f64() * 1e3;
    std::fs::remove_file(&path)?;

    assert!(back == data, "roundtrip differs");
    println!(
        "input:        {:>10} bytes (generated access log)",
        data.len()
    );
    println!(
        "compressed:   {compressed:>10} bytes (zstd level {LEVEL}), ratio {:.2}x, {:.1}% of the input",
        data.len() as f64 / compressed as f64,
        100.0 * compressed as f64 / data.len() as f64
    );
    println!("compress {compress_ms:.1} ms, decompress {decompress_ms:.1} ms; roundtrip identical");
    Ok(())
}
