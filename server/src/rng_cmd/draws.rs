//! Where the draws come from: the production draw, or a dump file.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

use getrandom::SysRng;
use keno_core::random::draw_numbers;
use rand_core::UnwrapErr;

use super::dump_file::Numbers;
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
