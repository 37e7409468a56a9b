//! `hotpath::io!` on a hand-written Redis client: RESP over a `std::net::TcpStream`.
//!
//! ```text
//! redis-server --port 6379 --save '' --appendonly no &        # a throwaway server
//! cargo run --release --example basic_redis_io --features hotpath   # output + report
//! cargo run --release --example basic_redis_io                      # output only
//! ```
//!
//! The server address comes from `HOTPATH_REDIS_ADDR` (default `127.0.0.1:6379`). The
//! program sends PING, SET hotpath:key <4 KiB value>, GET hotpath:key, DEL hotpath:key
//! and GET hotpath:key again, and checks every reply. If no server answers it prints how
//! to start one and exits with status 2.
//!
//! Where the wrapper sits: `BufReader<Io<TcpStream>>`, the `io!` *under* the `BufReader`.
//! The `redis` row then counts what goes over the socket: one write per command (each is
//! encoded into one buffer and sent with one `write_all`), and one read per buffer refill,
//! normally one per reply, since loopback delivers each reply in one piece. In the
//! report: `redis`, Inst 1, 5 writes of 4,244 B in total (4.14 KiB) and 5 reads of
//! 4,125 B (4.03 KiB), the bytes of the 5 requests and 5 replies. Wrapping the `BufReader` instead (`io!(BufReader<TcpStream>)`) would count
//! the parser's `read_line` calls, not the network, and leave the writes unwrapped.
//! Writes go through `get_mut()`, the wrapper; a `try_clone()` of the stream would give
//! a plain `TcpStream` whose traffic is not counted.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

/// One RESP reply.
#[derive(Debug, PartialEq)]
enum Reply {
    Simple(String),
    Int(i64),
    Bulk(Option<Vec<u8>>),
}

struct Redis {
    conn: BufReader<hotpath::Io<TcpStream>>,
}

impl Redis {
    fn connect(addr: SocketAddr) -> io::Result<Redis> {
        let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2))?;
        stream.set_read_timeout(Some(Duration::from_secs(5)))?;
        stream.set_nodelay(true)?;
        Ok(Redis {
            conn: BufReader::new(hotpath::io!(stream, label = "redis")),
        })
    }

    /// Sends one command as a RESP array of bulk strings and reads its reply.
    #[hotpath::measure]
    fn command(&mut self, args: &[&[u8]]) -> io::Result<Reply> {
        let mut req = format!("*{}\r\n", args.len()).into_bytes();
        for a in args {
            req.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
            req.extend_from_slice(a);
            req.extend_from_slice(b"\r\n");
        }
        self.conn.get_mut().write_all(&req)?;
        self.read_reply()
    }

    fn read_reply(&mut self) -> io::Result<Reply> {
        let bad = |what: String| io::Error::new(io::ErrorKind::InvalidData, what);
        let mut line = String::new();
        self.conn.read_line(&mut line)?;
        let Some(body) = line.strip_suffix("\r\n") else {
            return Err(bad(format!("truncated reply {line:?}")));
        };
        let (kind, rest) = (
            body.as_bytes().first().copied(),
            body.get(1..).unwrap_or(""),
        );
        let int = |s: &str| {
            s.parse::<i64>()
                .map_err(|_| bad(format!("bad integer {s:?}")))
        };
        match kind {
            Some(b'+') => Ok(Reply::Simple(rest.to_string())),
            Some(b'-') => Err(io::Error::other(format!("redis error: {rest}"))),
            Some(b':') => Ok(Reply::Int(int(rest)?)),
            Some(b'$') if int(rest)? < 0 => Ok(Reply::Bulk(None)),
            Some(b'$') => {
                let mut data = vec![0; int(rest)? as usize + 2];
                self.conn.read_exact(&mut data)?;
                if !data.ends_with(b"\r\n") {
                    return Err(bad("bulk string without CRLF".into()));
                }
                data.truncate(data.len() - 2);
                Ok(Reply::Bulk(Some(data)))
            }
            _ => Err(bad(format!("unknown reply {body:?}"))),
        }
    }
}

/// A deterministic 4 KiB value.
fn value() -> Vec<u8> {
    (0..4096u32)
        .map(|i| b'a' + ((i * 31 + i / 7) % 26) as u8)
        .collect()
}

#[hotpath::main]
fn main() -> io::Result<()> {
    let addr_text = std::env::var("HOTPATH_REDIS_ADDR").unwrap_or_else(|_| "127.0.0.1:6379".into());
    let connected = match addr_text.to_socket_addrs().map(|mut a| a.next()) {
        Ok(Some(addr)) => Redis::connect(addr),
        Ok(None) => Err(io::Error::new(io::ErrorKind::InvalidInput, "no address")),
        Err(e) => Err(e),
    };
    let mut redis = match connected {
        Ok(r) => r,
        Err(e) => {
            eprintln!(
                "basic_redis_io: cannot connect to redis at {addr_text} ({e}); start one with \
                 `redis-server --port 6379 --save '' --appendonly no` or set HOTPATH_REDIS_ADDR"
            );
            // Exits without a report (the guard is not dropped): there is nothing to show.
            std::process::exit(2);
        }
    };

    let key: &[u8] = b"hotpath:key";
    let value = value();
    let pong = redis.command(&[b"PING"])?;
    assert_eq!(pong, Reply::Simple("PONG".into()));
    println!("PING                -> {pong:?}");

    let set = redis.command(&[b"SET", key, &value])?;
    assert_eq!(set, Reply::Simple("OK".into()));
    println!("SET hotpath:key ({} B) -> {set:?}", value.len());

    let got = redis.command(&[b"GET", key])?;
    assert_eq!(got, Reply::Bulk(Some(value.clone())));
    println!(
        "GET hotpath:key     -> bulk string of {} B, equal to what was set",
        value.len()
    );

    let del = redis.command(&[b"DEL", key])?;
    assert_eq!(del, Reply::Int(1));
    println!("DEL hotpath:key     -> {del:?}");

    let gone = redis.command(&[b"GET", key])?;
    assert_eq!(gone, Reply::Bulk(None));
    println!("GET hotpath:key     -> {gone:?} (null bulk string: deleted)");
    println!("5 commands, 5 replies, all as expected");
    Ok(())
}
