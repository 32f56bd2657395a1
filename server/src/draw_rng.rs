//! The draw's randomness (rule 3.2): the kernel's CSPRNG through `getrandom`, checked. The
//! application keeps no seed and no state. Should the kernel fail to give randomness, no
//! number is drawn from anything else: the failure is kept, the draw's transaction writes
//! nothing, and the drawer suspends the system (issue 33; AGCO 21.1.9: a failed draw
//! mechanism makes the game unavailable until it is fixed).

use rand_core::{Infallible, TryCryptoRng, TryRng};

/// `getrandom`, with its first failure kept. After one it gives a count, never used (the
/// caller asks [`DrawRng::failure`] before keeping a number): output that changes lets the
/// unbiased scaling's rejection loop end, where constant zeros could hold it forever.
#[derive(Default)]
pub struct DrawRng {
    failed: Option<String>,
    count: u8,
}

impl DrawRng {
    /// What failed, if the randomness did.
    pub fn failure(&self) -> Option<&str> {
        self.failed.as_deref()
    }

    fn fill(&mut self, dst: &mut [u8]) {
        if self.failed.is_none() {
            if crate::faults::rng_fails() {
                self.failed = Some("the fault harness made the RNG fail".into());
            } else if let Err(e) = getrandom::fill(dst) {
                self.failed = Some(format!("the operating system's RNG failed: {e}"));
            }
        }
        if self.failed.is_some() {
            for b in dst {
                self.count = self.count.wrapping_add(97);
                *b = self.count;
            }
        }
    }
}

impl TryRng for DrawRng {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        let mut b = [0; 4];
        self.fill(&mut b);
        Ok(u32::from_le_bytes(b))
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        let mut b = [0; 8];
        self.fill(&mut b);
        Ok(u64::from_le_bytes(b))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.fill(dst);
        Ok(())
    }
}

// The kernel's CSPRNG is a cryptographic generator; a failure is never passed off as output.
impl TryCryptoRng for DrawRng {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_rng_lets_a_draw_end_and_says_so() {
        let mut rng = DrawRng {
            failed: Some("failed".into()),
            count: 0,
        };
        let mut drawn = keno_core::NumberSet::EMPTY;
        for _ in 0..20 {
            let n = keno_core::random::draw_next(&mut rng, drawn);
            drawn = drawn.union(keno_core::NumberSet::from_numbers(&[n]).unwrap());
        }
        assert_eq!(rng.failure(), Some("failed"));
        assert!(DrawRng::default().failure().is_none());
    }
}
