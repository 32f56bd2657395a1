//! `--displays N`: N displays holding the event stream open (`GET /api/v1/events`) through the
//! sales, as a venue's screens do, spread over the instances. They are read by a few threads,
//! each sweeping its share of the streams (non-blocking) ten times a second, as a screen that
//! redraws at 10 Hz would: the load generator's own cost stays small beside the server's, on
//! the one machine. The report says how many stayed connected and what they read.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Threads reading the streams.
const READERS: usize = 4;

/// The displays, until [`Displays::stop`].
pub struct Displays {
    stop: Arc<AtomicBool>,
    tally: Arc<Tally>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

/// What the displays saw, in all.
#[derive(Default)]
struct Tally {
    connected: AtomicUsize,
    refused: AtomicUsize,
    bytes: AtomicU64,
}

/// One display's stream, and whether the server has answered it yet.
struct Stream {
    socket: TcpStream,
    answered: bool,
    open: bool,
}

impl Displays {
    /// Opens `count` streams, round-robin over `bases`, and waits until each is answered.
    pub fn open(bases: &[String], count: usize) -> anyhow::Result<Displays> {
        let (stop, tally) = (Arc::new(AtomicBool::new(false)), Arc::new(Tally::default()));
        let mut shares: Vec<Vec<Stream>> = (0..READERS).map(|_| Vec::new()).collect();
        for i in 0..count {
            let address = bases[i % bases.len()].trim_start_matches("http://");
            let mut socket = TcpStream::connect(address)?;
            let request = format!(
                "GET /api/v1/events HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\n\r\n"
            );
            socket.write_all(request.as_bytes())?;
            socket.set_nonblocking(true)?;
            shares[i % READERS].push(Stream {
                socket,
                answered: false,
                open: true,
            });
        }
        let threads = shares
            .into_iter()
            .map(|share| {
                let (stop, tally) = (stop.clone(), tally.clone());
                std::thread::spawn(move || sweep(share, &stop, &tally))
            })
            .collect();
        let displays = Displays {
            stop,
            tally,
            threads,
        };
        let mut waited = 0;
        while displays.tally.connected.load(Ordering::Relaxed)
            + displays.tally.refused.load(Ordering::Relaxed)
            < count
        {
            anyhow::ensure!(waited < 600, "the displays were not all answered in 60 s");
            std::thread::sleep(Duration::from_millis(100));
            waited += 1;
        }
        println!(
            "displays: {} streams open, {} refused",
            displays.tally.connected.load(Ordering::Relaxed),
            displays.tally.refused.load(Ordering::Relaxed)
        );
        Ok(displays)
    }

    /// Closes the streams and prints how many were still open and what they read.
    pub fn stop(self) {
        let open = self.tally.connected.load(Ordering::Relaxed);
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads {
            let _ = t.join();
        }
        println!(
            "displays: {open} streams still open at the end ({} refused), {} KiB of events read",
            self.tally.refused.load(Ordering::Relaxed),
            self.tally.bytes.load(Ordering::Relaxed) / 1024
        );
    }
}

/// Reads every stream of `share` to what is waiting, ten times a second, until `stop`.
fn sweep(mut share: Vec<Stream>, stop: &AtomicBool, tally: &Tally) {
    let mut buf = vec![0u8; 64 * 1024];
    while !stop.load(Ordering::Relaxed) {
        for s in share.iter_mut().filter(|s| s.open) {
            read_waiting(s, &mut buf, tally);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn read_waiting(s: &mut Stream, buf: &mut [u8], tally: &Tally) {
    loop {
        let n = match s.socket.read(buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
            // Reset: the stream is over.
            Err(_) => 0,
        };
        if n == 0 {
            s.open = false;
            if s.answered {
                tally.connected.fetch_sub(1, Ordering::Relaxed);
            } else {
                tally.refused.fetch_add(1, Ordering::Relaxed);
            }
            return;
        }
        if !s.answered {
            s.answered = true;
            if !buf[..n].starts_with(b"HTTP/1.1 200") {
                s.open = false;
                tally.refused.fetch_add(1, Ordering::Relaxed);
                return;
            }
            tally.connected.fetch_add(1, Ordering::Relaxed);
        }
        tally.bytes.fetch_add(n as u64, Ordering::Relaxed);
    }
}
