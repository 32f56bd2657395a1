//! What the writer types, read as the entry forms mark it (Diagrams A and B).

use keno_api::tickets::Tender;
use keno_core::board::MAX_SPOTS;

/// Numbers of one selection: "6,45,36,80" or "6 45 36 80".
pub fn parse_spots(text: &str) -> Result<Vec<u8>, String> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<u8>()
                .map_err(|_| format!("{s:?} is not a number from 1 to 80"))
        })
        .collect()
}

/// Way groups as the receipt shows them: groups separated by "-", numbers by spaces or commas
/// ("6 45-36 80" is the groups [6, 45] and [36, 80]; a group of one number is a king).
pub fn parse_groups(text: &str) -> Result<Vec<Vec<u8>>, String> {
    let groups: Vec<Vec<u8>> = text.split('-').map(parse_spots).collect::<Result<_, _>>()?;
    if groups.iter().any(Vec::is_empty) {
        return Err(format!(
            "{text:?} has an empty group: separate groups with one '-'"
        ));
    }
    Ok(groups)
}

/// Which combinations of groups to play: "2", "1,3", or "all" (every group together).
pub fn parse_combine(text: &str, groups: usize) -> Result<Vec<u8>, String> {
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok(vec![groups as u8]);
    }
    parse_spots(text)
}

/// A dollar amount as cents, exactly: "3", "3.00", "$0.50", "0.1" (no floating point).
pub fn parse_dollars(text: &str) -> Result<u64, String> {
    let t = text.trim().trim_start_matches('$');
    let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
    let bad = || format!("{text:?} is not an amount in dollars and cents, like 3.00");
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() && frac.is_empty() || frac.len() > 2 || !digits(whole) || !digits(frac) {
        return Err(bad());
    }
    let dollars: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| bad())?
    };
    let cents: u64 = match frac.len() {
        0 => 0,
        1 => frac.parse::<u64>().map_err(|_| bad())? * 10,
        _ => frac.parse().map_err(|_| bad())?,
    };
    dollars
        .checked_mul(100)
        .and_then(|d| d.checked_add(cents))
        .ok_or_else(bad)
}

/// A dollar amount as the wire's signed cents (a voucher's amount, a tender's part of one).
pub fn parse_cents(text: &str) -> Result<i64, String> {
    i64::try_from(parse_dollars(text)?).map_err(|_| format!("{text:?} is too large an amount"))
}

/// A quick pick count: 1 to 15 numbers (rule 6.3(b)).
pub fn parse_count(text: &str) -> Result<u8, String> {
    match text.trim().parse::<u8>() {
        Ok(n) if (1..=MAX_SPOTS).contains(&n) => Ok(n),
        _ => Err(format!(
            "a quick pick is for 1 to {MAX_SPOTS} numbers, not {text:?}"
        )),
    }
}

/// A tender as typed: `voucher:CODE`, `voucher:CODE:AMOUNT` (spend exactly that much of it) or
/// `ticket:SERIAL` (a winning ticket's winnings), checked by their check digits before they
/// leave the terminal. (`v:` and `t:` for short.)
pub fn parse_tender(text: &str) -> Result<Tender, String> {
    let t = text.trim();
    let (kind, rest) = t.split_once(':').ok_or_else(|| {
        format!("{t:?}: a tender is voucher:CODE, voucher:CODE:AMOUNT or ticket:SERIAL")
    })?;
    match kind {
        "voucher" | "v" => {
            let (code, amount) = match rest.split_once(':') {
                Some((code, amount)) => (code, Some(parse_cents(amount)?)),
                None => (rest, None),
            };
            if !keno_core::serial::is_voucher_code(code) {
                return Err(format!(
                    "{code:?} is not a voucher code (22 digits): check the digits"
                ));
            }
            Ok(Tender::voucher(code, amount))
        }
        "ticket" | "t" => {
            if !keno_core::serial::is_well_formed(rest) {
                return Err(format!(
                    "{rest:?} is not a ticket serial number: check the digits"
                ));
            }
            Ok(Tender::ticket(rest))
        }
        _ => Err(format!(
            "{t:?}: a tender is voucher:CODE, voucher:CODE:AMOUNT or ticket:SERIAL"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spots_as_typed() {
        assert_eq!(parse_spots("6,45,36,80"), Ok(vec![6, 45, 36, 80]));
        assert_eq!(parse_spots(" 6 45  36,80 "), Ok(vec![6, 45, 36, 80]));
        assert!(parse_spots("6,x").is_err());
    }

    #[test]
    fn diagram_c_groups_are_separated_by_a_dash() {
        assert_eq!(
            parse_groups("06 45-36 80"),
            Ok(vec![vec![6, 45], vec![36, 80]])
        );
        assert_eq!(
            parse_groups("1-2-3 4 5"),
            Ok(vec![vec![1], vec![2], vec![3, 4, 5]])
        );
        assert!(parse_groups("1--2").is_err());
        assert_eq!(parse_combine("all", 3), Ok(vec![3]));
        assert_eq!(parse_combine("1,2", 3), Ok(vec![1, 2]));
    }

    #[test]
    fn dollars_become_exact_cents() {
        assert_eq!(parse_dollars("3"), Ok(300));
        assert_eq!(parse_dollars("3.00"), Ok(300));
        assert_eq!(parse_dollars("$0.50"), Ok(50));
        assert_eq!(parse_dollars("0.1"), Ok(10));
        assert_eq!(parse_dollars(".20"), Ok(20));
        assert_eq!(parse_dollars("9999.00"), Ok(999_900));
        for bad in ["", ".", "1.234", "abc", "-1", "1.x", "+3", "1.+5"] {
            assert!(parse_dollars(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn tenders_as_typed() {
        let code = "1234567890123456789012";
        assert!(keno_core::serial::is_voucher_code(code), "the test's code");
        assert_eq!(
            parse_tender(&format!("voucher:{code}")),
            Ok(Tender::voucher(code, None))
        );
        assert_eq!(
            parse_tender(&format!("v:{code}:2.50")),
            Ok(Tender::voucher(code, Some(250)))
        );
        assert_eq!(
            parse_tender("ticket:12345678901234567894"),
            Ok(Tender::ticket("12345678901234567894"))
        );
        assert!(parse_tender("voucher:1234567890123456789013").is_err());
        assert!(parse_tender("ticket:12345678901234567895").is_err());
        assert!(parse_tender("cash:5").is_err());
        assert!(parse_tender(code).is_err());
    }
}
