//! A sale's randomness: its quick pick's numbers (rule 6.3(b), (c)) and its serial, from the
//! kernel's CSPRNG in one system call for a quick pick of up to 15 numbers and its serial (a
//! random set bet of many numbers may take a few), rather than one per 32-bit word (issue 37:
//! those calls were 3% of the HTTP workers' processor).
//!
//! The bytes are the kernel's, read as they are needed from a buffer filled by one
//! `getrandom` and refilled only when a sale uses them up; the buffer lives for one sale and
//! is never shared or kept, so nothing one sale did not use can tell anything of another's.

use rand_core::{TryCryptoRng, TryRng};

/// What one `getrandom` reads: a quick pick of 15 numbers and a serial take 68 bytes.
const BATCH: usize = 128;

/// The kernel's randomness for one sale, read in one call.
pub struct SaleRng {
    buf: [u8; BATCH],
    /// The next byte not yet given; `BATCH` when the buffer is empty.
    next: usize,
}

impl Default for SaleRng {
    fn default() -> Self {
        SaleRng {
            buf: [0; BATCH],
            next: BATCH,
        }
    }
}

impl SaleRng {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], getrandom::Error> {
        if BATCH - self.next < N {
            getrandom::fill(&mut self.buf)?;
            self.next = 0;
        }
        let mut out = [0; N];
        out.copy_from_slice(&self.buf[self.next..self.next + N]);
        self.next += N;
        Ok(out)
    }
}

impl TryRng for SaleRng {
    type Error = getrandom::Error;

    fn try_next_u32(&mut self) -> Result<u32, getrandom::Error> {
        self.take().map(u32::from_le_bytes)
    }

    fn try_next_u64(&mut self) -> Result<u64, getrandom::Error> {
        self.take().map(u64::from_le_bytes)
    }

    /// More than a word is read straight from the kernel.
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), getrandom::Error> {
        getrandom::fill(dst)
    }
}

/// The kernel's CSPRNG, read in larger pieces.
impl TryCryptoRng for SaleRng {}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::{Rng, UnwrapErr};

    /// Every word is fresh: none of the buffer is given twice, across refills too.
    #[test]
    fn no_byte_is_given_twice() {
        let mut rng = UnwrapErr(SaleRng::default());
        let words: Vec<u64> = (0..100).map(|_| rng.next_u64()).collect();
        let distinct: std::collections::HashSet<u64> = words.iter().copied().collect();
        assert_eq!(distinct.len(), words.len());
        // 800 bytes through a buffer of 128: whole words only, the buffer's tail skipped.
        let mut rng = SaleRng::default();
        for _ in 0..30 {
            rng.try_next_u32().unwrap();
        }
        assert_eq!(rng.next, 120);
        rng.try_next_u64().unwrap();
        assert_eq!(rng.next, 128);
        rng.try_next_u64().unwrap();
        assert_eq!(rng.next, 8);
    }

    /// A quick pick and a serial from one sale's generator are what they are from the kernel.
    #[test]
    fn a_quick_pick_and_a_serial_are_well_formed() {
        let mut rng = UnwrapErr(SaleRng::default());
        let pick = keno_core::random::quick_pick(&mut rng, 15).unwrap();
        assert_eq!(pick.spots(), 15);
        assert!(keno_core::serial::is_well_formed(
            &keno_core::serial::new_serial(&mut rng)
        ));
    }
}
