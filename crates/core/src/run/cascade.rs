//! Cascades: a ladder of models from cheap to premium. The next rung is tried only on a real
//! failure signal — verification or a gate failed, structured output failed its schema after
//! recovery, the provider failed after its retries, or a judge scored the answer below the
//! user's threshold — never because of the answer's length. Each escalation receives the
//! previous failure as context.

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::error::ErrorCode;
use crate::outcomes::TaskFeatures;
use crate::routing::{BudgetTier, LearnedIndex, MIN_SKIP_EVIDENCE};

/// The most rungs a ladder may have.
pub const MAX_RUNGS: usize = 6;

/// The tiers a ladder built from routing climbs: budget → standard → premium.
pub const LADDER_TIERS: [BudgetTier; 3] = [BudgetTier::Low, BudgetTier::Medium, BudgetTier::High];

/// One rung: a model (or, for code, a worker) at a price tier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Rung {
    pub tier: BudgetTier,
    /// Model reference (text) or worker (`model:<id>`, `claude`, …) for code.
    pub model: String,
}

/// The rungs, cheapest first.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Ladder {
    pub rungs: Vec<Rung>,
    /// Rungs routing left out because recorded outcomes say they would likely fail this kind
    /// of task (only in ladders Switchyard built; a ladder the user named is run as named).
    #[serde(default)]
    pub skipped: Vec<SkippedRung>,
}

/// A rung a routed cascade does not climb, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SkippedRung {
    /// The model left out.
    pub model: String,
    /// Its predicted success on this task (the category estimate moved by the task's
    /// features), 0–1.
    pub estimate: f64,
    /// `skipping deepseek-v4-flash: 2 of 9 verified for coding`.
    pub reason: String,
}

/// What is wrong with a ladder.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LadderError(pub String);

impl Ladder {
    /// A ladder of `models` in the order given, tiers assigned budget → standard → premium
    /// (rungs past the third are premium).
    pub fn from_models(models: &[String]) -> Ladder {
        Ladder {
            rungs: models
                .iter()
                .enumerate()
                .map(|(i, model)| Rung {
                    tier: LADDER_TIERS[i.min(LADDER_TIERS.len() - 1)],
                    model: model.trim().to_owned(),
                })
                .collect(),
            skipped: Vec::new(),
        }
    }

    /// Checks the ladder: 1–[`MAX_RUNGS`] rungs, none empty.
    ///
    /// # Errors
    /// [`LadderError`] saying what is wrong.
    pub fn validate(&self) -> Result<(), LadderError> {
        if self.rungs.is_empty() {
            return Err(LadderError("a cascade needs at least one rung".into()));
        }
        if self.rungs.len() > MAX_RUNGS {
            return Err(LadderError(format!(
                "a cascade has at most {MAX_RUNGS} rungs, not {}",
                self.rungs.len()
            )));
        }
        if let Some(at) = self.rungs.iter().position(|r| r.model.trim().is_empty()) {
            return Err(LadderError(format!("rung {} has no model", at + 1)));
        }
        Ok(())
    }
}

/// A real failure of one rung: the only reasons a cascade escalates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum FailureSignal {
    /// The verification commands failed on the worker's change.
    VerificationFailed { detail: String },
    /// A gate (locked paths, secrets, size) blocked the change.
    GateFailed { gate: String, detail: String },
    /// The structured output did not match its schema, even after the repair request.
    SchemaFailed { detail: String },
    /// The provider failed after its retries (or the call timed out).
    ProviderFailed { code: ErrorCode, message: String },
    /// The judge model scored the answer below the threshold.
    JudgeBelow { score: u8, threshold: u8 },
}

impl FailureSignal {
    /// The failure as the next rung is told about it.
    pub fn describe(&self) -> String {
        match self {
            FailureSignal::VerificationFailed { detail } => {
                format!("The verification commands failed: {detail}")
            }
            FailureSignal::GateFailed { gate, detail } => {
                format!("The {gate} gate blocked the change: {detail}")
            }
            FailureSignal::SchemaFailed { detail } => {
                format!("The answer did not match the required JSON schema: {detail}")
            }
            FailureSignal::ProviderFailed { message, .. } => {
                format!("The model call failed: {message}")
            }
            FailureSignal::JudgeBelow { score, threshold } => format!(
                "A reviewer scored the previous answer {score}/10, below the required \
                 {threshold}/10; give a better answer"
            ),
        }
    }
}

