//! `runs list`, `runs log [--follow]` and `runs spend`.

use std::process::ExitCode;
use std::sync::Arc;

use serde_json::Value;
use switchyard_core::attempt::{AttemptLogEntry, AttemptState};
use switchyard_core::feed::FeedItem;
use switchyard_core::run::{RunFilter, RunLogEntry, RunMode, RunState};
use switchyard_engine::feed::Feed;
use switchyard_engine::Engine;

use super::json::{attempt_row_json, run_line, run_row_json, spend_json};
use super::{find_run, invalid, pretty};
use crate::attempts::{self, Failure};
use crate::output::CliError;

/// `runs list`: runs (engine-filtered) and standalone attempts (filtered here), newest first.
pub(super) async fn list(
    engine: &Engine,
    status: Option<String>,
    mode: Option<RunMode>,
    launcher: Option<String>,
    text: Option<String>,
    kind: Option<String>,
    json: bool,
) -> Result<ExitCode, Failure> {
    let status = status.map(|s| s.trim().to_ascii_lowercase());
    let run_state = status.as_deref().map(RunState::parse);
    let attempt_state = status.as_deref().map(AttemptState::parse);
    if let (Some(None), Some(None)) = (run_state, attempt_state) {
        return Err(invalid(format!(
            "unknown status {:?}",
            status.unwrap_or_default()
        )));
    }
    let launcher = launcher
        .map(|l| l.trim().to_owned())
        .filter(|l| !l.is_empty());
    let text = text.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty());
    // (created_ms, row, line for people)
    let mut rows: Vec<(i64, Value, String)> = Vec::new();
    let want_runs = kind.as_deref() != Some("attempt") && !matches!(run_state, Some(None));
    if want_runs {
        let filter = RunFilter {
            state: run_state.flatten(),
            mode,
            launcher: launcher.clone(),
            text: text.clone(),
            limit: None,
        };
        for s in engine.list_runs(filter).await? {
            rows.push((s.created_ms, run_row_json(&s), run_line(&s)));
        }
    }
    let want_attempts = kind.as_deref() != Some("run")
        && mode.is_none_or(|m| m == RunMode::Single)
        && !matches!(attempt_state, Some(None));
    if want_attempts {
        let needle = text.as_ref().map(|t| t.to_lowercase());
        for s in engine.list_standalone_attempts().await? {
            let keep = attempt_state.flatten().is_none_or(|st| s.state == st)
                && launcher.as_ref().is_none_or(|l| &s.launcher == l)
                && needle
                    .as_ref()
                    .is_none_or(|n| s.task.to_lowercase().contains(n));
            if keep {
                let line = format!(
                    "{}  {:<11} {:<10} {:<12} {}",
                    s.id,
                    s.state.as_str(),
                    "attempt",
                    s.worker,
                    attempts::first_line(&s.task)
                );
                rows.push((s.created_ms, attempt_row_json(&s), line));
            }
        }
    }
    // Stable: equal times keep runs before attempts, each newest first already.
    rows.sort_by_key(|row| std::cmp::Reverse(row.0));
    if json {
        let list: Vec<Value> = rows.into_iter().map(|(_, row, _)| row).collect();
        println!("{}", pretty(&Value::Array(list)));
    } else if rows.is_empty() {
        println!("no runs yet");
    } else {
        for (_, _, line) in rows {
            println!("{line}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `runs log <id>`: a run's event log, or an attempt's.
pub(super) async fn log(
    engine: &Engine,
    id: &str,
    after: u32,
    json: bool,
) -> Result<ExitCode, Failure> {
    let (text, lines): (String, Vec<String>) = if find_run(engine, id).await?.is_some() {
        let entries = engine.run_log(id, after).await?;
        (
            to_pretty(&entries)?,
            entries.iter().map(LogLine::line).collect(),
        )
    } else {
        let entries = engine.attempt_log(id, after).await?;
        (
            to_pretty(&entries)?,
            entries.iter().map(LogLine::line).collect(),
        )
    };
    if json {
        println!("{text}");
    } else {
        for line in lines {
            println!("{line}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `runs log <id> --follow`: the engine's feed of the run or attempt, printed as it comes;
/// returns when the job ends.
pub(super) async fn follow(
    engine: &Arc<Engine>,
    id: &str,
    after: u32,
    json: bool,
) -> Result<ExitCode, Failure> {
    if find_run(engine, id).await?.is_some() {
        print_feed(engine.follow_run(id, after).await?, json).await
    } else {
        print_feed(engine.follow_attempt(id, after).await?, json).await
    }
}

/// Prints each item of `feed` as it arrives: a JSON line each with `json`, else a log entry
/// as `runs log` prints it, a state change as `state <state>`, and streamed node text as is.
async fn print_feed<E, S>(mut feed: Feed<FeedItem<E, S>>, json: bool) -> Result<ExitCode, Failure>
where
    E: serde::Serialize + LogLine,
    S: serde::Serialize,
{
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    while let Some(item) = feed.next().await {
        let line = if json {
            serde_json::to_string(&item)
                .map_err(|e| CliError::internal(format!("cannot serialize output: {e}")))?
        } else {
            match &item {
                FeedItem::Log { entry, .. } => entry.line(),
                FeedItem::State { state, .. } => format!("state {}", to_text(state)),
                FeedItem::Output {
                    node_id,
                    reset,
                    text,
                } => {
                    if *reset {
                        format!("[{node_id}] {text}")
                    } else {
                        text.clone()
                    }
                }
                FeedItem::End { state } => format!("ended {}", to_text(state)),
            }
        };
        // A reader that went away (a closed pipe) ends the follow quietly.
        if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
            break;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A state as its JSON string without the quotes.
fn to_text<S: serde::Serialize>(state: &S) -> String {
    serde_json::to_value(state)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// A stored log entry as `runs log` prints it: its sequence number and its event as JSON.
trait LogLine {
    fn line(&self) -> String;
}

impl LogLine for RunLogEntry {
    fn line(&self) -> String {
        log_line(self.seq, &self.entry)
    }
}

impl LogLine for AttemptLogEntry {
    fn line(&self) -> String {
        log_line(self.seq, &self.entry)
    }
}

fn log_line(seq: u32, entry: &impl serde::Serialize) -> String {
    let line = serde_json::to_string(entry).unwrap_or_default();
    format!("{seq:>5} {line}")
}

fn to_pretty<T: serde::Serialize>(value: &T) -> Result<String, Failure> {
    serde_json::to_string_pretty(value)
        .map_err(|e| CliError::internal(format!("cannot serialize output: {e}")).into())
}

/// `runs spend [--since WHEN]`: spend and savings in total, per model, per mode, per day.
pub(super) async fn spend(
    engine: &Engine,
    since: Option<&str>,
    json: bool,
) -> Result<ExitCode, Failure> {
    let since_ms = since
        .map(|s| parse_since(s, now_ms()))
        .transpose()
        .map_err(invalid)?;
    let report = engine.runs_spend(since_ms).await?;
    if json {
        println!("{}", pretty(&spend_json(&report, since_ms)));
    } else {
        println!(
            "{} runs: spent {}, saved {}",
            report.runs,
            attempts::dollars(report.cost_usd),
            attempts::dollars(report.savings_usd)
        );
        for (title, totals) in [("model", &report.by_model), ("mode", &report.by_mode)] {
            for t in totals {
                println!(
                    "  {title} {:<32} {:>3} runs  {}  saved {}",
                    t.key,
                    t.runs,
                    attempts::dollars(t.cost_usd),
                    attempts::dollars(t.savings_usd)
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// `--since`: `2026-12-01` (UTC midnight), `7d` / `24h` / `30m` back from `now`, or
/// milliseconds since the epoch.
fn parse_since(text: &str, now: i64) -> Result<i64, String> {
    let text = text.trim();
    let bad = || format!("--since {text:?}: give a date (2026-12-01), a span (7d, 24h, 30m) or ms");
    if let Ok(date) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return date
            .and_hms_opt(0, 0, 0)
            .map(|t| t.and_utc().timestamp_millis())
            .ok_or_else(bad);
    }
    if let Some(unit) = text.chars().last().filter(char::is_ascii_alphabetic) {
        let count: i64 = text[..text.len() - 1].parse().map_err(|_| bad())?;
        let per = match unit {
            'd' => 86_400_000,
            'h' => 3_600_000,
            'm' => 60_000,
            _ => return Err(bad()),
        };
        return count
            .checked_mul(per)
            .filter(|span| *span >= 0)
            .map(|span| now.saturating_sub(span))
            .ok_or_else(bad);
    }
    text.parse::<i64>()
        .ok()
        .filter(|ms| *ms >= 0)
        .ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_takes_dates_spans_and_milliseconds() {
        let now = 1_800_000_000_000;
        assert_eq!(parse_since("2026-12-01", now), Ok(1_796_083_200_000));
        assert_eq!(parse_since("7d", now), Ok(now - 7 * 86_400_000));
        assert_eq!(parse_since("24h", now), Ok(now - 24 * 3_600_000));
        assert_eq!(parse_since("30m", now), Ok(now - 30 * 60_000));
        assert_eq!(parse_since("12345", now), Ok(12345));
        for bad in ["", "7w", "d", "-3d", "2026-13-01", "yesterday"] {
            assert!(parse_since(bad, now).is_err(), "{bad}");
        }
    }
}
