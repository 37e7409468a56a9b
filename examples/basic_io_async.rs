//! `hotpath::io!` on tokio streams: a TCP echo server and its clients, and an async file.
//!
//! ```text
//! cargo run --release --example basic_io_async --features hotpath,tokio   # output + report
//! cargo run --release --example basic_io_async --features tokio           # output only
//! ```
//!
//! With `hotpath`, `io!` on a tokio type needs the facade feature `tokio` (which gives the
//! wrapper `AsyncRead`/`AsyncWrite`), so Cargo.toml lists `required-features = ["tokio"]`
//! for this example; with `tokio` alone `io!` is the identity.
//!
//! An echo server on 127.0.0.1 accepts 8 connections and wraps each one at the same
//! `io!` call site, so the report has one `echo server` row with Inst 8. Each client
//! sends 128 KiB, shuts its write side down and reads the echo back to EOF (`echo
//! client`, Inst 8). TCP decides how the bytes are cut into reads, so read counts vary
//! from run to run; the bytes do not: 1 MiB read and written on each side. An async
//! operation is timed from its first poll to `Ready`, so its latency includes waiting for
//! the peer. The async file rows show tokio's `File`, which hands each write to the
//! blocking pool and reads back in chunks of at most 2 MiB.

use std::io;
use std::net::SocketAddr;

use tokio::fs::File;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const CLIENTS: usize = 8;
const PAYLOAD: usize = 128 * 1024;

/// Client `id`'s payload: deterministic, different per client.
fn payload(id: usize) -> Vec<u8> {
    (0..PAYLOAD)
        .map(|i| b"abcdefghijklmnopqrstuvwxyz0123456789"[(i * 7 + id * 13) % 36])
        .collect()
}

/// Echoes one connection until the client shuts its side down; returns bytes echoed.
#[hotpath::measure]
async fn echo(mut conn: hotpath::Io<TcpStream>) -> io::Result<u64> {
    let mut buf = vec![0; 16 * 1024];
    let mut total = 0;
    loop {
        let n = conn.read(&mut buf).await?;
        if n == 0 {
            conn.shutdown().await?;
            return Ok(total);
        }
        conn.write_all(&buf[..n]).await?;
        total += n as u64;
    }
}

/// Accepts `n` connections, one task each; returns the bytes each one echoed.
async fn serve(listener: TcpListener, n: usize) -> io::Result<Vec<u64>> {
    let mut tasks = Vec::with_capacity(n);
    for _ in 0..n {
        let (stream, _) = listener.accept().await?;
        tasks.push(tokio::spawn(echo(hotpath::io!(
            stream,
            label = "echo server"
        ))));
    }
    let mut echoed = Vec::with_capacity(n);
    for t in tasks {
        echoed.push(t.await.expect("echo task panicked")?);
    }
    Ok(echoed)
}

/// Sends a payload and reads the echo back, writing and reading at once so that neither
/// side's socket buffer can fill up and stall the other.
#[hotpath::measure]
async fn client(addr: SocketAddr, id: usize) -> io::Result<bool> {
    let sent = payload(id);
    let stream = hotpath::io!(TcpStream::connect(addr).await?, label = "echo client");
    let (mut rd, mut wr) = tokio::io::split(stream);
    let send = async {
        wr.write_all(&sent).await?;
        wr.shutdown().await
    };
    let mut received = Vec::with_capacity(PAYLOAD);
    let (sent_ok, read) = tokio::join!(send, rd.read_to_end(&mut received));
    sent_ok?;
    read?;
    Ok(received == sent)
}

/// Writes `data` to a temp file and reads it back through tokio's `File`.
#[hotpath::measure]
async fn file_roundtrip(data: &[u8]) -> io::Result<Vec<u8>> {
    let path =
        std::env::temp_dir().join(format!("hotpath-basic-io-async-{}.bin", std::process::id()));
    let mut out = hotpath::io!(File::create(&path).await?, label = "async file write");
    for chunk in data.chunks(64 * 1024) {
        out.write_all(chunk).await?;
    }
    // tokio's File finishes writes in the background: flush before dropping it.
    out.flush().await?;
    drop(out);
    let mut input = hotpath::io!(File::open(&path).await?, label = "async file read");
    let mut back = Vec::new();
    input.read_to_end(&mut back).await?;
    tokio::fs::remove_file(&path).await?;
    Ok(back)
}

#[tokio::main]
#[hotpath::main]
async fn main() -> io::Result<()> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let server = tokio::spawn(serve(listener, CLIENTS));

    let clients: Vec<_> = (0..CLIENTS)
        .map(|id| tokio::spawn(client(addr, id)))
        .collect();
    for (id, c) in clients.into_iter().enumerate() {
        let ok = c.await.expect("client task panicked")?;
        assert!(ok, "client {id}: echo differs from what it sent");
    }
    let echoed = server.await.expect("server task panicked")?;
    assert!(echoed.iter().all(|&n| n == PAYLOAD as u64));
    println!(
        "echo: {CLIENTS} connections to {addr}, {} KiB each way per connection, all echoed intact",
        PAYLOAD / 1024
    );
    println!(
        "      server echoed {} bytes in total; each client sent 1 shutdown",
        echoed.iter().sum::<u64>()
    );

    let data: Vec<u8> = (0..CLIENTS).flat_map(payload).collect();
    let back = file_roundtrip(&data).await?;
    assert_eq!(back, data);
    println!(
        "file: wrote {} bytes in {} write_all calls of 64 KiB + 1 flush, read them back",
        data.len(),
        data.len().div_ceil(64 * 1024)
    );
    Ok(())
}
