//! Where the draws come from: the production draw, or a dump file.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

use anyhow::{bail, Context};
use getrandom::SysRng;
use keno_core::random::draw_numbers;
use rand_core::UnwrapErr;

use super::dump_file::{parse_line, Numbers};
use super::progress::Progress;

/// One draw made as the server makes a game's: `draw_numbers` is `draw_next` 20 times (the same
/// function and scaling `clock::draw_one` calls for each number) from the OS CSPRNG.
pub fn production_draw() -> Numbers {
    *draw_numbers(&mut UnwrapErr(SysRng)).in_order()
}

/// Draws a thread makes before handing them on.
const CHUNK: u64 = 4096;

/// Makes `count` production draws on `threads` threads (each with its own OS generator) and
/// gives them to `sink` on this thread, chunk by chunk as they arrive. If `sink` fails, the
/// threads stop and its error is returned.
pub fn generate(
    count: u64,
    threads: usize,
    sink: &mut dyn FnMut(&Numbers) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut progress = Progress::new("generated");
    let remaining = AtomicU64::new(count);
    let (to_sink, chunks) = mpsc::sync_channel::<Vec<Numbers>>(2 * threads);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let to_sink = to_sink.clone();
            let remaining = &remaining;
            scope.spawn(move || {
                while let Some(n) = claim(remaining) {
                    let chunk: Vec<Numbers> = (0..n).map(|_| production_draw()).collect();
                    if to_sink.send(chunk).is_err() {
                        return; // the sink has stopped
                    }
                }
            });
        }
        drop(to_sink);
        let mut done = 0;
        for chunk in chunks {
            for draw in &chunk {
                sink(draw)?;
            }
            done += chunk.len() as u64;
            progress.update(done, Some(done as f64 / count as f64));
        }
        progress.finish(done);
        Ok(())
    })
}

/// Takes up to a chunk's worth of the draws still to make.
fn claim(remaining: &AtomicU64) -> Option<u64> {
    remaining
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| {
            (r > 0).then(|| r - r.min(CHUNK))
        })
        .ok()
        .map(|before| before.min(CHUNK))
}

/// Reads the draws of a dump file (`-`: standard input), at most `limit` of them, into `sink`;
/// returns how many were read. A malformed line is an error naming the file and line.
pub fn read(
    path: &Path,
    limit: Option<u64>,
    sink: &mut dyn FnMut(&Numbers) -> anyhow::Result<()>,
) -> anyhow::Result<u64> {
    let cannot_read = || format!("cannot read {}", path.display());
    let (mut reader, size): (Box<dyn BufRead>, Option<u64>) = if path == Path::new("-") {
        (Box::new(std::io::stdin().lock()), None)
    } else {
        let file = File::open(path).with_context(cannot_read)?;
        let size = file.metadata().ok().map(|m| m.len()).filter(|&s| s > 0);
        (Box::new(BufReader::with_capacity(1 << 16, file)), size)
    };
    let mut progress = Progress::new("read");
    let (mut count, mut bytes, mut line_number) = (0u64, 0u64, 0u64);
    let mut line = String::new();
    while limit != Some(count) {
        line.clear();
        let n = reader.read_line(&mut line).with_context(cannot_read)?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        line_number += 1;
        let Some(draw) =
            parse_line(&line).with_context(|| format!("{}:{line_number}", path.display()))?
        else {
            continue;
        };
        sink(&draw)?;
        count += 1;
        if count % CHUNK == 0 {
            let fraction = match (limit, size) {
                (Some(limit), _) => Some(count as f64 / limit as f64),
                (None, Some(size)) => Some(bytes as f64 / size as f64),
                (None, None) => None,
            };
            progress.update(count, fraction);
        }
    }
    if let Some(limit) = limit {
        if count < limit {
            bail!("{} holds {count} draws, fewer than {limit}", path.display());
        }
    }
    progress.finish(count);
    Ok(count)
}
