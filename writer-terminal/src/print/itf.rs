//! Interleaved 2 of 5, the barcode of the serial number on PDF receipts (thermal printers draw
//! it themselves). Digits go in pairs: the first of a pair in the bars, the second in the gaps.

/// Narrow (false) or wide (true) elements of each digit.
const PATTERNS: [[bool; 5]; 10] = [
    [false, false, true, true, false],
    [true, false, false, false, true],
    [false, true, false, false, true],
    [true, true, false, false, false],
    [false, false, true, false, true],
    [true, false, true, false, false],
    [false, true, true, false, false],
    [false, false, false, true, true],
    [true, false, false, true, false],
    [false, true, false, true, false],
];

/// The widths of alternating bars and gaps (bar first), in narrow units (wide = 3), or `None`
/// unless `digits` is an even number of decimal digits.
pub fn modules(digits: &str) -> Option<Vec<u8>> {
    let d: Vec<usize> = digits
        .bytes()
        .map(|b| b.checked_sub(b'0').filter(|v| *v < 10).map(usize::from))
        .collect::<Option<_>>()?;
    if !d.len().is_multiple_of(2) {
        return None;
    }
    let w = |wide: bool| if wide { 3 } else { 1 };
    let mut out = vec![1, 1, 1, 1]; // start: bar, gap, bar, gap
    for pair in d.chunks(2) {
        for (&bar, &gap) in PATTERNS[pair[0]].iter().zip(&PATTERNS[pair[1]]) {
            out.push(w(bar));
            out.push(w(gap));
        }
    }
    out.extend([3, 1, 1]); // stop: wide bar, gap, bar
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes modules back to digits, as a scanner would.
    fn decode(m: &[u8]) -> String {
        let body = &m[4..m.len() - 3];
        let mut out = String::new();
        for chunk in body.chunks(10) {
            let bars: Vec<bool> = chunk.iter().step_by(2).map(|&x| x == 3).collect();
            let gaps: Vec<bool> = chunk.iter().skip(1).step_by(2).map(|&x| x == 3).collect();
            for p in [bars, gaps] {
                let digit = PATTERNS.iter().position(|q| q[..] == p[..]).unwrap();
                out.push(char::from(b'0' + digit as u8));
            }
        }
        out
    }

    #[test]
    fn every_digit_pattern_has_two_wide_elements_and_round_trips() {
        assert!(PATTERNS
            .iter()
            .all(|p| p.iter().filter(|w| **w).count() == 2));
        let serial = "58692574833158900013";
        assert_eq!(decode(&modules(serial).unwrap()), serial);
        assert_eq!(modules("123"), None);
        assert_eq!(modules("12a4"), None);
    }
}
