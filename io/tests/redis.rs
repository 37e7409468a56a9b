//! A Redis session against a real `redis-server` the test starts on a free loopback port
//! and stops. Needs `redis-server` on the PATH (CI installs it); without it the test
//! fails with a message saying so.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::obe;
use hotpath_io::{wrap, IoSite};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start() -> (Server, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .stdout(Stdio::null())
        .spawn()
        .expect("redis-server must be installed (apt-get install redis-server); CI installs it");
    let server = Server(child);
    let t = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "redis-server did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    (server, port)
}

/// One RESP command as an array of bulk strings.
fn command(args: &[&str]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for a in args {
        out.extend_from_slice(format!("${}\r\n{a}\r\n", a.len()).as_bytes());
    }
    out
}

/// One reply: a line, and for a bulk string its payload line too.
fn reply(r: &mut impl BufRead) -> Vec<u8> {
    let mut line = Vec::new();
    r.read_until(b'\n', &mut line).unwrap();
    if line[0] == b'$' {
        let len: i64 = std::str::from_utf8(&line[1..line.len() - 2])
            .unwrap()
            .parse()
            .unwrap();
        if len >= 0 {
            let mut payload = vec![0u8; len as usize + 2];
            r.read_exact(&mut payload).unwrap();
            line.extend_from_slice(&payload);
        }
    }
    line
}

#[test]
fn a_redis_session_counts_exactly_what_crossed_the_socket() {
    static SITE: IoSite = IoSite::new(file!(), line!(), Some("redis"), false);
    let (_server, port) = start();
    let stream = wrap(TcpStream::connect(("127.0.0.1", port)).unwrap(), &SITE);
    let entry = stream.entry();

    let mut conn = BufReader::new(stream);
    let session: [(&[&str], &[u8]); 4] = [
        (&["PING"], b"+PONG\r\n"),
        (&["SET", "hotpath:key", "value-42"], b"+OK\r\n"),
        (&["GET", "hotpath:key"], b"$8\r\nvalue-42\r\n"),
        (&["DEL", "hotpath:key"], b":1\r\n"),
    ];
    let mut sent = 0u64;
    let mut received = 0u64;
    for (args, expected) in session {
        let cmd = command(args);
        conn.get_mut().write_all(&cmd).unwrap();
        sent += cmd.len() as u64;
        let got = reply(&mut conn);
        assert_eq!(got, expected, "{args:?}");
        received += got.len() as u64;
    }
    // Four commands, each written with one write_all that a socket takes whole.
    assert_eq!(obe(entry.write), (4, sent, 0));
    // The BufReader refills from the wrapped socket: every reply byte read once.
    let (reads, bytes, errors) = obe(entry.read);
    assert_eq!((bytes, errors), (received, 0));
    assert!((4..=8).contains(&reads), "{reads} reads for 4 replies");
}