/// How one rung ended.
#[derive(Debug, Clone, PartialEq)]
pub enum RungOutcome {
    /// It produced an accepted result.
    Succeeded,
    /// It failed with a signal: escalate if there is another rung.
    Failed(FailureSignal),
    /// The run stopped under it (canceled, out of time or budget): no escalation.
    Stopped,
}

/// What the cascade does after rung `index` (0-based) ended with `outcome`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CascadeStep {
    /// Rung `index` succeeded; the cascade is done.
    Done { rung: usize },
    /// Try rung `rung` next.
    Escalate { rung: usize },
    /// The last rung failed too.
    Exhausted,
    /// The run stopped; nothing more is tried.
    Stopped,
}

/// Takes out of `models` (a ladder, cheapest first) every rung but the last whose predicted
/// success on this task (its learned estimate for the task's category, moved by its outcomes
/// on tasks with the same features: see [`LearnedIndex::predict`]) is below `threshold`, on
/// at least [`MIN_SKIP_EVIDENCE`] recorded outcomes — a rung is never skipped on its
/// benchmarks alone. `prior` gives a model's benchmark prior in the task's category. Returns
/// the rungs taken out, each with its reason.
pub fn skip_unlikely(
    models: &mut Vec<String>,
    task: &TaskFeatures,
    learned: &LearnedIndex,
    threshold: f64,
    prior: impl Fn(&str) -> f64,
) -> Vec<SkippedRung> {
    let mut skipped = Vec::new();
    let last = models.len().saturating_sub(1);
    let mut index = 0;
    models.retain(|model| {
        let at = index;
        index += 1;
        if at == last {
            return true;
        }
        let prediction = learned.predict(model, task, prior(model));
        let unlikely =
            prediction.outcomes() >= MIN_SKIP_EVIDENCE && prediction.estimate < threshold;
        if unlikely {
            skipped.push(SkippedRung {
                model: model.clone(),
                estimate: prediction.estimate,
                reason: format!("skipping {model}: {}", prediction.describe(task.category)),
            });
        }
        !unlikely
    });
    skipped
}

/// The next step of `ladder` after rung `index` ended with `outcome`.
pub fn next_step(ladder: &Ladder, index: usize, outcome: &RungOutcome) -> CascadeStep {
    match outcome {
        RungOutcome::Succeeded => CascadeStep::Done { rung: index },
        RungOutcome::Stopped => CascadeStep::Stopped,
        RungOutcome::Failed(_) if index + 1 < ladder.rungs.len() => {
            CascadeStep::Escalate { rung: index + 1 }
        }
        RungOutcome::Failed(_) => CascadeStep::Exhausted,
    }
}

/// A judge model and the score (1–10) an answer needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct JudgeSpec {
    pub model: String,
    pub threshold: u8,
}

impl JudgeSpec {
    /// Checks the threshold is 1–10 and a model is named.
    ///
    /// # Errors
    /// [`LadderError`] saying what is wrong.
    pub fn validate(&self) -> Result<(), LadderError> {
        if self.model.trim().is_empty() {
            return Err(LadderError("the judge needs a model".into()));
        }
        if !(1..=10).contains(&self.threshold) {
            return Err(LadderError(format!(
                "the judge threshold must be 1–10, not {}",
                self.threshold
            )));
        }
        Ok(())
    }

    /// The judge's verdict on `score` (`None`: the judge gave no readable score, which is a
    /// failure of the judge, not of the answer: the answer is accepted).
    pub fn verdict(&self, score: Option<u8>) -> RungOutcome {
        match score {
            Some(score) if score < self.threshold => {
                RungOutcome::Failed(FailureSignal::JudgeBelow {
                    score,
                    threshold: self.threshold,
                })
            }
            _ => RungOutcome::Succeeded,
        }
    }
}

