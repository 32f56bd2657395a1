//! Keno Days (rule 1(d)) as civil dates: text, order and month arithmetic, against a simple
//! reference.

use keno_core::keno_day::{days_in_month, is_leap_year};
use keno_core::{KenoDay, KenoDayError};
use proptest::prelude::*;

fn day(text: &str) -> KenoDay {
    text.parse().unwrap()
}

/// Reference: days since 1970-01-01 (H. Hinnant's `days_from_civil`).
fn days_from_civil(d: KenoDay) -> i64 {
    let (m, dd) = (i64::from(d.month()), i64::from(d.day()));
    let y = i64::from(d.year()) - i64::from(m <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + dd - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Reference: `n` months on by stepping one month at a time, then the day clamped.
fn reference_plus_months(d: KenoDay, n: u32) -> (u32, u8, u8) {
    let (mut y, mut m) = (u32::from(d.year()), d.month());
    for _ in 0..n {
        if m == 12 {
            y += 1;
            m = 1;
        } else {
            m += 1;
        }
    }
    let dim = match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    (y, m, d.day().min(dim))
}

fn parts(d: KenoDay) -> (u32, u8, u8) {
    (u32::from(d.year()), d.month(), d.day())
}

fn any_day() -> impl Strategy<Value = KenoDay> {
    (0u16..=9999, 1u8..=12, 1u8..=31)
        .prop_map(|(y, m, d)| KenoDay::new(y, m, d.min(days_in_month(y, m))).unwrap())
}

#[test]
fn parses_and_shows_yyyy_mm_dd() {
    let d = day("2026-11-23");
    assert_eq!((d.year(), d.month(), d.day()), (2026, 11, 23));
    assert_eq!(d.to_string(), "2026-11-23");
    assert_eq!(day("0007-01-09").to_string(), "0007-01-09");
    assert_eq!(day("2028-02-29").to_string(), "2028-02-29");
}

#[test]
fn refuses_what_is_not_a_keno_day() {
    for bad in [
        "",
        "2026-1-23",
        "2026-11-3",
        "26-11-23",
        "2026/11/23",
        "2026-11-23 ",
        " 2026-11-23",
        "+2026-11-2",
        "2026-1a-23",
        "20261-11-23",
        "2026-11-23T00:00",
        "２０２６-11-23",
    ] {
        assert_eq!(
            bad.parse::<KenoDay>(),
            Err(KenoDayError::Format { text: bad.into() }),
            "{bad:?}"
        );
    }
    for (bad, y, m, d) in [
        ("2027-02-29", 2027, 2, 29),
        ("2026-13-01", 2026, 13, 1),
        ("2026-00-10", 2026, 0, 10),
        ("2026-04-31", 2026, 4, 31),
        ("2026-04-00", 2026, 4, 0),
        ("1900-02-29", 1900, 2, 29),
    ] {
        let e = bad.parse::<KenoDay>().unwrap_err();
        assert_eq!(
            e,
            KenoDayError::NoSuchDay {
                year: y,
                month: m,
                day: d
            }
        );
        assert_eq!(e.to_string(), format!("{bad} is not a day of the calendar"));
    }
    assert!(KenoDay::new(10_000, 1, 1).is_err());
    assert_eq!(
        "x".parse::<KenoDay>().unwrap_err().to_string(),
        "\"x\" is not a Keno Day: write it YYYY-MM-DD"
    );
}

#[test]
fn leap_years_are_gregorian() {
    assert!(is_leap_year(2028) && is_leap_year(2000) && is_leap_year(0));
    assert!(!is_leap_year(2027) && !is_leap_year(1900) && !is_leap_year(2100));
    assert_eq!(days_in_month(2028, 2), 29);
    assert_eq!(days_in_month(2027, 2), 28);
    assert_eq!(days_in_month(2027, 4), 30);
    assert_eq!(days_in_month(2027, 12), 31);
}

#[test]
fn months_clamp_to_the_last_day_as_chrono_does() {
    // chrono's checked_add_months: 2028-02-29 + 12 months = 2029-02-28.
    assert_eq!(day("2028-02-29").plus_months(12), day("2029-02-28"));
    assert_eq!(day("2028-02-29").plus_months(48), day("2032-02-29"));
    assert_eq!(day("2026-11-23").plus_months(12), day("2027-11-23"));
    assert_eq!(day("2027-01-31").plus_months(1), day("2027-02-28"));
    assert_eq!(day("2028-01-31").plus_months(1), day("2028-02-29"));
    assert_eq!(day("2027-03-31").plus_months(1), day("2027-04-30"));
    assert_eq!(day("2027-12-15").plus_months(1), day("2028-01-15"));
    assert_eq!(day("2027-05-05").plus_months(0), day("2027-05-05"));
    assert_eq!(day("2029-02-28").minus_months(12), day("2028-02-28"));
    assert_eq!(day("2028-02-29").minus_months(12), day("2027-02-28"));
    assert_eq!(day("2027-03-31").minus_months(1), day("2027-02-28"));
    assert_eq!(day("2027-01-15").minus_months(1), day("2026-12-15"));
}

#[test]
fn months_stay_within_four_digit_years() {
    assert_eq!(day("9999-06-30").plus_months(12), KenoDay::MAX);
    assert_eq!(day("9999-06-30").plus_months(u32::MAX), KenoDay::MAX);
    assert_eq!(day("0000-06-30").minus_months(12), KenoDay::MIN);
    assert_eq!(day("0000-06-30").minus_months(u32::MAX), KenoDay::MIN);
    assert_eq!(KenoDay::MAX.next_day(), None);
    assert_eq!(KenoDay::MIN.previous_day(), None);
    assert_eq!(KenoDay::MAX.to_string(), "9999-12-31");
    assert_eq!(KenoDay::MIN.to_string(), "0000-01-01");
}

#[test]
fn days_follow_one_another() {
    assert_eq!(day("2027-02-28").next_day(), Some(day("2027-03-01")));
    assert_eq!(day("2028-02-28").next_day(), Some(day("2028-02-29")));
    assert_eq!(day("2028-02-29").next_day(), Some(day("2028-03-01")));
    assert_eq!(day("2027-12-31").next_day(), Some(day("2028-01-01")));
    assert_eq!(day("2028-01-01").previous_day(), Some(day("2027-12-31")));
    assert_eq!(day("2028-03-01").previous_day(), Some(day("2028-02-29")));
    // Every day of four years, one after the other, against the reference.
    let mut d = day("2027-01-01");
    for n in 0..4 * 366 {
        assert_eq!(days_from_civil(d), days_from_civil(day("2027-01-01")) + n);
        let next = d.next_day().unwrap();
        assert_eq!(next.previous_day(), Some(d));
        d = next;
    }
}

#[test]
fn serde_writes_the_text() {
    let d = day("2028-02-29");
    assert_eq!(serde_json::to_string(&d).unwrap(), "\"2028-02-29\"");
    assert_eq!(
        serde_json::from_str::<KenoDay>("\"2028-02-29\"").unwrap(),
        d
    );
    assert!(serde_json::from_str::<KenoDay>("\"2027-02-29\"").is_err());
}

proptest! {
    #[test]
    fn text_round_trips(d in any_day()) {
        prop_assert_eq!(d.to_string().parse::<KenoDay>(), Ok(d));
        prop_assert_eq!(d.to_string().len(), 10);
    }

    #[test]
    fn order_is_the_order_of_time(a in any_day(), b in any_day()) {
        prop_assert_eq!(a.cmp(&b), days_from_civil(a).cmp(&days_from_civil(b)));
        // And the order of the text, as the server compared strings.
        prop_assert_eq!(a.cmp(&b), a.to_string().cmp(&b.to_string()));
    }

    #[test]
    fn plus_months_is_the_reference(d in any_day(), n in 0u32..600) {
        let want = reference_plus_months(d, n);
        let got = d.plus_months(n);
        if want.0 <= 9999 {
            prop_assert_eq!(parts(got), want);
        } else {
            prop_assert_eq!(got, KenoDay::MAX);
        }
    }

    #[test]
    fn minus_months_undoes_plus_months_up_to_clamping(d in any_day(), n in 0u32..600) {
        let later = d.plus_months(n);
        prop_assume!(later != KenoDay::MAX);
        let back = later.minus_months(n);
        // The same day, or the same month's last day where clamping took it down.
        prop_assert_eq!((back.year(), back.month()), (d.year(), d.month()));
        prop_assert!(back.day() <= d.day());
        prop_assert!(back.day() == d.day() || later.day() == days_in_month(later.year(), later.month()));
        // minus_months is plus_months' mirror: the reference stepping back.
        let earlier = d.minus_months(n);
        if earlier != KenoDay::MIN {
            let idx = i64::from(d.year()) * 12 + i64::from(d.month()) - 1 - i64::from(n);
            prop_assert_eq!(i64::from(earlier.year()) * 12 + i64::from(earlier.month()) - 1, idx);
            prop_assert_eq!(earlier.day(), d.day().min(days_in_month(earlier.year(), earlier.month())));
        }
    }

    #[test]
    fn months_keep_the_order(a in any_day(), b in any_day(), n in 0u32..600) {
        if a <= b {
            prop_assert!(a.plus_months(n) <= b.plus_months(n));
            prop_assert!(a.minus_months(n) <= b.minus_months(n));
        }
    }

    #[test]
    fn next_day_is_one_day_on(d in any_day()) {
        if let Some(next) = d.next_day() {
            prop_assert_eq!(days_from_civil(next), days_from_civil(d) + 1);
            prop_assert_eq!(next.previous_day(), Some(d));
        }
    }
}
