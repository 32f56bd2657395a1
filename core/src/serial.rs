//! Receipt ticket serial numbers and voucher codes: long, unguessable, with a check digit
//! (issue 4, rule 1(j); issue 8, rule 1(n)).
//!
//! A serial is 19 random decimal digits (uniform over 10^19 values: 63 bits of entropy) and a
//! Luhn check digit, so a mistyped or misread serial is caught before it reaches the database.
//! A voucher code is 21 random digits (uniform over 10^21: 69 bits) and a Luhn check digit: a
//! voucher is a bearer document worth money until it is spent, and the different length tells a
//! scanned voucher from a scanned ticket.
//!
//! Entropy, exactly: log2(10^19) = 63.1 bits for a serial, log2(10^21) = 69.8 bits for a
//! voucher code; the check digit adds none. Both come from the caller's cryptographic generator
//! (the server passes the OS CSPRNG) and are rejection-sampled, so every value is equally likely.
//! With ten million unpaid tickets on record, a guessed serial names one of them once in 10^12
//! tries; the server adds a per-address limit on the public check (`--check-rate`), and every
//! other lookup by serial or code needs a principal's token.

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
    digits_with_check(serial, SERIAL_DIGITS)
}

/// Digits in a voucher code, the check digit included.
pub const VOUCHER_DIGITS: usize = 22;

const VOUCHER_SPACE: u128 = 1_000_000_000_000_000_000_000; // 10^21

/// A new voucher code from a cryptographic generator: never sequential, never derived from
/// anything else.
pub fn new_voucher_code<R: CryptoRng + ?Sized>(rng: &mut R) -> String {
    let limit = u128::MAX - u128::MAX % VOUCHER_SPACE;
    let value = loop {
        let v = (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64());
        if v < limit {
            break v % VOUCHER_SPACE;
        }
    };
    let body = format!("{value:021}");
    let check = luhn_check_digit(&body);
    format!("{body}{check}")
}

/// Whether `code` is a voucher code: 22 digits with a correct check digit.
pub fn is_voucher_code(code: &str) -> bool {
    digits_with_check(code, VOUCHER_DIGITS)
}

fn digits_with_check(s: &str, len: usize) -> bool {
    s.len() == len
        && s.bytes().all(|b| b.is_ascii_digit())
        && luhn_check_digit(&s[..len - 1]) == s.as_bytes()[len - 1] - b'0'
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

    #[test]
    fn voucher_codes_are_22_digits_checked_distinct_and_not_serials() {
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        let codes: std::collections::HashSet<String> =
            (0..10_000).map(|_| new_voucher_code(&mut rng)).collect();
        assert_eq!(codes.len(), 10_000);
        assert!(codes
            .iter()
            .all(|c| is_voucher_code(c) && !is_well_formed(c)));
        // Every position takes every digit: the whole code is random, not a counter.
        for i in 0..VOUCHER_DIGITS - 1 {
            let seen: std::collections::HashSet<u8> =
                codes.iter().map(|c| c.as_bytes()[i]).collect();
            assert_eq!(seen.len(), 10, "position {i}");
        }
        let code = codes.iter().next().unwrap();
        for i in 0..VOUCHER_DIGITS {
            let mut b = code.clone().into_bytes();
            b[i] = if b[i] == b'9' { b'0' } else { b[i] + 1 };
            assert!(
                !is_voucher_code(std::str::from_utf8(&b).unwrap()),
                "digit {i}"
            );
        }
        assert!(!is_voucher_code(&new_serial(&mut rng)));
    }
}
