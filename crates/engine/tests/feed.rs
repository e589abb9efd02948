//! One feed for following a job (`Engine::follow_attempt`, `Engine::follow_run`): a job owned
//! by another engine instance (whose broadcasts never reach this one, as for another process)
//! streams from the shared database within a second of each entry, every entry once and in
//! order, and the feed ends with the job's final state.

mod attempts_support;
mod runs_support;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use attempts_support::{Fixture, FIX};
use switchyard_core::attempt::transcript::{Transcript, TranscriptItem};
use switchyard_core::attempt::{AttemptLog, AttemptState};
use switchyard_core::feed::FeedItem;
use switchyard_core::run::{RunMode, RunState};

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[tokio::test]
async fn an_attempt_owned_by_another_engine_streams_each_line_within_a_second_and_ends() {
    let fx = Fixture::new();
    let owner = fx.engine().await;
    let lines: String = (1..=8)
        .map(|n| format!("echo 'progress line {n}'\nsleep 0.3\n"))
        .collect();
    let worker = fx.worker("chatty", &format!("{lines}{FIX}"));
    let started = owner
        .start_attempt(fx.request(&worker), "cli")
        .await
        .expect("start");

    // Another instance on the same database: nothing the owner broadcasts reaches it.
    let viewer = fx.engine().await;
    let mut feed = viewer.follow_attempt(&started.id, 0).await.expect("follow");
    let first = feed.next().await.expect("a first item");
    assert!(
        matches!(first, FeedItem::State { live: true, .. }),
        "the feed opens with where the attempt stands: {first:?}"
    );

    let mut last_seq = 0;
    let mut progress = Vec::new();
    let mut late = Vec::new();
    let mut states = Vec::new();
    // What a page holds: only the feed's transcript updates, applied in place.
    let mut applied: Vec<TranscriptItem> = Vec::new();
    let end = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(item) = feed.next().await {
            match item {
                FeedItem::Log { entry, transcript } => {
                    let update = transcript.expect("each of these entries changes the transcript");
                    if let (Some(index), Some(item)) = (update.index, update.item) {
                        let index = index as usize;
                        assert!(index <= applied.len(), "an update within reach: {index}");
                        if index == applied.len() {
                            applied.push(item);
                        } else {
                            applied[index] = item;
                        }
                    }
                    assert!(
                        entry.seq > last_seq,
                        "in order, each once: {} after {last_seq}",
                        entry.seq
                    );
                    last_seq = entry.seq;
                    let text = serde_json::to_string(&entry.entry).unwrap_or_default();
                    if let Some(n) = (1..=8).find(|n| {
                        text.contains(&format!("progress line {n}\\"))
                            || text.contains(&format!("progress line {n}\""))
                    }) {
                        progress.push(n);
                        let lag = now_ms() - entry.at_ms;
                        if lag > 1_000 {
                            late.push((n, lag));
                        }
                    }
                    if let AttemptLog::State { state, .. } = entry.entry {
                        states.push(state);
                    }
                }
                FeedItem::State { state, live } => assert_eq!(live, state.is_live()),
                FeedItem::End { state } => return Some(state),
                FeedItem::Output { .. } => panic!("an attempt streams no node text"),
            }
        }
        None
    })
    .await
    .expect("the feed ends within a minute");

    assert_eq!(
        end,
        Some(AttemptState::Review),
        "it ends with the attempt's final state"
    );
    assert_eq!(
        progress,
        (1..=8).collect::<Vec<_>>(),
        "every line, once, in order"
    );
    assert!(
        late.is_empty(),
        "lines shown more than 1 s after they were stored: {late:?}"
    );
    assert_eq!(states.last(), Some(&AttemptState::Review));
    assert!(feed.next().await.is_none(), "nothing follows the end");
    // The page's items are the fold of the whole stored log.
    let mut folded = Transcript::default();
    for entry in viewer.attempt_log(&started.id, 0).await.expect("log") {
        folded.push(&entry);
    }
    assert_eq!(applied, folded.items());
    assert!(
        applied
            .iter()
            .any(|i| matches!(i, TranscriptItem::Raw { line, .. } if line == "progress line 8")),
        "{applied:?}"
    );
    viewer.close().await;
    owner.close().await;
}

