//! Dates found in model names (`-20251101`, `-2025-11-13`, `-11-2025`, `-0709`, `-2508`,
//! `-07-25`, `(Jan '25)`) and release/creation dates, and how close two of them are.
//!
//! Names encode dates at different precisions, so a [`DateCode`] keeps what was stated and
//! comparisons widen by the unstated part (a month-only date may be any day of that month).

/// A date at the precision a name or a source stated it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateCode {
    /// `20251101`, `2025-11-13`, a `release_date`, an OpenRouter `created` time.
    Day { year: u16, month: u8, day: u8 },
    /// `2508` (YYMM), `11-2025`, `(Jan '25)`, `202412`.
    Month { year: u16, month: u8 },
    /// `0709`, `0528`, `07-25` (MMDD without a year).
    MonthDay { month: u8, day: u8 },
    /// A lone year such as `2025`.
    Year { year: u16 },
}

/// Days two dates of one model may differ and still name the same checkpoint. Vendors stamp a
/// snapshot date weeks before launch (Claude Opus 4.5: `20251101` vs listed `20251124`); a
/// re-released checkpoint comes months later (DeepSeek R1 0120 vs 0528).
pub const SAME_CHECKPOINT_DAYS: i64 = 45;

impl DateCode {
    /// Parses `YYYY-MM-DD` (a source's release date); `None` for anything else.
    pub fn parse_iso(text: &str) -> Option<DateCode> {
        let mut parts = text.trim().splitn(3, '-');
        let year = parts.next()?.parse::<u16>().ok()?;
        let month = parts.next()?.parse::<u8>().ok()?;
        let day = parts.next()?.get(..2)?.parse::<u8>().ok()?;
        DateCode::day(year, month, day)
    }

    /// A full date from Unix seconds (OpenRouter `created`).
    pub fn from_unix(seconds: i64) -> Option<DateCode> {
        let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
        let year = u16::try_from(year).ok()?;
        DateCode::day(year, month, day)
    }

    /// A validated full date.
    pub fn day(year: u16, month: u8, day: u8) -> Option<DateCode> {
        (plausible_year(year) && (1..=12).contains(&month) && (1..=31).contains(&day))
            .then_some(DateCode::Day { year, month, day })
    }

    /// `YYYY-MM-DD` text when the date has a day and a year.
    pub fn iso(self) -> Option<String> {
        match self {
            DateCode::Day { year, month, day } => Some(format!("{year:04}-{month:02}-{day:02}")),
            _ => None,
        }
    }

    /// The year, when stated.
    pub fn year(self) -> Option<u16> {
        match self {
            DateCode::Day { year, .. } | DateCode::Month { year, .. } | DateCode::Year { year } => {
                Some(year)
            }
            DateCode::MonthDay { .. } => None,
        }
    }

    /// Signed distance `self − other` in days after widening by the unstated precision of
    /// both (0 when the ranges overlap). A year-less date takes the year closest to `other`.
    pub fn gap_days(self, other: DateCode) -> i64 {
        let (a, b) = match (self.year(), other.year()) {
            (None, None) => return month_day_gap(self, other),
            (None, Some(_)) => (self.with_year_near(other), other),
            (Some(_), None) => (self, other.with_year_near(self)),
            (Some(_), Some(_)) => (self, other),
        };
        let (ca, sa) = a.center_and_slack();
        let (cb, sb) = b.center_and_slack();
        let raw = ca - cb;
        let slack = sa + sb;
        if raw.abs() <= slack {
            0
        } else {
            raw - slack * raw.signum()
        }
    }

    /// Whether the two dates can name one checkpoint (within [`SAME_CHECKPOINT_DAYS`]).
    pub fn compatible(self, other: DateCode) -> bool {
        self.gap_days(other).abs() <= SAME_CHECKPOINT_DAYS
    }

    fn with_year_near(self, anchor: DateCode) -> DateCode {
        let DateCode::MonthDay { month, day } = self else {
            return self;
        };
        let Some(base) = anchor.year() else {
            return self;
        };
        let (anchor_center, _) = anchor.center_and_slack();
        [base.saturating_sub(1), base, base.saturating_add(1)]
            .into_iter()
            .map(|year| DateCode::Day { year, month, day })
            .min_by_key(|candidate| (candidate.center_and_slack().0 - anchor_center).abs())
            .unwrap_or(self)
    }

