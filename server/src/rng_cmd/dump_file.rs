//! The dump file: one draw per line, its 20 numbers in drawn order, separated by single spaces
//! (`17 3 80 ...`).

use keno_core::board::NUMBERS_DRAWN;

/// A draw's numbers in drawn order.
pub type Numbers = [u8; NUMBERS_DRAWN];

/// Appends a draw's line (with its newline) to `out`.
pub fn write_line(out: &mut Vec<u8>, draw: &Numbers) {
    for (i, &n) in draw.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        if n >= 10 {
            out.push(b'0' + n / 10);
        }
        out.push(b'0' + n % 10);
    }
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_the_numbers_in_drawn_order() {
        let mut numbers = vec![80, 1, 9, 10];
        numbers.extend(20..36);
        let draw: Numbers = numbers.try_into().unwrap();
        let mut out = Vec::new();
        write_line(&mut out, &draw);
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("80 1 9 10 "), "{text}");
        assert!(text.ends_with('\n') && text.matches(' ').count() == 19);
        let back: Vec<u8> = text
            .split_whitespace()
            .map(|w| w.parse().unwrap())
            .collect();
        assert_eq!(back, draw);
    }
}
