//! Which file of a source folder to import: the accepted extensions per source and the newest
//! file by the date in its name (`_2026-08-22`, `_2026_01_08`, `_2025-02`, `20250804`).
//!
//! Used by `switchyard catalog refresh --from DIR`, where `DIR/<source folder>/` may hold
//! several snapshots and the newest one wins.

use crate::catalog::record::SourceId;

use super::livebench;

/// A date read from a file name; a month-only date sorts before every day of that month.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NameDate {
    pub year: u16,
    pub month: u8,
    pub day: Option<u8>,
}

impl NameDate {
    /// `YYYY-MM-DD`, or `YYYY-MM` for a month-only date.
    pub fn iso(&self) -> String {
        match self.day {
            Some(day) => format!("{:04}-{:02}-{:02}", self.year, self.month, day),
            None => format!("{:04}-{:02}", self.year, self.month),
        }
    }
}

/// The file chosen for a source: the file to parse, its companion (LiveBench's categories
/// file) and the date in its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// The name as given (a bare name or a path).
    pub file: String,
    /// LiveBench only: the `categories_<date>.json` to read with the table, when present.
    pub companion: Option<String>,
    pub date: Option<NameDate>,
}

/// File extensions (lowercase, without the dot) each source's folder may hold.
pub fn extensions(source: SourceId) -> &'static [&'static str] {
    match source {
        SourceId::OpenRouter | SourceId::ArtificialAnalysis => &["json"],
        // A rows-API page (`.json`) holds only one page, never a whole import.
        SourceId::HfLeaderboard => &["csv"],
        SourceId::LmArena | SourceId::LiveBench => &["json", "csv"],
    }
}

/// Whether `name` (a bare name or a path) is a data file of `source`: an accepted extension,
/// not hidden, and for LiveBench a `table_*.csv` or `categories_*.json`.
pub fn accepts(source: SourceId, name: &str) -> bool {
    let base = base_name(name);
    if base.starts_with('.') {
        return false;
    }
    let Some(ext) = extension(base) else {
        return false;
    };
    if !extensions(source).contains(&ext.as_str()) {
        return false;
    }
    match source {
        SourceId::LiveBench => livebench::is_table(base) || livebench::is_categories(base),
        _ => true,
    }
}

/// The newest data file of `source` among `names`: latest date in the name, then the
/// source's preferred form (LMArena: style-controlled JSON), then the greatest name. Files
/// without a date lose to dated ones. LiveBench picks the newest table and its categories
/// file (see [`livebench::pick_release`]). `None` when no name is accepted.
pub fn newest<S: AsRef<str>>(source: SourceId, names: &[S]) -> Option<Selection> {
    if source == SourceId::LiveBench {
        let release = livebench::pick_release(names)?;
        return Some(Selection {
            date: date_in_name(base_name(&release.table)),
            file: release.table,
            companion: release.categories,
        });
    }
    names
        .iter()
        .map(AsRef::as_ref)
        .filter(|name| accepts(source, name))
        .max_by_key(|name| {
            let base = base_name(name);
            (date_in_name(base), preference(source, base), base)
        })
        .map(|name| Selection {
            file: name.to_owned(),
            companion: None,
            date: date_in_name(base_name(name)),
        })
}

/// Tie-break between same-date files: higher is preferred.
fn preference(source: SourceId, base: &str) -> u8 {
    let lower = base.to_ascii_lowercase();
    match source {
        // Style control is LMArena's default view; the JSON has per-category ratings.
        SourceId::LmArena => {
            u8::from(lower.ends_with(".json")) * 2 + u8::from(lower.contains("style-control"))
        }
        _ => 0,
    }
}

/// The last path component of `name` (`/` or `\` separated).
pub(crate) fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

fn extension(base: &str) -> Option<String> {
    let (stem, ext) = base.rsplit_once('.')?;
    (!stem.is_empty()).then(|| ext.to_ascii_lowercase())
}

/// The last date in a file name: `YYYY-MM-DD`, `YYYY_MM_DD`, `YYYY-MM`, `YYYY_MM` or
/// `YYYYMMDD`, with a year 1900–2099, not part of a longer digit run.
pub fn date_in_name(name: &str) -> Option<NameDate> {
    let b = name.as_bytes();
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let sep = |i: usize| matches!(b.get(i), Some(b'-' | b'_'));
    let num = |from: usize, len: usize| -> u32 {
        b[from..from + len]
            .iter()
            .fold(0, |acc, d| acc * 10 + u32::from(d - b'0'))
    };
    let mut found = None;
    let mut i = 0;
    while i + 4 <= b.len() {
        let starts_run = i == 0 || !digit(i - 1);
        if !(starts_run && (0..4).all(|k| digit(i + k))) {
            i += 1;
            continue;
        }
        let year = num(i, 4);
        let mut end = i + 4;
        let mut date = None;
        if (1900..2100).contains(&year) {
            if sep(i + 4) && digit(i + 5) && digit(i + 6) && !digit(i + 7) {
                let month = num(i + 5, 2);
                if sep(i + 7) && digit(i + 8) && digit(i + 9) && !digit(i + 10) {
                    date = make_date(year, month, Some(num(i + 8, 2)));
                    end = i + 10;
                } else {
                    date = make_date(year, month, None);
                    end = i + 7;
                }
            } else if (4..8).all(|k| digit(i + k)) && !digit(i + 8) {
                date = make_date(year, num(i + 4, 2), Some(num(i + 6, 2)));
                end = i + 8;
            }
        }
        if date.is_some() {
            found = date;
        }
        i = end.max(i + 1);
        while digit(i) {
            i += 1;
        }
    }
    found
}

fn make_date(year: u32, month: u32, day: Option<u32>) -> Option<NameDate> {
    if !(1..=12).contains(&month) || day.is_some_and(|d| !(1..=31).contains(&d)) {
        return None;
    }
    Some(NameDate {
        year: u16::try_from(year).ok()?,
        month: u8::try_from(month).ok()?,
        day: match day {
            Some(d) => Some(u8::try_from(d).ok()?),
            None => None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(name: &str) -> Option<String> {
        date_in_name(name).map(|d| d.iso())
    }

    #[test]
    fn reads_every_date_encoding_in_file_names() {
        assert_eq!(
            date("openrouter_models_2026-08-22.json").as_deref(),
            Some("2026-08-22")
        );
        assert_eq!(date("table_2026_01_08.csv").as_deref(), Some("2026-01-08"));
        assert_eq!(
            date("contents_native_2025-02.csv").as_deref(),
            Some("2025-02")
        );
        assert_eq!(
            date("elo_results_20250804.json").as_deref(),
            Some("2025-08-04")
        );
        assert_eq!(date("huggingface_v2.csv"), None);
        assert_eq!(date("model-123456789.json"), None);
        assert_eq!(date("x_2026-13-01.json"), None);
    }

    #[test]
    fn the_last_date_in_a_name_wins() {
        assert_eq!(
            date("a_2024-01-01_to_2025-03-04.json").as_deref(),
            Some("2025-03-04")
        );
    }

    #[test]
    fn month_only_dates_sort_before_days_of_that_month() {
        assert!(date_in_name("x_2025-02.csv") < date_in_name("x_2025-02-01.csv"));
        assert!(date_in_name("x_2025-02.csv") > date_in_name("x_2025-01-31.csv"));
    }

    #[test]
    fn base_name_strips_directories() {
        assert_eq!(base_name("dir/sub\\file.json"), "file.json");
        assert_eq!(base_name("file.json"), "file.json");
    }
}
