//! A loopback HTTP/1.1 server for the benchmark scripts in `scripts/` (never for tests).
//!
//! `cargo run --release --example bench_server -- PORTS DELAY_MS` binds PORTS listeners on
//! 127.0.0.1 (ephemeral ports), prints `PORTS p1 p2 ...` on one line, and serves forever:
//! - `/big`: a 200 MB text body, streamed;
//! - `/bomb`: a gzip bomb (256 MiB of text inflated from ~250 KB);
//! - `/page100k`: a 100 KB HTML page, no delay;
//! - anything else: a 20 KB HTML page after DELAY_MS.
//!
//! Connections are kept alive. The process runs until it is killed.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

fn page(bytes: usize) -> Vec<u8> {
    let mut s = String::from("<!doctype html><html><head><title>Bench page</title></head><body><article><h1>Bench page</h1>");
    let para = "<p>Benchmark paragraph with ordinary words about fetching pages, judging them and printing receipts for agents.</p>\n";
    while s.len() + para.len() + 30 < bytes {
        s.push_str(para);
    }
    s.push_str("</article></body></html>");
    s.into_bytes()
}

fn bomb() -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let block = vec![b'A'; 1 << 20];
    for _ in 0..256 {
        let _ = enc.write_all(&block);
    }
    enc.finish().unwrap_or_default()
}

struct Bodies {
    small: Vec<u8>,
    large: Vec<u8>,
    bomb: Vec<u8>,
}

async fn handle(stream: tokio::net::TcpStream, bodies: Arc<Bodies>, delay: Duration) {
    let (r, mut w) = stream.into_split();
    let mut r = BufReader::new(r);
    loop {
        let mut request_line = String::new();
        match r.read_line(&mut request_line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        loop {
            let mut h = String::new();
            match r.read_line(&mut h).await {
                Ok(0) | Err(_) => return,
                Ok(_) if h == "\r\n" || h == "\n" => break,
                Ok(_) => {}
            }
        }
        let path = request_line
            .split_whitespace()
            .nth(1)
            .unwrap_or("/")
            .to_string();
        let result = match path.as_str() {
            "/big" => {
                let total: usize = 200 * 1024 * 1024;
                let head = format!("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {total}\r\n\r\n");
                if w.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let chunk = vec![b'x'; 64 * 1024];
                let mut sent = 0;
                while sent < total {
                    if w.write_all(&chunk).await.is_err() {
                        return;
                    }
                    sent += chunk.len();
                }
                Ok(())
            }
            "/bomb" => {
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
                    bodies.bomb.len()
                );
                let _ = w.write_all(head.as_bytes()).await;
                w.write_all(&bodies.bomb).await
            }
            p => {
                let body = if p == "/page100k" {
                    &bodies.large
                } else {
                    tokio::time::sleep(delay).await;
                    &bodies.small
                };
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: keep-alive\r\n\r\n",
                    body.len()
                );
                let _ = w.write_all(head.as_bytes()).await;
                w.write_all(body).await
            }
        };
        if result.is_err() {
            return;
        }
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let ports: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    let delay = Duration::from_millis(args.get(2).and_then(|a| a.parse().ok()).unwrap_or(20));
    let bodies = Arc::new(Bodies {
        small: page(20 * 1024),
        large: page(100 * 1024),
        bomb: bomb(),
    });
    let mut listeners = Vec::new();
    for _ in 0..ports {
        match TcpListener::bind("127.0.0.1:0").await {
            Ok(l) => listeners.push(l),
            Err(e) => {
                eprintln!("bind: {e}");
                std::process::exit(1);
            }
        }
    }
    let list: Vec<String> = listeners
        .iter()
        .filter_map(|l| l.local_addr().ok().map(|a| a.port().to_string()))
        .collect();
    println!("PORTS {}", list.join(" "));
    let _ = std::io::stdout().flush();
    let mut tasks = Vec::new();
    for l in listeners {
        let bodies = bodies.clone();
        tasks.push(tokio::spawn(async move {
            while let Ok((s, _)) = l.accept().await {
                let _ = s.set_nodelay(true);
                tokio::spawn(handle(s, bodies.clone(), delay));
            }
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
}
