//! Property tests: the parser of every response header the providers crate reads
//! (`Retry-After`, `Content-Type`) never panics on anything a server can send, and what it
//! returns stays in bounds. Inputs: arbitrary strings, number-shaped strings (huge, tiny,
//! negative, exponents, NaN and infinities in any case), and HTTP dates from year 0 to 9999.

use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use proptest::prelude::*;
use switchyard_providers::http::{is_event_stream, retry_after, MAX_RETRY_AFTER};

fn now() -> impl Strategy<Value = DateTime<Utc>> {
    // 1970 … 2200, the clock of any plausible machine.
    (0i64..7_258_118_400).prop_map(|secs| Utc.timestamp_opt(secs, 0).single().unwrap_or_default())
}

/// Strings shaped like numbers, the inputs that reach the float and integer paths.
fn number_like() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<u64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|f| f.to_string()),
        any::<f64>().prop_map(|f| format!("{f:e}")),
        (any::<i128>(), 0u8..40).prop_map(|(n, zeros)| format!("{n}{}", "0".repeat(zeros.into()))),
        (any::<i32>(), any::<i16>()).prop_map(|(m, e)| format!("{m}e{e}")),
        "[+-]?[0-9]{0,40}(\\.[0-9]{0,40})?([eE][+-]?[0-9]{0,5})?",
        "[+-]?(?i:nan|inf|infinity)",
        Just("1e20".to_owned()),
    ]
}

/// RFC 2822 dates across the whole range chrono accepts, valid or not.
fn date_like() -> impl Strategy<Value = String> {
    (
        0u32..40,
        prop::sample::select(vec!["Jan", "Feb", "Mar", "Dec", "Foo"]),
        0u32..10_000,
        0u32..30,
        0u32..70,
        0u32..70,
        prop::sample::select(vec!["GMT", "UT", "+0000", "-2359", "+9999", "Z"]),
    )
        .prop_map(|(day, month, year, h, m, s, zone)| {
            format!("Mon, {day:02} {month} {year:04} {h:02}:{m:02}:{s:02} {zone}")
        })
}

fn check(value: &str, now: DateTime<Utc>) -> Result<(), TestCaseError> {
    if let Some(wait) = retry_after(value, now) {
        prop_assert!(wait <= MAX_RETRY_AFTER, "{value:?} -> {wait:?}");
        // The caller adds the wait to an Instant; that must not overflow either.
        prop_assert!(std::time::Instant::now().checked_add(wait).is_some());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn retry_after_never_panics_on_any_string(value in any::<String>(), now in now()) {
        check(&value, now)?;
    }

    #[test]
    fn retry_after_never_panics_on_number_shaped_values(value in number_like(), now in now()) {
        check(&value, now)?;
        check(&format!("  {value}\t"), now)?;
    }

    #[test]
    fn retry_after_never_panics_on_dates(value in date_like(), now in now()) {
        check(&value, now)?;
    }

    #[test]
    fn retry_after_in_seconds_is_read_exactly_below_the_cap(secs in 0u64..86_400, now in now()) {
        prop_assert_eq!(retry_after(&secs.to_string(), now), Some(Duration::from_secs(secs)));
    }

    #[test]
    fn content_type_check_never_panics(value in any::<Vec<u8>>(), suffix in any::<String>()) {
        let _ = is_event_stream(&value);
        let mut with_prefix = b"text/event-stream".to_vec();
        with_prefix.extend_from_slice(&value);
        let _ = is_event_stream(&with_prefix);
        let parameters = format!("text/event-stream;{suffix}");
        prop_assert!(is_event_stream(parameters.as_bytes()));
    }
}
