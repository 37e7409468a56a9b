//! Synchronous wrappers against what the test itself transferred.

mod common;

use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};

use common::{entry_named, obe, temp};
use hotpath_io::{wrap, IoSite};

macro_rules! site {
    ($label:expr) => {{
        static S: IoSite = IoSite::new(file!(), line!(), Some($label), false);
        &S
    }};
}

#[test]
fn file_write_and_read_count_calls_and_bytes() {
    let path = temp("rw");
    let mut w = wrap(std::fs::File::create(&path).unwrap(), site!("rw-write"));
    for n in [100usize, 200, 300] {
        w.write_all(&vec![7u8; n]).unwrap();
    }
    w.flush().unwrap();
    let e = w.entry();
    drop(w);
    // A file writes everything it is given: one write per write_all.
    assert_eq!(obe(e.write), (3, 600, 0));
    assert_eq!(obe(e.flush), (1, 0, 0));

    let mut r = wrap(std::fs::File::open(&path).unwrap(), site!("rw-read"));
    let mut buf = [0u8; 256];
    let mut total = 0;
    loop {
        let n = r.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        total += n;
    }
    assert_eq!(total, 600);
    // 256 + 256 + 88, then the read of 0 bytes at end of file: four operations.
    assert_eq!(obe(r.entry().read), (4, 600, 0));
    r.seek(SeekFrom::Start(10)).unwrap();
    r.rewind().unwrap();
    assert_eq!(obe(r.entry().seek), (2, 0, 0));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn read_to_end_counts_the_reads_it_makes() {
    let data: Vec<u8> = (0..10_000u32).map(|i| i as u8).collect();
    let mut r = wrap(io::Cursor::new(data.clone()), site!("read-to-end"));
    let mut out = Vec::new();
    r.read_to_end(&mut out).unwrap();
    assert_eq!(out, data);
    let (ops, bytes, errors) = obe(r.entry().read);
    assert_eq!((bytes, errors), (10_000, 0));
    // At least one read with data and the final read of 0 bytes.
    assert!(ops >= 2, "{ops}");
    assert_eq!(hotpath_io::Instrumented::into_inner(r).position(), 10_000);
}

#[test]
fn a_bufreader_over_a_wrapped_file_and_a_wrapped_bufreader() {
    let path = temp("lines");
    let text: String = (0..100).map(|i| format!("line number {i}\n")).collect();
    std::fs::write(&path, &text).unwrap();
    let size = text.len() as u64;

    // The wrapper below the buffer sees the buffer's refills: 64-byte reads.
    let inner = wrap(std::fs::File::open(&path).unwrap(), site!("under-buffer"));
    let entry = inner.entry();
    let mut lines = 0;
    for l in BufReader::with_capacity(64, inner).lines() {
        l.unwrap();
        lines += 1;
    }
    assert_eq!(lines, 100);
    assert_eq!(obe(entry.read), (size.div_ceil(64) + 1, size, 0));

    // The wrapper above the buffer sees what the application asked for: one read per
    // read_line, plus the one that found the end.
    let mut outer = wrap(
        BufReader::new(std::fs::File::open(&path).unwrap()),
        site!("over-buffer"),
    );
    let mut line = String::new();
    let mut n = 0;
    while outer.read_line(&mut line).unwrap() > 0 {
        n += 1;
        line.clear();
    }
    assert_eq!(n, 100);
    assert_eq!(obe(outer.entry().read), (101, size, 0));

    // fill_buf is an operation; consume adds the bytes taken.
    let mut fb = wrap(
        BufReader::new(std::fs::File::open(&path).unwrap()),
        site!("fill-buf"),
    );
    let got = fb.fill_buf().unwrap().len();
    fb.consume(10);
    assert!(got > 10);
    assert_eq!(obe(fb.entry().read), (1, 10, 0));
    std::fs::remove_file(&path).unwrap();
}

/// Returns the scripted results one by one.
struct Script(Vec<io::Result<usize>>);

impl Read for Script {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let r = self.0.remove(0);
        if let Ok(n) = &r {
            buf[..*n].fill(1);
        }
        r
    }
}

