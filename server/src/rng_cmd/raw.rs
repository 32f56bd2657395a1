//! `rng dump --raw`: the generator's own output before any scaling, as binary bytes for a
//! laboratory's battery (dieharder reads it with `-g 201 -f FILE`; NIST SP 800-22 and TestU01
//! read the same bytes). The bytes come through [`DrawRng`], the very source the server's
//! draw reads: its `fill` is what each number's `next_u32` calls (4 bytes at a time, little
//! endian), here asked for a block at a time so that gigabytes take seconds, not hours.

use std::io::Write;

use anyhow::bail;
use rand_core::TryRng;

use super::progress::Progress;
use crate::draw_rng::DrawRng;

/// Bytes asked of the generator at once.
const BLOCK: usize = 1 << 16;

/// Writes `count` bytes of raw output to `out`. A failure of the generator stops the dump,
/// with nothing after the last good block written: a lab never tests a failure's filler.
pub fn write(count: u64, out: &mut dyn Write) -> anyhow::Result<()> {
    let mut rng = DrawRng::default();
    let mut block = vec![0u8; BLOCK];
    let mut progress = Progress::of("bytes", "written");
    let mut done = 0u64;
    while done < count {
        let n = BLOCK.min(usize::try_from(count - done).unwrap_or(BLOCK));
        let Ok(()) = rng.try_fill_bytes(&mut block[..n]);
        if let Some(failed) = rng.failure() {
            bail!("{failed}: {done} bytes were written before it");
        }
        match out.write_all(&block[..n]) {
            // A battery reading a pipe (`--out -`) closes it when it has read enough: the end
            // of the dump, and how many bytes went through is what the lab records.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                progress.finish(done);
                eprintln!("rng: the reader closed the pipe");
                return Ok(());
            }
            written => written?,
        }
        done += n as u64;
        progress.update(done, Some(done as f64 / count as f64));
    }
    progress.finish(done);
    Ok(out.flush()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_exactly_the_bytes_asked_and_they_vary() {
        for count in [0u64, 1, 4, 65_535, 65_536, 200_001] {
            let mut out = Vec::new();
            write(count, &mut out).unwrap();
            assert_eq!(out.len() as u64, count);
        }
        // 1 MiB of a uniform source: every byte value appears, none far from 4,096 times.
        let mut out = Vec::new();
        write(1 << 20, &mut out).unwrap();
        let mut seen = [0u32; 256];
        for b in &out {
            seen[*b as usize] += 1;
        }
        assert!(
            seen.iter().all(|&c| (3_600..4_600).contains(&c)),
            "{seen:?}"
        );
    }
}
