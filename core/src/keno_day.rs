//! A Keno Day (rule 1(d)): the calendar day on which a day of Keno gaming started.
//!
//! Keno Days name tickets, vouchers and the 12 months a prize is payable at a terminal (rule
//! 13.1), so the core needs dates without a clock and without chrono: a civil date of the
//! proleptic Gregorian calendar, written `YYYY-MM-DD` as the server stores it, ordered by time,
//! with month arithmetic that clamps to the month's last day as chrono's `checked_add_months`
//! does (29 February + 12 months = 28 February).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use thiserror::Error;

/// A civil date, `0000-01-01` to `9999-12-31`. Fields in order year, month, day, so the
/// derived order is the order of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KenoDay {
    year: u16,
    month: u8,
    day: u8,
}

/// Text that is not a Keno Day.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum KenoDayError {
    #[error("{text:?} is not a Keno Day: write it YYYY-MM-DD")]
    Format { text: String },
    #[error("{year:04}-{month:02}-{day:02} is not a day of the calendar")]
    NoSuchDay { year: u16, month: u8, day: u8 },
}

/// Whether `year` has a 29 February (Gregorian: every 4th year, not centuries unless by 400).
pub fn is_leap_year(year: u16) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

/// Days in `month` (1 to 12) of `year`.
pub fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        2 if is_leap_year(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

impl KenoDay {
    /// The first day this type holds.
    pub const MIN: KenoDay = KenoDay {
        year: 0,
        month: 1,
        day: 1,
    };
    /// The last day this type holds (four-digit years, as `YYYY-MM-DD` writes them).
    pub const MAX: KenoDay = KenoDay {
        year: 9999,
        month: 12,
        day: 31,
    };

    /// The day, if it is one of the calendar.
    pub fn new(year: u16, month: u8, day: u8) -> Result<KenoDay, KenoDayError> {
        if year > 9999 || !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month)
        {
            return Err(KenoDayError::NoSuchDay { year, month, day });
        }
        Ok(KenoDay { year, month, day })
    }

    pub fn year(self) -> u16 {
        self.year
    }

    pub fn month(self) -> u8 {
        self.month
    }

    pub fn day(self) -> u8 {
        self.day
    }

    /// `n` months later, on the same day of the month or the month's last day if it has fewer
    /// (31 January + 1 month = 28 or 29 February). Past [`KenoDay::MAX`] it stays there.
    pub fn plus_months(self, n: u32) -> KenoDay {
        let index = self.month_index() + u64::from(n);
        KenoDay::at_month_index(index).map_or(KenoDay::MAX, |(y, m)| self.clamped_into(y, m))
    }

    /// `n` months earlier, clamped like [`KenoDay::plus_months`] (29 February - 12 months = 28
    /// February). Before [`KenoDay::MIN`] it stays there.
    pub fn minus_months(self, n: u32) -> KenoDay {
        match self.month_index().checked_sub(u64::from(n)) {
            Some(index) => KenoDay::at_month_index(index)
                .map_or(KenoDay::MIN, |(y, m)| self.clamped_into(y, m)),
            None => KenoDay::MIN,
        }
    }

    /// The day after, or `None` after [`KenoDay::MAX`].
    pub fn next_day(self) -> Option<KenoDay> {
        if self.day < days_in_month(self.year, self.month) {
            return Some(KenoDay {
                day: self.day + 1,
                ..self
            });
        }
        let (year, month) = KenoDay::at_month_index(self.month_index() + 1)?;
        Some(KenoDay {
            year,
            month,
            day: 1,
        })
    }

    /// The day before, or `None` before [`KenoDay::MIN`].
    pub fn previous_day(self) -> Option<KenoDay> {
        if self.day > 1 {
            return Some(KenoDay {
                day: self.day - 1,
                ..self
            });
        }
        let (year, month) = KenoDay::at_month_index(self.month_index().checked_sub(1)?)?;
        Some(KenoDay {
            year,
            month,
            day: days_in_month(year, month),
        })
    }

    /// Months since January of year 0.
    fn month_index(self) -> u64 {
        u64::from(self.year) * 12 + u64::from(self.month - 1)
    }

    /// The year and month of a month index, if within four-digit years.
    fn at_month_index(index: u64) -> Option<(u16, u8)> {
        let year = u16::try_from(index / 12).ok().filter(|&y| y <= 9999)?;
        Some((year, (index % 12) as u8 + 1))
    }

    fn clamped_into(self, year: u16, month: u8) -> KenoDay {
        KenoDay {
            year,
            month,
            day: self.day.min(days_in_month(year, month)),
        }
    }
}

impl fmt::Display for KenoDay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl FromStr for KenoDay {
    type Err = KenoDayError;

    /// Exactly `YYYY-MM-DD`: four, two and two ASCII digits.
    fn from_str(text: &str) -> Result<KenoDay, KenoDayError> {
        let format = || KenoDayError::Format { text: text.into() };
        let b = text.as_bytes();
        let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return Err(format());
        }
        if !(digits(0..4) && digits(5..7) && digits(8..10)) {
            return Err(format());
        }
        let number = |r: std::ops::Range<usize>| {
            b[r].iter().fold(0u16, |n, &d| n * 10 + u16::from(d - b'0'))
        };
        KenoDay::new(number(0..4), number(5..7) as u8, number(8..10) as u8)
    }
}

impl Serialize for KenoDay {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for KenoDay {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<KenoDay, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}
