//! `hotpath::io!` on synchronous files: what each layer of a buffered stack really does.
//!
//! ```text
//! cargo run --release --example basic_io_sync --features hotpath   # output + report
//! cargo run --release --example basic_io_sync                      # output only
//! ```
//!
//! The program writes 20,000 CSV lines through two wrapped layers,
//! `io!(BufWriter<io!(File)>)`, then reads the file back four ways. In the report's io
//! section:
//!
//! * `file buffered` (the `BufWriter`): 20,000 small writes (one `write_all` per line) and
//!   1 flush. Each costs a memory copy, so its rate is high.
//! * `file raw` (the `File` under it): 54 writes of up to 8 KiB, the chunks the
//!   `BufWriter` hands down, and the 1 flush it passes through. These are the syscalls.
//!   Both layers count the same bytes in their own rows. "io by function" charges
//!   `write_file` once, through the outer layer: a `BufWriter` write that spills to the
//!   file includes that raw write, so the file size and the time are not counted twice.
//! * `file read_to_end`: 16 reads of growing size. The wrapper implements `read`, so
//!   `read_to_end` is std's generic loop that grows its buffer step by step; an unwrapped
//!   `File` uses its length as a size hint and needs 2 reads (strace shows the same).
//! * `file under BufReader`: one 8 KiB read per buffer refill, plus the 0-byte read at EOF.
//! * `BufReader lines`: one read per `read_line` (20,001: the last one returns 0 at EOF).
//! * `file seek`: 3 small reads; its 3 seeks are counted (JSON `seek`), not shown in the table.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

const LINES: usize = 20_000;

/// Deterministic CSV lines: `id,sensor,value`.
fn dataset() -> Vec<String> {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    (0..LINES)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let value = (x % 10_000) as f64 / 100.0 - 20.0;
            format!("{i:05},sensor-{:02},{value:.2}\n", x % 16)
        })
        .collect()
}

/// How many writes a `BufWriter` of `cap` bytes makes for these `write_all`s: it hands
/// its buffer down whenever the next line would not fit, and the rest at `flush`.
fn bufwriter_chunks(lines: &[String], cap: usize) -> usize {
    let (mut buffered, mut chunks) = (0, 0);
    for l in lines {
        if buffered + l.len() > cap {
            chunks += 1;
            buffered = 0;
        }
        buffered += l.len();
    }
    chunks + usize::from(buffered > 0)
}

#[hotpath::measure]
fn write_file(path: &Path, lines: &[String]) -> io::Result<u64> {
    let raw = hotpath::io!(File::create(path)?, label = "file raw");
    let mut buffered = hotpath::io!(BufWriter::new(raw), label = "file buffered");
    for line in lines {
        buffered.write_all(line.as_bytes())?;
    }
    buffered.flush()?;
    Ok(buffered.get_ref().metadata()?.len())
}

#[hotpath::measure]
fn read_whole(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = hotpath::io!(File::open(path)?, label = "file read_to_end");
    let mut data = Vec::new();
    file.read_to_end(&mut data)?;
    Ok(data)
}

/// `read_line` loop; returns (lines, bytes).
fn count_lines(mut r: impl BufRead) -> io::Result<(usize, usize)> {
    let (mut lines, mut bytes, mut line) = (0, 0, String::new());
    while r.read_line(&mut line)? > 0 {
        (lines, bytes) = (lines + 1, bytes + line.len());
        line.clear();
    }
    Ok((lines, bytes))
}

/// Seeks to line `k`, reads it; then reads the last line, from the end.
#[hotpath::measure]
fn seek_lines(path: &Path, lines: &[String], k: usize) -> io::Result<(String, String)> {
    let mut file = hotpath::io!(File::open(path)?, label = "file seek");
    let offset: usize = lines[..k].iter().map(String::len).sum();
    file.seek(SeekFrom::Start(offset as u64))?;
    let mut middle = vec![0; lines[k].len()];
    file.read_exact(&mut middle)?;
    let last = lines.last().expect("not empty");
    file.seek(SeekFrom::End(-(last.len() as i64)))?;
    let mut tail = String::new();
    file.read_to_string(&mut tail)?;
    file.rewind()?;
    Ok((String::from_utf8(middle).expect("utf-8"), tail))
}

#[hotpath::main]
fn main() -> io::Result<()> {
    let lines = dataset();
    let total: usize = lines.iter().map(String::len).sum();
    let path =
        std::env::temp_dir().join(format!("hotpath-basic-io-sync-{}.csv", std::process::id()));

    let size = write_file(&path, &lines)?;
    assert_eq!(size as usize, total);
    let chunks = bufwriter_chunks(&lines, 8 * 1024);
    println!("wrote {LINES} lines, {total} bytes to {}", path.display());
    println!(
        "  file buffered: {LINES} write_all of ~{} B, 1 flush",
        total / LINES
    );
    println!("  file raw:      {chunks} writes of <= 8 KiB from the BufWriter, 1 flush");

    assert_eq!(read_whole(&path)?.len(), total);
    println!("read_to_end:          {total} bytes in one call");
    let file = hotpath::io!(File::open(&path)?, label = "file under BufReader");
    let counted =
        hotpath::measure_block!("BufReader<io!(File)>", count_lines(BufReader::new(file))?);
    assert_eq!(counted, (LINES, total));
    let refills = total.div_ceil(8 * 1024) + 1;
    println!(
        "BufReader<io!(File)>: {} read_line over {refills} file reads of <= 8 KiB (last: EOF)",
        LINES + 1
    );
    let reader = hotpath::io!(
        BufReader::new(File::open(&path)?),
        label = "BufReader lines"
    );
    assert_eq!(
        hotpath::measure_block!("io!(BufReader<File>)", count_lines(reader)?),
        (LINES, total)
    );
    println!(
        "io!(BufReader<File>): {} read_line ({LINES} lines + 1 at EOF)",
        LINES + 1
    );

    let (middle, tail) = seek_lines(&path, &lines, LINES / 2)?;
    assert_eq!((&middle, &tail), (&lines[LINES / 2], &lines[LINES - 1]));
    println!(
        "3 seeks, 3 reads:     line {} = {}",
        LINES / 2,
        middle.trim_end()
    );
    println!("                      last line = {}", tail.trim_end());

    std::fs::remove_file(&path)?;
    Ok(())
}
