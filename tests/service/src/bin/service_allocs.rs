//! `service_allocs on|off PATH N`: the allocations a program is charged for by hotpath's
//! SQL and HTTP client integrations. With `on`, diesel's default instrumentation is
//! hotpath's (`instrument_diesel_sql`) and the ureq agent is made with `http!`; with `off`,
//! neither: the same program without the integrations, which the test compares with.
//!
//! Measured, each N times: `diesel_connect` opens a connection to the SQLite file `PATH`
//! and runs one insert (a connection's instrumentation made per call); `diesel_query`
//! runs an insert whose text differs at each call (each a new text for hotpath to look
//! up and normalise) on one connection; `ureq_get` makes a `GET /users/<i>` (each a new
//! URL, one endpoint) to a loopback server of this program, on one agent.
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::Integer;

#[hotpath::measure]
fn diesel_connect(path: &str, i: u64) {
    let mut conn = SqliteConnection::establish(path).unwrap();
    diesel::sql_query("INSERT INTO t (a) VALUES (?)")
        .bind::<Integer, _>(i as i32)
        .execute(&mut conn)
        .unwrap();
}

#[hotpath::measure]
fn diesel_query(conn: &mut SqliteConnection, sql: &str) {
    diesel::sql_query(sql).execute(conn).unwrap();
}

#[hotpath::measure]
fn ureq_get(agent: &ureq::Agent, url: &str) -> usize {
    let mut resp = agent.get(url).call().unwrap();
    resp.body_mut().read_to_string().unwrap().len()
}

/// A keep-alive HTTP/1.1 server on 127.0.0.1 answering every request `200 ok`, on a
/// thread of its own; its address.
fn serve() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                loop {
                    // The request head, to its empty line.
                    line.clear();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    if line == "\r\n" {
                        let ok = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
                        if stream.write_all(ok).is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    format!("http://{addr}")
}

#[hotpath::main]
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let on = args[1] == "on";
    let path = &args[2];
    let n: u64 = args[3].parse().unwrap();
    if on {
        hotpath::instrument_diesel_sql().unwrap();
    }
    let mut conn = SqliteConnection::establish(path).unwrap();
    conn.batch_execute("CREATE TABLE t (a INTEGER)").unwrap();
    let base = serve();
    let agent: ureq::Agent = if on {
        hotpath::http!(ureq::Agent::config_builder()).build().into()
    } else {
        ureq::Agent::config_builder().build().into()
    };
    for i in 0..n {
        diesel_connect(path, i);
        let sql = format!("INSERT INTO t (a) VALUES ({i})");
        diesel_query(&mut conn, &sql);
        let url = format!("{base}/users/{i}");
        assert_eq!(ureq_get(&agent, &url), 2);
    }
}
