//! Receipt ticket serial numbers: long, unguessable, with a check digit (issue 4, rule 1(j)).
//!
//! 19 random decimal digits (uniform over 10^19 values: 63 bits of entropy) and a Luhn check
//! digit, so a mistyped or misread serial is caught before it reaches the database.

use rand_core::CryptoRng;

/// Digits in a serial number, the check digit included.
pub const SERIAL_DIGITS: usize = 20;

const RANDOM_SPACE: u64 = 10_000_000_000_000_000_000; // 10^19

/// A new serial number from a cryptographic generator.
pub fn new_serial<R: CryptoRng + ?Sized>(rng: &mut R) -> String {
    // Rejection keeps the 19 digits uniform: 10^19 does not divide 2^64.
    let limit = u64::MAX - u64::MAX % RANDOM_SPACE;
    let value = loop {
        let v = rng.next_u64();
        if v < limit {
            break v % RANDOM_SPACE;
        }
    };
    let body = format!("{value:019}");
    let check = luhn_check_digit(&body);
    format!("{body}{check}")
}

/// Whether `serial` is 20 digits with a correct check digit.
pub fn is_well_formed(serial: &str) -> bool {
    serial.len() == SERIAL_DIGITS
        && serial.bytes().all(|b| b.is_ascii_digit())
        && luhn_check_digit(&serial[..SERIAL_DIGITS - 1])
            == serial.as_bytes()[SERIAL_DIGITS - 1] - b'0'
}

fn luhn_check_digit(digits: &str) -> u8 {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 0 {
                let dd = d * 2;
                if dd > 9 {
                    dd - 9
                } else {
                    dd
                }
            } else {
                d
            }
        })
        .sum();
    ((10 - sum % 10) % 10) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn serials_are_20_digits_with_a_valid_check_digit_and_distinct() {
        let mut rng = ChaCha20Rng::seed_from_u64(9);
        let serials: std::collections::HashSet<String> =
            (0..10_000).map(|_| new_serial(&mut rng)).collect();
        assert_eq!(serials.len(), 10_000);
        assert!(serials.iter().all(|s| is_well_formed(s)));
    }

    #[test]
    fn luhn_catches_a_single_wrong_digit_and_swapped_neighbours() {
        assert_eq!(luhn_check_digit("7992739871"), 3); // the textbook example
        let mut rng = ChaCha20Rng::seed_from_u64(10);
        let s = new_serial(&mut rng);
        for i in 0..SERIAL_DIGITS {
            let mut b = s.clone().into_bytes();
            b[i] = if b[i] == b'9' { b'0' } else { b[i] + 1 };
            assert!(
                !is_well_formed(std::str::from_utf8(&b).unwrap()),
                "digit {i}"
            );
        }
        assert!(!is_well_formed("1234"));
        assert!(!is_well_formed("1234567890123456789a"));
    }
}
