//! Keno Day hours (rules 1(d), 16.1): when games run, and which Keno Day a moment belongs to.

use chrono::{DateTime, Datelike, Duration, Local, NaiveDate, NaiveTime, TimeZone};
use keno_core::KenoDay;

use crate::failure::{DomainResult, Failure};

/// A Keno Day as stored (`YYYY-MM-DD`); one that does not parse is an internal error naming
/// `whose` it is, never a default.
pub fn stored(text: &str, whose: impl std::fmt::Display) -> DomainResult<KenoDay> {
    text.parse().map_err(|e| {
        Failure::Internal(anyhow::anyhow!(
            "{whose}: the stored Keno Day is unreadable: {e}"
        ))
    })
}

/// The calendar day `date` as a Keno Day (the core's dates have no chrono).
pub fn from_date(date: NaiveDate) -> DomainResult<KenoDay> {
    let year = u16::try_from(date.year()).ok();
    year.and_then(|y| KenoDay::new(y, date.month() as u8, date.day() as u8).ok())
        .ok_or_else(|| Failure::Internal(anyhow::anyhow!("{date} is outside the Keno Days")))
}

/// The Keno Day as a calendar day, for the clock's arithmetic.
pub fn to_date(day: KenoDay) -> NaiveDate {
    NaiveDate::from_ymd_opt(day.year().into(), day.month().into(), day.day().into())
        .expect("a Keno Day is a day of the calendar")
}

/// The hours of Keno gaming in local time, e.g. 10:00 to 02:00 the next morning. Start equal to
/// end means Keno runs all day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KenoHours {
    pub start: NaiveTime,
    pub end: NaiveTime,
}

impl KenoHours {
    /// The Keno Day a moment falls in, named by the calendar day it started (1(d)); `None`
    /// outside the hours of gaming.
    pub fn keno_day(&self, t: DateTime<Local>) -> Option<NaiveDate> {
        let (date, time) = (t.date_naive(), t.time());
        let yesterday = date.pred_opt()?;
        if self.start == self.end {
            return Some(if time >= self.start { date } else { yesterday });
        }
        if self.start < self.end {
            (self.start <= time && time < self.end).then_some(date)
        } else if time >= self.start {
            Some(date)
        } else if time < self.end {
            Some(yesterday)
        } else {
            None
        }
    }

    /// The Keno Day now: the one started most recently (on the time source's clock).
    pub fn today(&self) -> DomainResult<KenoDay> {
        from_date(self.latest_started_day(crate::time::local_now()))
    }

    /// The Keno Day that started most recently at or before `t`, within the hours or not.
    pub fn latest_started_day(&self, t: DateTime<Local>) -> NaiveDate {
        let date = t.date_naive();
        if t.time() >= self.start {
            date
        } else {
            date.pred_opt().unwrap_or(date)
        }
    }

    /// The next moment gaming starts after `t` (when `t` is outside the hours).
    pub fn next_start(&self, t: DateTime<Local>) -> DateTime<Local> {
        let today = t.date_naive().and_time(self.start);
        let candidate = if today > t.naive_local() {
            today
        } else {
            today + Duration::days(1)
        };
        Local
            .from_local_datetime(&candidate)
            .earliest()
            .unwrap_or(t + Duration::hours(1))
    }

    /// When the gaming of Keno Day `day` starts and normally ends (rules 1(d), 16.1), in
    /// microseconds: what the core checks an early closure against (rule 16.2).
    pub fn hours_of(&self, day: NaiveDate) -> keno_core::KenoDayHours {
        let end_date = if self.start < self.end {
            day
        } else {
            day.succ_opt().unwrap_or(day)
        };
        // All day (start equal to end): the day ends when the next one starts.
        let end = if self.start == self.end {
            self.start
        } else {
            self.end
        };
        let micros = |date: NaiveDate, time: NaiveTime| {
            let naive = date.and_time(time);
            Local.from_local_datetime(&naive).earliest().map_or_else(
                || naive.and_utc().timestamp_micros(),
                |t| t.timestamp_micros(),
            )
        };
        keno_core::KenoDayHours {
            starts_at: micros(day, self.start),
            ends_at: micros(end_date, end),
        }
    }

    /// Parses "HH:MM".
    pub fn parse_time(s: &str) -> Result<NaiveTime, String> {
        NaiveTime::parse_from_str(s, "%H:%M").map_err(|_| format!("{s:?} is not a time as HH:MM"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(h: u32, m: u32) -> DateTime<Local> {
        Local
            .from_local_datetime(
                &NaiveDate::from_ymd_opt(2026, 11, 22)
                    .unwrap()
                    .and_hms_opt(h, m, 0)
                    .unwrap(),
            )
            .earliest()
            .unwrap()
    }

    fn hours(start: &str, end: &str) -> KenoHours {
        KenoHours {
            start: KenoHours::parse_time(start).unwrap(),
            end: KenoHours::parse_time(end).unwrap(),
        }
    }

    #[test]
    fn rule_1_d_a_keno_day_past_midnight_is_named_by_the_day_it_started() {
        let h = hours("10:00", "02:00");
        let day = |d| NaiveDate::from_ymd_opt(2026, 11, d);
        assert_eq!(h.keno_day(at(10, 0)), day(22));
        assert_eq!(h.keno_day(at(23, 59)), day(22));
        assert_eq!(h.keno_day(at(1, 30)), day(21));
        assert_eq!(h.keno_day(at(2, 0)), None);
        assert_eq!(h.keno_day(at(9, 59)), None);
        assert_eq!(h.next_start(at(3, 0)), at(10, 0));
        // Rule 8.3: between 02:00 and 10:00 the latest Keno Day is still the one that began
        // yesterday; from 10:00 a later one has started.
        assert_eq!(h.latest_started_day(at(3, 0)), day(21).unwrap());
        assert_eq!(h.latest_started_day(at(9, 59)), day(21).unwrap());
        assert_eq!(h.latest_started_day(at(10, 0)), day(22).unwrap());
    }

    #[test]
    fn rule_16_1_the_hours_of_a_keno_day_end_the_next_morning_or_at_the_next_start() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
        let next = |h, m| {
            Local
                .from_local_datetime(&day.succ_opt().unwrap().and_hms_opt(h, m, 0).unwrap())
                .earliest()
                .unwrap()
                .timestamp_micros()
        };
        let h = hours("10:00", "02:00").hours_of(day);
        assert_eq!(h.starts_at, at(10, 0).timestamp_micros());
        assert_eq!(h.ends_at, next(2, 0));
        assert_eq!(
            hours("10:00", "23:00").hours_of(day).ends_at,
            at(23, 0).timestamp_micros()
        );
        assert_eq!(hours("06:00", "06:00").hours_of(day).ends_at, next(6, 0));
    }

    #[test]
    fn equal_start_and_end_is_gaming_all_day() {
        let h = hours("06:00", "06:00");
        assert_eq!(h.keno_day(at(5, 0)), NaiveDate::from_ymd_opt(2026, 11, 21));
        assert_eq!(h.keno_day(at(6, 0)), NaiveDate::from_ymd_opt(2026, 11, 22));
    }
}
