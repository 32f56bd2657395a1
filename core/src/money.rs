//! Money is integer cents everywhere; this only shows it to people.

use std::fmt;

/// An amount of cents, displayed as dollars: `$9,999.00`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Dollars(pub u64);

impl fmt::Display for Dollars {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let whole = (self.0 / 100).to_string();
        let mut grouped = String::with_capacity(whole.len() + whole.len() / 3);
        for (i, c) in whole.chars().enumerate() {
            if i > 0 && (whole.len() - i).is_multiple_of(3) {
                grouped.push(',');
            }
            grouped.push(c);
        }
        write!(f, "${grouped}.{:02}", self.0 % 100)
    }
}

#[cfg(test)]
mod tests {
    use super::Dollars;

    #[test]
    fn shows_dollars_with_thousands_and_cents() {
        assert_eq!(Dollars(0).to_string(), "$0.00");
        assert_eq!(Dollars(10).to_string(), "$0.10");
        assert_eq!(Dollars(300).to_string(), "$3.00");
        assert_eq!(Dollars(999_900).to_string(), "$9,999.00");
        assert_eq!(Dollars(5_000_000).to_string(), "$50,000.00");
        assert_eq!(Dollars(123_456_789).to_string(), "$1,234,567.89");
    }
}