impl Write for Script {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        self.0.remove(0)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.remove(0).map(|_| ())
    }
}

fn err(kind: io::ErrorKind) -> io::Result<usize> {
    Err(io::Error::from(kind))
}

#[test]
fn errors_would_block_and_interrupted() {
    use io::ErrorKind::*;
    let script = vec![
        Ok(5),
        err(WouldBlock),
        err(Interrupted),
        Ok(3),
        err(BrokenPipe),
        Ok(0),
    ];
    let mut r = wrap(Script(script), site!("script-read"));
    let mut buf = [0u8; 8];
    let kinds: Vec<Result<usize, io::ErrorKind>> = (0..6)
        .map(|_| r.read(&mut buf).map_err(|e| e.kind()))
        .collect();
    // The wrapper passes every result through unchanged...
    assert_eq!(
        kinds,
        [
            Ok(5),
            Err(WouldBlock),
            Err(Interrupted),
            Ok(3),
            Err(BrokenPipe),
            Ok(0)
        ]
    );
    // ...and counts: three operations (5, 3 and 0 bytes), one error; WouldBlock and
    // Interrupted are neither.
    assert_eq!(obe(r.entry().read), (3, 8, 1));

    // read_exact retries Interrupted on its own and reads until it has enough.
    let mut r = wrap(
        Script(vec![Ok(2), err(Interrupted), Ok(4)]),
        site!("script-exact"),
    );
    let mut six = [0u8; 6];
    r.read_exact(&mut six).unwrap();
    assert_eq!(obe(r.entry().read), (2, 6, 0));
}

#[test]
fn a_failed_flush_counts_under_flush() {
    let mut w = wrap(
        Script(vec![Ok(4), err(io::ErrorKind::Other), Ok(2)]),
        site!("bad-flush"),
    );
    assert_eq!(w.write(b"abcd").unwrap(), 4);
    assert!(w.flush().is_err());
    // A short write is one operation of its real size.
    assert_eq!(w.write(b"xyz").unwrap(), 2);
    assert_eq!(obe(w.entry().write), (2, 6, 0));
    assert_eq!(obe(w.entry().flush), (0, 0, 1));
}

#[test]
fn one_site_one_row_and_iter_gives_each_its_own() {
    static SHARED: IoSite = IoSite::new(file!(), line!(), Some("shared"), false);
    static EACH: IoSite = IoSite::new(file!(), line!(), Some("each"), true);
    for i in 0..5u8 {
        let mut w = wrap(Vec::new(), &SHARED);
        w.write_all(&[i; 10]).unwrap();
        let mut v = wrap(Vec::new(), &EACH);
        v.write_all(&[i; 3]).unwrap();
    }
    let shared = entry_named("shared");
    assert_eq!(
        shared.instances.load(std::sync::atomic::Ordering::Relaxed),
        5
    );
    assert_eq!(obe(shared.write), (5, 50, 0));
    assert_eq!(shared.type_name, "alloc::vec::Vec<u8>");
    for name in ["each", "each-2", "each-3", "each-4", "each-5"] {
        assert_eq!(obe(entry_named(name).write), (1, 3, 0), "{name}");
    }
    // Another type at the same site is another row.
    let mut c = wrap(io::Cursor::new(Vec::new()), &SHARED);
    c.write_all(b"hi").unwrap();
    assert_ne!(c.entry().name.as_ptr(), std::ptr::null());
    assert!(!std::ptr::eq(c.entry(), shared));
}

/// Past `HOTPATH_ENTRIES_LIMIT` (1000) instances of an `iter = true` site, the rest
/// share one row, `label-<other>`, with their operations.
#[test]
fn iter_instances_past_the_limit_share_one_row() {
    static MANY: IoSite = IoSite::new(file!(), line!(), Some("many"), true);
    for i in 0..1_200u32 {
        let mut w = wrap(Vec::new(), &MANY);
        w.write_all(&i.to_le_bytes()).unwrap();
    }
    let rows = hotpath_io::entries()
        .into_iter()
        .filter(|e| e.name.starts_with("many"))
        .count();
    assert_eq!(rows, 1_001);
    assert_eq!(obe(entry_named("many-1000").write), (1, 4, 0));
    let other = entry_named("many-<other>");
    assert_eq!(
        other.instances.load(std::sync::atomic::Ordering::Relaxed),
        200
    );
    assert_eq!(obe(other.write), (200, 800, 0));
}