#[tokio::test]
async fn following_an_ended_attempt_replays_after_the_given_entry_and_ends_at_once() {
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let review = attempts_support::run(&fx, &engine, &fx.worker("fix", FIX)).await;
    let id = review.summary.id.clone();
    let all = engine.attempt_log(&id, 0).await.expect("log");
    assert!(all.len() > 3, "{all:?}");

    let mut feed = engine.follow_attempt(&id, 2).await.expect("follow");
    let mut items = Vec::new();
    while let Some(item) = feed.next().await {
        items.push(item);
    }
    assert_eq!(
        items.first(),
        Some(&FeedItem::State {
            state: AttemptState::Review,
            live: false
        })
    );
    assert_eq!(
        items.last(),
        Some(&FeedItem::End {
            state: AttemptState::Review
        })
    );
    let seqs: Vec<u32> = items
        .iter()
        .filter_map(|i| match i {
            FeedItem::Log { entry, .. } => Some(entry.seq),
            _ => None,
        })
        .collect();
    let expected: Vec<u32> = all.iter().map(|e| e.seq).filter(|s| *s > 2).collect();
    assert_eq!(seqs, expected, "the stored entries after seq 2, each once");

    let unknown = engine.follow_attempt("nope", 0).await.expect_err("unknown");
    assert!(unknown.to_string().contains("nope"), "{unknown}");
    engine.close().await;
}

#[tokio::test]
async fn a_run_executed_by_another_engine_streams_its_log_and_ends() {
    use runs_support::{model_server, Behavior, MINI};
    let server = model_server(|_| Behavior::after("the answer", Duration::from_millis(600))).await;
    let home = tempfile::tempdir().expect("home");
    let owner = runs_support::engine(home.path(), &server).await;
    let viewer = runs_support::reopen(home.path()).await;
    let run = owner
        .start_run(runs_support::request(
            RunMode::Single,
            "Explain monads",
            &[MINI],
        ))
        .await
        .expect("start");

    let mut feed = viewer.follow_run(&run.id, 0).await.expect("follow");
    let mut seqs = Vec::new();
    let mut saw_live_state = false;
    let end = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(item) = feed.next().await {
            match item {
                FeedItem::Log { entry, .. } => seqs.push(entry.seq),
                FeedItem::State { live, .. } => saw_live_state |= live,
                FeedItem::End { state } => return Some(state),
                FeedItem::Output { .. } => {}
            }
        }
        None
    })
    .await
    .expect("the feed ends");
    assert_eq!(end, Some(RunState::Completed));
    assert!(saw_live_state, "the feed opened on the live run");
    let stored: Vec<u32> = viewer
        .run_log(&run.id, 0)
        .await
        .expect("log")
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(seqs, stored, "every stored entry, once, in order");
    viewer.close().await;
    owner.close().await;
}

#[tokio::test]
async fn a_run_executed_by_another_engine_streams_its_text_as_it_arrives() {
    use runs_support::{model_server, Behavior, MINI};
    let parts: Vec<String> = (1..=6).map(|n| format!("part {n}. ")).collect();
    let whole: String = parts.concat();
    let paced = parts.clone();
    let server = model_server(move |_| Behavior::Paced {
        parts: paced.clone(),
        gap: Duration::from_millis(400),
    })
    .await;
    let home = tempfile::tempdir().expect("home");
    let owner = runs_support::engine(home.path(), &server).await;
    let viewer = runs_support::reopen(home.path()).await;
    let run = owner
        .start_run(runs_support::request(RunMode::Single, "Count", &[MINI]))
        .await
        .expect("start");

    let feed = viewer.follow_run(&run.id, 0).await.expect("follow");
    let (state, ended, seen) = collect(feed).await;
    assert_eq!(state, RunState::Completed);
    let growing: Vec<&(Duration, String)> = seen.iter().filter(|(_, t)| !t.is_empty()).collect();
    assert!(
        growing.len() >= 3,
        "the text arrived in steps, not at the end: {seen:?}"
    );
    let (first, first_text) = growing[0];
    assert!(
        whole.starts_with(first_text.as_str()) && first_text.len() < whole.len(),
        "a first part, not the whole answer: {first_text:?}"
    );
    assert!(
        ended.saturating_sub(*first) >= Duration::from_millis(1200),
        "the first text came {first:?} in, the end {ended:?}: it streamed, not all at once"
    );
    let last = &growing[growing.len() - 1].1;
    assert!(whole.starts_with(last.as_str()), "{last:?}");
    let output = viewer.run_output(&run.id, None).await.expect("output");
    assert_eq!(output.text, whole);
    assert!(
        std::fs::read_dir(home.path().join("artifacts/runs").join(&run.id))
            .expect("artifacts")
            .flatten()
            .all(|e| !e.file_name().to_string_lossy().ends_with(".live")),
        "the live file is gone once the node ended"
    );
    viewer.close().await;
    owner.close().await;
}