    /// Day number of the middle of the stated range and half its width.
    fn center_and_slack(self) -> (i64, i64) {
        match self {
            DateCode::Day { year, month, day } => (days_from_civil(year.into(), month, day), 0),
            DateCode::Month { year, month } => (days_from_civil(year.into(), month, 15), 15),
            DateCode::Year { year } => (days_from_civil(year.into(), 7, 2), 183),
            DateCode::MonthDay { month, day } => (i64::from(month) * 31 + i64::from(day), 0),
        }
    }
}

/// Year range a model name's date can plausibly carry; keeps `1776` or `4096` from reading
/// as dates.
pub(crate) fn plausible_year(year: u16) -> bool {
    (2000..=2039).contains(&year)
}

fn month_day_gap(a: DateCode, b: DateCode) -> i64 {
    let day_of_year = |code: DateCode| match code {
        DateCode::MonthDay { month, day } => {
            days_from_civil(2001, month, day) - days_from_civil(2001, 1, 1)
        }
        _ => 0,
    };
    let raw = (day_of_year(a) - day_of_year(b)).rem_euclid(365);
    if raw > 182 {
        raw - 365
    } else {
        raw
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: u8, day: u8) -> i64 {
    let month = i64::from(month);
    let day = i64::from(day);
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let shifted_month = (month + 9) % 12;
    let day_of_year = (153 * shifted_month + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

fn civil_from_days(days: i64) -> (i64, u8, u8) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    // Both are in range by construction of the algorithm.
    (
        year,
        u8::try_from(month).unwrap_or(1),
        u8::try_from(day).unwrap_or(1),
    )
}

/// Month names and abbreviations in names (`(Jan '25)`, `june-24`, `dec-2024`).
const MONTHS: &[(&str, u8)] = &[
    ("jan", 1),
    ("january", 1),
    ("feb", 2),
    ("february", 2),
    ("mar", 3),
    ("march", 3),
    ("apr", 4),
    ("april", 4),
    ("may", 5),
    ("jun", 6),
    ("june", 6),
    ("jul", 7),
    ("july", 7),
    ("aug", 8),
    ("august", 8),
    ("sep", 9),
    ("sept", 9),
    ("september", 9),
    ("oct", 10),
    ("october", 10),
    ("nov", 11),
    ("november", 11),
    ("dec", 12),
    ("december", 12),
];

/// A non-empty run of ASCII digits.
pub(crate) fn all_digits(token: &str) -> bool {
    !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit())
}

fn number(token: &str) -> Option<u16> {
    if all_digits(token) {
        token.parse().ok()
    } else {
        None
    }
}

fn month_word(token: &str) -> Option<u8> {
    MONTHS
        .iter()
        .find(|(name, _)| *name == token)
        .map(|(_, month)| *month)
}

/// Finds the first date in the raw tokens and removes every date found.
pub(crate) fn extract_date<T: AsRef<str>>(
    tokens: &mut Vec<T>,
    allow_first: bool,
) -> Option<DateCode> {
    let mut first = None;
    let mut i = usize::from(!allow_first);
    while i < tokens.len() {
        match date_at(tokens, i) {
            Some((code, len)) => {
                first = first.or(Some(code));
                tokens.drain(i..i + len);
            }
            None => i += 1,
        }
    }
    first
}

/// A date starting at `tokens[i]` and how many tokens it spans.
fn date_at<T: AsRef<str>>(tokens: &[T], i: usize) -> Option<(DateCode, usize)> {
    let t = tokens[i].as_ref();
    let next = tokens.get(i + 1).map(AsRef::as_ref);
    let after = tokens.get(i + 2).map(AsRef::as_ref);

    let worded = (3..=9).contains(&t.len()) && t.as_bytes()[0].is_ascii_alphabetic();
    if let Some(month) = if worded { month_word(t) } else { None } {
        let year = next.and_then(number)?;
        let year = match next.map(str::len) {
            Some(2) => 2000 + year,
            Some(4) => year,
            _ => return None,
        };
        return plausible_year(year).then_some((DateCode::Month { year, month }, 2));
    }
    if !all_digits(t) {
        return None;
    }
    match t.len() {
        8 => {
            let month = u8::try_from(value_of(&t[4..6])?).ok()?;
            let day = u8::try_from(value_of(&t[6..])?).ok()?;
            Some((DateCode::day(value_of(&t[..4])?, month, day)?, 1))
        }
        6 => {
            let year = value_of(&t[..4])?;
            let month = u8::try_from(value_of(&t[4..])?).ok()?;
            (plausible_year(year) && (1..=12).contains(&month))
                .then_some((DateCode::Month { year, month }, 1))
        }
        4 => four_digit_date(number(t)?, next, after),
        2 => two_digit_date(number(t)?, next),
        _ => None,
    }
}

/// `2025-11-13`, `2025-07`, `2025`, `2508` (YYMM) or `0709` (MMDD).
fn four_digit_date(
    value: u16,
    next: Option<&str>,
    after: Option<&str>,
) -> Option<(DateCode, usize)> {
    if plausible_year(value) {
        let month = next.filter(|s| s.len() <= 2).and_then(number);
        let day = after.filter(|s| s.len() <= 2).and_then(number);
        return match (month, day) {
            (Some(month), Some(day)) => {
                let (month, day) = (u8::try_from(month).ok()?, u8::try_from(day).ok()?);
                Some((DateCode::day(value, month, day)?, 3))
            }
            (Some(month), None)
                if (1..=12).contains(&month) && next.is_some_and(|s| s.len() == 2) =>
            {
                Some((
                    DateCode::Month {
                        year: value,
                        month: u8::try_from(month).ok()?,
                    },
                    2,
                ))
            }
            _ => Some((DateCode::Year { year: value }, 1)),
        };
    }
    let (high, low) = (value / 100, value % 100);
    if (20..=39).contains(&high) && (1..=12).contains(&low) {
        let month = u8::try_from(low).ok()?;
        Some((
            DateCode::Month {
                year: 2000 + high,
                month,
            },
            1,
        ))
    } else if (1..=12).contains(&high) && (1..=31).contains(&low) {
        let (month, day) = (u8::try_from(high).ok()?, u8::try_from(low).ok()?);
        Some((DateCode::MonthDay { month, day }, 1))
    } else {
        None
    }
}

/// `11-2025` (MM-YYYY) or `07-25` (MM-DD); a lone two-digit number is not a date.
fn two_digit_date(value: u16, next: Option<&str>) -> Option<(DateCode, usize)> {
    let month = u8::try_from(value).ok().filter(|m| (1..=12).contains(m))?;
    let second = next?;
    if second.len() == 4 {
        let year = number(second)?;
        return plausible_year(year).then_some((DateCode::Month { year, month }, 2));
    }
    if second.len() == 2 {
        let day = u8::try_from(number(second)?).ok()?;
        return (1..=31)
            .contains(&day)
            .then_some((DateCode::MonthDay { month, day }, 2));
    }
    None
}

fn value_of(digits: &str) -> Option<u16> {
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: u16, m: u8, d: u8) -> DateCode {
        DateCode::day(y, m, d).expect("valid test date")
    }

    #[test]
    fn unix_seconds_become_calendar_days() {
        // 1737381095 is 2025-01-20T13:51:35Z (DeepSeek R1 on OpenRouter).
        assert_eq!(DateCode::from_unix(1_737_381_095), Some(day(2025, 1, 20)));
        // Dates outside the plausible model-release range are not dates for matching.
        assert_eq!(DateCode::from_unix(0), None);
    }

    #[test]
    fn gaps_widen_by_unstated_precision() {
        let opus_snapshot = day(2025, 11, 1);
        let opus_listed = day(2025, 11, 24);
        assert_eq!(opus_listed.gap_days(opus_snapshot), 23);
        assert!(opus_listed.compatible(opus_snapshot));
        let r1_may = day(2025, 5, 28);
        let r1_jan = day(2025, 1, 20);
        assert!(!r1_may.compatible(r1_jan));
        let yymm = DateCode::Month {
            year: 2025,
            month: 8,
        };
        assert_eq!(yymm.gap_days(day(2025, 8, 30)), 0);
        // Aug 15 → Oct 15 is 61 days, less the 15-day slack of a month-only date.
        assert_eq!(yymm.gap_days(day(2025, 10, 15)), -46);
        let mmdd = DateCode::MonthDay { month: 4, day: 23 };
        assert_eq!(mmdd.gap_days(day(2026, 4, 24)), -1);
        assert_eq!(
            day(2026, 1, 2).gap_days(DateCode::MonthDay { month: 12, day: 30 }),
            3
        );
        let a = DateCode::MonthDay { month: 1, day: 2 };
        assert_eq!(a.gap_days(DateCode::MonthDay { month: 12, day: 30 }), 3);
    }

    #[test]
    fn iso_round_trips() {
        let parsed = DateCode::parse_iso("2026-08-13").expect("iso date");
        assert_eq!(parsed.iso().as_deref(), Some("2026-08-13"));
        assert_eq!(DateCode::parse_iso("13/08/2026"), None);
    }
}
