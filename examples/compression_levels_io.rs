//! `hotpath::io!` on both sides of gzip and brotli encoders, at three levels each.
//!
//! ```text
//! cargo run --release --example compression_levels_io --features hotpath   # output + report
//! cargo run --release --example compression_levels_io                      # output only
//! ```
//!
//! The same 4 MiB of generated, semi-compressible data (log lines with random fields and
//! an occasional run of random bytes) goes through flate2's `GzEncoder` at levels 1, 6
//! and 9 and brotli's `CompressorWriter` at qualities 1, 5 and 11. Every encoder is
//! wrapped twice:
//!
//! * `gzip-6 in`: the encoder, receiving the input in 64 KiB `write_all`s. Its rate is the
//!   codec's speed; an encoder may take only part of a write, so there can be more writes
//!   than the 64 chunks.
//! * `gzip-6 out`: the `Vec<u8>` the encoder writes to, so its bytes are the output size,
//!   and its writes show how the codec hands its output down.
//!
//! The ratio of the two rows' bytes is the compression ratio, and their time per level
//! is in the timing section (`gzip-6`, ...). A label must be a constant, so each level is
//! its own `io!` call site, made by the `gzip!` and `brotli!` macros below.

use std::io::{self, Read, Write};
use std::time::Instant;

use flate2::{read::GzDecoder, write::GzEncoder, Compression};

const INPUT_BYTES: usize = 4 << 20;
const CHUNK: usize = 64 * 1024;

/// Deterministic input: log lines, with 256 random bytes after every 64th line.
fn input() -> Vec<u8> {
    let mut x: u64 = 0x0123_4567_89AB_CDEF;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut out = Vec::with_capacity(INPUT_BYTES + 512);
    for i in 0u64.. {
        if out.len() >= INPUT_BYTES {
            break;
        }
        let r = next();
        let level = ["INFO", "INFO", "INFO", "WARN", "DEBUG", "ERROR"][(r % 6) as usize];
        let line = format!(
            "ts={} level={level} user={} latency_us={} req={:016x}\n",
            1_700_000_000 + i / 8,
            (r >> 8) % 5000,
            (r >> 24) % 100_000,
            next()
        );
        out.extend_from_slice(line.as_bytes());
        if i % 64 == 63 {
            out.extend((0..32).flat_map(|_| next().to_le_bytes()));
        }
    }
    out.truncate(INPUT_BYTES);
    out
}

/// Feeds `data` to the encoder in `CHUNK`-sized `write_all`s.
fn feed(encoder: &mut impl Write, data: &[u8]) -> io::Result<()> {
    data.chunks(CHUNK).try_for_each(|c| encoder.write_all(c))
}

/// One gzip level: its own `io!` sites and timing row. Evaluates to the output.
macro_rules! gzip {
    ($level:literal, $data:expr) => {
        hotpath::measure_block!(concat!("gzip-", $level), {
            let out = hotpath::io!(Vec::new(), label = concat!("gzip-", $level, " out"));
            let encoder = GzEncoder::new(out, Compression::new($level));
            let mut input = hotpath::io!(encoder, label = concat!("gzip-", $level, " in"));
            feed(&mut input, $data)?;
            hotpath::io_unwrap(hotpath::io_unwrap(input).finish()?)
        })
    };
}

/// One brotli quality (window 2^22), like `gzip!`.
macro_rules! brotli {
    ($quality:literal, $data:expr) => {
        hotpath::measure_block!(concat!("brotli-", $quality), {
            let out = hotpath::io!(Vec::new(), label = concat!("brotli-", $quality, " out"));
            let encoder = brotli::CompressorWriter::new(out, 4096, $quality, 22);
            let mut input = hotpath::io!(encoder, label = concat!("brotli-", $quality, " in"));
            feed(&mut input, $data)?;
            // `into_inner` finishes the stream (writing into a Vec cannot fail).
            hotpath::io_unwrap(hotpath::io_unwrap(input).into_inner())
        })
    };
}

#[hotpath::main]
fn main() -> io::Result<()> {
    let data = input();
    let mut results: Vec<(&str, u32, Vec<u8>, f64)> = Vec::new();
    let mut timed = |codec, level, run: &mut dyn FnMut() -> io::Result<Vec<u8>>| {
        let start = Instant::now();
        let out = run()?;
        results.push((codec, level, out, start.elapsed().as_secs_f64() * 1e3));
        io::Result::Ok(())
    };
    timed("gzip", 1, &mut || Ok(gzip!(1, &data)))?;
    timed("gzip", 6, &mut || Ok(gzip!(6, &data)))?;
    timed("gzip", 9, &mut || Ok(gzip!(9, &data)))?;
    timed("brotli", 1, &mut || Ok(brotli!(1, &data)))?;
    timed("brotli", 5, &mut || Ok(brotli!(5, &data)))?;
    timed("brotli", 11, &mut || Ok(brotli!(11, &data)))?;

    println!(
        "input: {} bytes, fed in {} KiB writes",
        data.len(),
        CHUNK / 1024
    );
    println!(
        "{:<7} {:>5} {:>12} {:>7} {:>9}",
        "codec", "level", "output B", "ratio", "ms"
    );
    for (codec, level, out, ms) in &results {
        // Check the roundtrip (not measured).
        let mut back = Vec::with_capacity(data.len());
        if *codec == "gzip" {
            GzDecoder::new(&out[..]).read_to_end(&mut back)?;
        } else {
            brotli::Decompressor::new(&out[..], 4096).read_to_end(&mut back)?;
        }
        assert!(back == data, "{codec}-{level}: roundtrip differs");
        let ratio = data.len() as f64 / out.len() as f64;
        println!(
            "{codec:<7} {level:>5} {:>12} {ratio:>6.2}x {ms:>9.1}",
            out.len()
        );
    }
    println!("every output decompresses to the input");
    Ok(())
}