/// A code node's worker output reaches its run's feed as the node's text, line by line while
/// the worker runs, for a run another engine executes as for the engine's own, and every
/// line is there when the feed ends.
#[tokio::test]
async fn a_code_runs_worker_output_streams_into_the_runs_feed() {
    use switchyard_core::run::RunRequest;
    let fx = Fixture::new();
    let owner = fx.engine().await;
    let lines: String = (1..=6)
        .map(|n| format!("echo 'progress line {n}'\nsleep 0.4\n"))
        .collect();
    let mut req = RunRequest::new("make add() add", RunMode::Single);
    req.repo = Some(fx.repo_str());
    req.verify = Some(vec!["sh test.sh".into()]);
    req.launcher = "test".into();
    req.worker = Some(fx.worker("chatty", &format!("{lines}{FIX}")));
    let run = owner.start_run(req).await.expect("start");

    // Another instance on the same database (nothing the owner broadcasts reaches it) and
    // the owner itself, both following from the start.
    let other = fx.engine().await;
    let remote = other.follow_run(&run.id, 0).await.expect("follow");
    let local = owner.follow_run(&run.id, 0).await.expect("follow");
    let (remote, local) = tokio::join!(collect(remote), collect(local));
    for (who, (state, ended, steps)) in [("another engine", remote), ("the owner", local)] {
        let text = steps.last().map(|(_, t)| t.clone()).unwrap_or_default();
        let mut seen: Vec<(Duration, usize)> = Vec::new();
        for (at, step) in &steps {
            let lines = (1..=6)
                .filter(|n| step.contains(&format!("progress line {n}")))
                .count();
            if seen.last().is_none_or(|(_, l)| *l != lines) {
                seen.push((*at, lines));
            }
        }
        assert_eq!(state, RunState::Review, "{who}: {text}");
        assert!(
            seen.iter().filter(|(_, lines)| *lines > 0).count() >= 3,
            "{who}: the lines arrived while the worker ran, not at the end: {seen:?}"
        );
        let (first, _) = seen.iter().find(|(_, lines)| *lines > 0).expect("a line");
        assert!(
            ended.saturating_sub(*first) >= Duration::from_millis(1000),
            "{who}: the first line came {first:?} in, the end {ended:?}: {seen:?}"
        );
        for n in 1..=6 {
            assert!(
                text.contains(&format!("progress line {n}")),
                "{who}: {text}"
            );
        }
    }
    other.close().await;
    owner.close().await;
}

/// A reader who opens a code run after its node ended still gets the node's worker output,
/// once, before the feed ends.
#[tokio::test]
async fn a_code_node_that_ended_before_the_reader_came_shows_its_worker_output() {
    use switchyard_core::run::RunRequest;
    let fx = Fixture::new();
    let engine = fx.engine().await;
    let mut req = RunRequest::new("make add() add", RunMode::Single);
    req.repo = Some(fx.repo_str());
    req.verify = Some(vec!["sh test.sh".into()]);
    req.launcher = "test".into();
    req.worker = Some(fx.worker(
        "brief",
        &format!("echo 'first line'\necho 'last line'\n{FIX}"),
    ));
    let run = engine.start_run(req).await.expect("start");
    let detail = engine.wait_run(&run.id).await.expect("ended");
    assert_eq!(detail.summary.state, RunState::Review);

    let (state, _, steps) = collect(engine.follow_run(&run.id, 0).await.expect("follow")).await;
    assert_eq!(state, RunState::Review);
    let text = steps.last().map(|(_, t)| t.clone()).unwrap_or_default();
    assert!(
        text.contains("first line") && text.contains("last line"),
        "the ended node's worker output: {steps:?}"
    );
    assert_eq!(steps.len(), 1, "sent once: {steps:?}");
    engine.close().await;
}

/// A run feed's end state, when it ended, and node `n1`'s text as a reader holds it after
/// each output item (with when it came).
async fn collect(
    mut feed: switchyard_engine::feed::Feed<FeedItem<switchyard_core::run::RunLogEntry, RunState>>,
) -> (RunState, Duration, Vec<(Duration, String)>) {
    let started = std::time::Instant::now();
    let mut text = String::new();
    let mut steps: Vec<(Duration, String)> = Vec::new();
    let end = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(item) = feed.next().await {
            match item {
                FeedItem::Output {
                    node_id,
                    reset,
                    text: piece,
                } => {
                    assert_eq!(node_id, "n1");
                    if reset {
                        text.clear();
                    }
                    text.push_str(&piece);
                    steps.push((started.elapsed(), text.clone()));
                }
                FeedItem::End { state } => return Some(state),
                _ => {}
            }
        }
        None
    })
    .await
    .expect("the feed ends")
    .expect("an end");
    (end, started.elapsed(), steps)
}
