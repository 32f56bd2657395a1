//! `--displays N`: N displays holding the event stream open (`GET /api/v1/events`) through the
//! sales, as a venue's screens do, spread over the instances. Each is a thread on a small stack
//! reading its stream to the end; the report says how many stayed connected and what they read.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The displays, until [`Displays::stop`].
pub struct Displays {
    stop: Arc<AtomicBool>,
    connected: Arc<AtomicUsize>,
    bytes: Arc<AtomicU64>,
    refused: Arc<AtomicUsize>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Displays {
    /// Opens `count` streams, round-robin over `bases`, and waits until each is answered.
    pub fn open(bases: &[String], count: usize) -> anyhow::Result<Displays> {
        let stop = Arc::new(AtomicBool::new(false));
        let (connected, refused) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let bytes = Arc::new(AtomicU64::new(0));
        let mut threads = Vec::with_capacity(count);
        for i in 0..count {
            let address = bases[i % bases.len()]
                .trim_start_matches("http://")
                .to_string();
            let (stop, connected, refused, bytes) = (
                stop.clone(),
                connected.clone(),
                refused.clone(),
                bytes.clone(),
            );
            let thread = std::thread::Builder::new()
                .stack_size(64 * 1024)
                .spawn(move || watch(&address, &stop, (&connected, &refused), &bytes))?;
            threads.push(thread);
        }
        let mut waited = 0;
        while connected.load(Ordering::Relaxed) + refused.load(Ordering::Relaxed) < count {
            anyhow::ensure!(waited < 600, "the displays did not all connect in 60 s");
            std::thread::sleep(Duration::from_millis(100));
            waited += 1;
        }
        println!(
            "displays: {} streams open, {} refused",
            connected.load(Ordering::Relaxed),
            refused.load(Ordering::Relaxed)
        );
        Ok(Displays {
            stop,
            connected,
            bytes,
            refused,
            threads,
        })
    }

    /// Closes the streams and prints how many were still open and what they read.
    pub fn stop(self) {
        let open = self.connected.load(Ordering::Relaxed);
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads {
            let _ = t.join();
        }
        println!(
            "displays: {open} streams still open at the end ({} refused), {} KiB of events read",
            self.refused.load(Ordering::Relaxed),
            self.bytes.load(Ordering::Relaxed) / 1024
        );
    }
}

/// One display: the stream opened, then read until the run stops or the server ends it.
fn watch(
    address: &str,
    stop: &AtomicBool,
    (connected, refused): (&AtomicUsize, &AtomicUsize),
    bytes: &AtomicU64,
) {
    let Ok(mut stream) = TcpStream::connect(address) else {
        refused.fetch_add(1, Ordering::Relaxed);
        return;
    };
    let request = format!(
        "GET /api/v1/events HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\n\r\n"
    );
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    if stream.write_all(request.as_bytes()).is_err() {
        refused.fetch_add(1, Ordering::Relaxed);
        return;
    }
    let mut buf = [0u8; 4096];
    let mut answered = false;
    while !stop.load(Ordering::Relaxed) {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if !answered {
                    answered = true;
                    if buf[..n].starts_with(b"HTTP/1.1 200") {
                        connected.fetch_add(1, Ordering::Relaxed);
                    } else {
                        refused.fetch_add(1, Ordering::Relaxed);
                        return;
                    }
                }
                bytes.fetch_add(n as u64, Ordering::Relaxed);
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => break,
        }
    }
    if answered {
        connected.fetch_sub(1, Ordering::Relaxed);
    }
}