/// The prompt asking a judge to score `answer` to `task`.
pub fn judge_prompt(task: &str, answer: &str) -> String {
    format!(
        "You review answers. Score how well the answer solves the task, from 1 (useless) to 10 \
         (excellent). Judge correctness and completeness, not length. Reply with the score on \
         the last line as `Score: N`.\n\n# Task\n{}\n\n# Answer\n{}",
        task.trim(),
        answer.trim()
    )
}

/// The judge's score: the last `Score: N` (1–10) in its reply.
pub fn parse_judge_score(reply: &str) -> Option<u8> {
    reply.lines().rev().find_map(|line| {
        let line = line.trim().trim_matches(|c| c == '*' || c == '`');
        let rest = line
            .strip_prefix("Score:")
            .or_else(|| line.strip_prefix("score:"))
            .or_else(|| line.strip_prefix("SCORE:"))?;
        let digits: String = rest
            .trim()
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse::<u8>().ok().filter(|s| (1..=10).contains(s))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::card::Category;

    #[test]
    fn only_rungs_that_keep_failing_are_skipped_and_never_the_last() {
        let now = 1_800_000_000_000;
        let mut learned = LearnedIndex::default();
        for succeeded in [true, false, false, false, false, false, false, false, false] {
            learned.add("cheap/flash", Category::Coding, succeeded, now, now);
        }
        // Two failures are not enough evidence to skip on.
        learned.add("mid/pro", Category::Coding, false, now, now);
        learned.add("mid/pro", Category::Coding, false, now, now);
        for _ in 0..9 {
            learned.add("top/max", Category::Coding, false, now, now);
        }
        let mut models: Vec<String> = ["cheap/flash", "mid/pro", "top/max"]
            .map(String::from)
            .to_vec();
        let skipped = skip_unlikely(
            &mut models,
            &TaskFeatures::bare(Category::Coding),
            &learned,
            0.3,
            |_| 0.6,
        );
        assert_eq!(models, ["mid/pro", "top/max"], "the last rung always stays");
        assert_eq!(skipped.len(), 1);
        assert_eq!(
            skipped[0].reason,
            "skipping cheap/flash: 1 of 9 verified for coding"
        );
        assert!(skipped[0].estimate < 0.3);
        // Other categories, and a threshold of 0, skip nothing.
        let mut again: Vec<String> = ["cheap/flash", "top/max"].map(String::from).to_vec();
        assert!(skip_unlikely(
            &mut again,
            &TaskFeatures::bare(Category::Creative),
            &learned,
            0.3,
            |_| 0.6
        )
        .is_empty());
        assert!(skip_unlikely(
            &mut again,
            &TaskFeatures::bare(Category::Coding),
            &learned,
            0.0,
            |_| 0.6
        )
        .is_empty());
        assert_eq!(again.len(), 2);
    }

    /// A coding task in `stack`.
    fn coding_in(stack: &str) -> TaskFeatures {
        TaskFeatures {
            stack: vec![stack.to_owned()],
            task_tokens: 30,
            ..TaskFeatures::bare(Category::Coding)
        }
    }

    #[test]
    fn a_rung_is_skipped_for_the_kind_of_task_it_fails_not_for_its_whole_category() {
        let now = 1_800_000_000_000;
        let mut learned = LearnedIndex::default();
        // The cheap model passes every Python task and fails every Rust one: half of coding.
        for _ in 0..5 {
            learned.add_task("cheap/flash", &coding_in("python"), true, now, now, 1.0);
            learned.add_task("cheap/flash", &coding_in("rust"), false, now, now, 1.0);
        }
        let category = learned.estimate("cheap/flash", Category::Coding, 0.6);
        assert!(
            category > 0.3,
            "the category alone would keep it: {category}"
        );

        let ladder = || -> Vec<String> { ["cheap/flash", "top/max"].map(String::from).to_vec() };
        let mut rust = ladder();
        let skipped = skip_unlikely(&mut rust, &coding_in("rust"), &learned, 0.3, |_| 0.6);
        assert_eq!(rust, ["top/max"]);
        assert_eq!(skipped.len(), 1);
        assert!(skipped[0].estimate < 0.3, "{}", skipped[0].estimate);
        let reason = &skipped[0].reason;
        assert!(
            reason.starts_with("skipping cheap/flash: 5 of 10 verified for coding; 0 of 5 with stack:rust; predicted 0."),
            "{reason}"
        );

        let mut python = ladder();
        assert!(
            skip_unlikely(&mut python, &coding_in("python"), &learned, 0.3, |_| 0.6).is_empty()
        );
        let predicted = learned.predict("cheap/flash", &coding_in("python"), 0.6);
        assert!(predicted.estimate > category, "{predicted:?}");
        // A stack it never saw is predicted from the category alone.
        let go = learned.predict("cheap/flash", &coding_in("go"), 0.6);
        assert!(
            (go.estimate - category).abs() < 0.002,
            "{go:?} vs {category}"
        );
        assert!(go.features.is_empty());
    }

    fn ladder() -> Ladder {
        Ladder::from_models(&["cheap".into(), "mid".into(), "top".into(), "more".into()])
    }

    #[test]
    fn tiers_climb_from_budget_to_premium() {
        let tiers: Vec<BudgetTier> = ladder().rungs.iter().map(|r| r.tier).collect();
        assert_eq!(
            tiers,
            [
                BudgetTier::Low,
                BudgetTier::Medium,
                BudgetTier::High,
                BudgetTier::High
            ]
        );
        assert!(ladder().validate().is_ok());
        assert!(Ladder::default().validate().is_err());
        assert!(Ladder::from_models(&[" ".into()]).validate().is_err());
    }

    #[test]
    fn escalation_happens_only_on_a_failure_signal_and_stops_at_success() {
        let ladder = ladder();
        let failed = RungOutcome::Failed(FailureSignal::ProviderFailed {
            code: ErrorCode::Provider,
            message: "503".into(),
        });
        assert_eq!(
            next_step(&ladder, 0, &failed),
            CascadeStep::Escalate { rung: 1 }
        );
        assert_eq!(
            next_step(&ladder, 1, &RungOutcome::Succeeded),
            CascadeStep::Done { rung: 1 }
        );
        assert_eq!(next_step(&ladder, 3, &failed), CascadeStep::Exhausted);
        assert_eq!(
            next_step(&ladder, 0, &RungOutcome::Stopped),
            CascadeStep::Stopped
        );
    }

    #[test]
    fn the_judge_fails_low_scores_only() {
        let judge = JudgeSpec {
            model: "j".into(),
            threshold: 7,
        };
        assert!(judge.validate().is_ok());
        assert_eq!(judge.verdict(Some(7)), RungOutcome::Succeeded);
        assert!(matches!(
            judge.verdict(Some(6)),
            RungOutcome::Failed(FailureSignal::JudgeBelow {
                score: 6,
                threshold: 7
            })
        ));
        assert_eq!(judge.verdict(None), RungOutcome::Succeeded);
        assert_eq!(parse_judge_score("Fine work.\nScore: 8"), Some(8));
        assert_eq!(parse_judge_score("**Score: 10**"), Some(10));
        assert_eq!(parse_judge_score("Score: 0"), None);
        assert_eq!(parse_judge_score("no score"), None);
        assert!(JudgeSpec {
            model: "j".into(),
            threshold: 11
        }
        .validate()
        .is_err());
    }

    #[test]
    fn signals_describe_themselves_for_the_next_rung() {
        let text = FailureSignal::JudgeBelow {
            score: 3,
            threshold: 7,
        }
        .describe();
        assert!(text.contains("3/10") && text.contains("7/10"));
        let json = serde_json::to_value(FailureSignal::GateFailed {
            gate: "secrets".into(),
            detail: "key".into(),
        })
        .expect("json");
        assert_eq!(json["kind"], "gateFailed");
    }
}