#[test]
fn the_wrapper_is_the_value() {
    let mut w = wrap(io::Cursor::new(vec![1u8, 2, 3]), site!("deref"));
    assert_eq!(w.position(), 0);
    w.set_position(2);
    assert_eq!(w.inner().position(), 2);
    w.inner_mut().set_position(1);
    let mut b = [0u8; 2];
    w.read_exact(&mut b).unwrap();
    assert_eq!(b, [2, 3]);
    assert_eq!(w.into_inner().into_inner(), vec![1, 2, 3]);
}

#[test]
fn vectored_io_is_delegated() {
    let mut w = wrap(Vec::new(), site!("vectored"));
    let n = w
        .write_vectored(&[io::IoSlice::new(b"ab"), io::IoSlice::new(b"cde")])
        .unwrap();
    assert_eq!(n, 5);
    assert_eq!(obe(w.entry().write), (1, 5, 0));
    let mut r = wrap(io::Cursor::new(b"hello".to_vec()), site!("vectored-read"));
    let (mut a, mut b) = ([0u8; 2], [0u8; 3]);
    let n = r
        .read_vectored(&mut [io::IoSliceMut::new(&mut a), io::IoSliceMut::new(&mut b)])
        .unwrap();
    assert_eq!((n, &a, &b), (5, b"he", b"llo"));
    assert_eq!(obe(r.entry().read), (1, 5, 0));
}

#[test]
fn tcp_echo_on_loopback() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        let (s, _) = listener.accept().unwrap();
        let mut s = wrap(s, site!("echo-server"));
        let mut buf = [0u8; 4096];
        loop {
            let n = s.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            s.write_all(&buf[..n]).unwrap();
        }
        let e = s.entry();
        (obe(e.read), obe(e.write))
    });
    let mut c = wrap(
        std::net::TcpStream::connect(addr).unwrap(),
        site!("echo-client"),
    );
    let msg: Vec<u8> = (0..1000u32).map(|i| i as u8).collect();
    for chunk in msg.chunks(100) {
        c.write_all(chunk).unwrap();
    }
    c.shutdown(std::net::Shutdown::Write).unwrap();
    let mut back = Vec::new();
    c.read_to_end(&mut back).unwrap();
    assert_eq!(back, msg);
    let ((s_reads, s_rbytes, _), (_, s_wbytes, _)) = server.join().unwrap();
    // Ten writes of 100 bytes by the client; what arrives in how many reads is up to TCP,
    // but every byte is counted once each way.
    assert_eq!(obe(c.entry().write), (10, 1000, 0));
    assert_eq!(obe(c.entry().read).1, 1000);
    assert_eq!((s_rbytes, s_wbytes), (1000, 1000));
    assert!(s_reads >= 2, "data and end of stream: {s_reads}");
}

#[test]
fn stacked_compression_counts_the_codecs_real_output() {
    use flate2::write::GzEncoder;
    let input: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    let sink = wrap(Vec::new(), site!("gzip out"));
    let out_entry = sink.entry();
    let mut enc = wrap(
        GzEncoder::new(sink, flate2::Compression::new(6)),
        site!("gzip in"),
    );
    for chunk in input.chunks(10_000) {
        enc.write_all(chunk).unwrap();
    }
    enc.flush().unwrap();
    let in_entry = enc.entry();
    let compressed = hotpath_io::Instrumented::into_inner(enc)
        .finish()
        .unwrap()
        .into_inner();
    assert_eq!(obe(in_entry.write).1, 200_000);
    assert_eq!(obe(in_entry.flush).0, 1);
    // Everything the encoder wrote, including what finish() flushed out, went through
    // the sink's wrapper: its byte count is the compressed length.
    assert_eq!(obe(out_entry.write).1, compressed.len() as u64);
    assert!(compressed.len() < 200_000 / 10);
}
