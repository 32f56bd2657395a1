//! The dump file: one draw per line, its 20 numbers in drawn order, separated by single spaces
//! (`17 3 80 ...`). Reading also skips blank lines and lines starting with `#`.

use anyhow::{bail, Context};
use keno_core::board::NUMBERS_DRAWN;
use keno_core::Draw;

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

/// What a line says: `None` for a blank or comment line, else the draw, which must be 20
/// distinct numbers of 1..=80 (rule 9.1, checked by `keno_core::Draw`).
pub fn parse_line(line: &str) -> anyhow::Result<Option<Numbers>> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let mut numbers = Vec::with_capacity(NUMBERS_DRAWN);
    for word in line.split_whitespace() {
        let n: u8 = word
            .parse()
            .with_context(|| format!("{word:?} is not a number of 1..=80"))?;
        numbers.push(n);
    }
    match Draw::new(&numbers) {
        Ok(draw) => Ok(Some(*draw.in_order())),
        Err(e) => bail!("not a draw ({e}): {line}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_reads_back_as_written() {
        let mut numbers = vec![80, 1, 9, 10];
        numbers.extend(20..36);
        let draw: Numbers = numbers.try_into().unwrap();
        let mut out = Vec::new();
        write_line(&mut out, &draw);
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("80 1 9 10 "), "{text}");
        assert!(text.ends_with('\n') && text.matches(' ').count() == 19);
        assert_eq!(parse_line(&text).unwrap(), Some(draw));
    }

    #[test]
    fn blank_and_comment_lines_are_skipped_and_bad_draws_refused() {
        assert_eq!(parse_line("  \n").unwrap(), None);
        assert_eq!(parse_line("# made on 2026-11-22").unwrap(), None);
        let numbers = |v: &[u8]| v.iter().map(u8::to_string).collect::<Vec<_>>().join(" ");
        let good: Vec<u8> = (1..=20).collect();
        assert!(parse_line(&numbers(&good)).unwrap().is_some());
        let mut repeated = good.clone();
        repeated[19] = 1;
        assert!(parse_line(&numbers(&repeated)).is_err());
        assert!(parse_line(&numbers(&good[..19])).is_err());
        let mut off_board = good.clone();
        off_board[0] = 81;
        assert!(parse_line(&numbers(&off_board)).is_err());
        assert!(parse_line("1 2 x").is_err());
    }
}
