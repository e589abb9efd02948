//! The planning lexicon (`data/routing/plan.json`): phases, artifacts and budget nudges,
//! compiled once.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::routing::budget::Nudge;
use crate::routing::error::RoutingError;
use crate::routing::matcher::{term_slot, TermMatcher};
use crate::routing::text::Tokens;

const PLAN_FILE: &str = "plan.json";
pub(crate) const PLAN_JSON: &str = include_str!("../../../data/routing/plan.json");

/// Work phases, in dependency order (`deploy` and `docs` share the last rank).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Type,
)]
#[serde(rename_all = "camelCase")]
pub enum Phase {
    /// Design, architecture, specification.
    Design,
    /// Scaffolding, installation, configuration.
    Setup,
    /// Writing and changing code.
    Implement,
    /// Wiring parts together.
    Integrate,
    /// Tests and verification.
    Test,
    /// Release and deployment.
    Deploy,
    /// Documentation.
    Docs,
}

impl Phase {
    /// Every phase in order.
    pub const ALL: [Phase; 7] = [
        Phase::Design,
        Phase::Setup,
        Phase::Implement,
        Phase::Integrate,
        Phase::Test,
        Phase::Deploy,
        Phase::Docs,
    ];

    /// The id used in data and JSON.
    pub fn id(self) -> &'static str {
        match self {
            Phase::Design => "design",
            Phase::Setup => "setup",
            Phase::Implement => "implement",
            Phase::Integrate => "integrate",
            Phase::Test => "test",
            Phase::Deploy => "deploy",
            Phase::Docs => "docs",
        }
    }

    fn parse(id: &str) -> Option<Phase> {
        Phase::ALL.into_iter().find(|p| p.id() == id)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PlanData {
    #[serde(rename = "$comment")]
    _comment: Option<String>,
    lead_bonus: f64,
    phases: Vec<PhaseData>,
    artifacts: Vec<ArtifactData>,
    budget_nudge: NudgeData,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PhaseData {
    id: String,
    rank: u32,
    own_artifact: Option<String>,
    terms: std::collections::BTreeMap<String, f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ArtifactData {
    id: String,
    after: Vec<String>,
    terms: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NudgeData {
    down: Vec<String>,
    up: Vec<String>,
}

#[derive(Debug, Clone, Default)]
struct TermInfo {
    phases: Vec<(usize, f64)>,
    artifacts: Vec<usize>,
    nudge: Option<Nudge>,
}

/// A phase as compiled.
#[derive(Debug, Clone)]
pub(crate) struct PhaseInfo {
    pub phase: Phase,
    pub rank: u32,
    pub own_artifact: Option<usize>,
}

/// What the planning lexicon finds in one step.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct StepFacts {
    /// Index into [`PlanLexicon::phases`].
    pub phase: Option<usize>,
    /// Indices into [`PlanLexicon::artifacts`], in order of first mention.
    pub artifacts: Vec<usize>,
    /// The nudge and the word that caused it.
    pub nudge: Option<(Nudge, String)>,
}

/// The compiled planning lexicon.
#[derive(Debug, Clone, Default)]
pub(crate) struct PlanLexicon {
    matcher: TermMatcher,
    info: Vec<TermInfo>,
    lead_bonus: f64,
    pub phases: Vec<PhaseInfo>,
    /// Artifact ids.
    pub artifacts: Vec<String>,
    /// Per artifact: artifacts that must exist before it, transitively.
    pub before: Vec<Vec<usize>>,
}

fn data_error(message: impl Into<String>) -> RoutingError {
    RoutingError::Data {
        file: PLAN_FILE,
        message: message.into(),
    }
}

impl PlanLexicon {
    /// Compiles `plan.json`.
    pub fn compile(json: &str) -> Result<PlanLexicon, RoutingError> {
        let data: PlanData = serde_json::from_str(json).map_err(|e| data_error(e.to_string()))?;
        let mut lex = PlanLexicon {
            lead_bonus: data.lead_bonus,
            ..PlanLexicon::default()
        };
        lex.artifacts = data.artifacts.iter().map(|a| a.id.clone()).collect();
        let artifact_index = |id: &str| {
            data.artifacts
                .iter()
                .position(|a| a.id == id)
                .ok_or_else(|| data_error(format!("unknown artifact {id:?}")))
        };
        for (index, phase) in data.phases.iter().enumerate() {
            let kind = Phase::parse(&phase.id)
                .ok_or_else(|| data_error(format!("unknown phase {:?}", phase.id)))?;
            let own_artifact = phase
                .own_artifact
                .as_deref()
                .map(artifact_index)
                .transpose()?;
            lex.phases.push(PhaseInfo {
                phase: kind,
                rank: phase.rank,
                own_artifact,
            });
            for (term, weight) in &phase.terms {
                lex.entry(term)?.phases.push((index, *weight));
            }
        }
        for (index, artifact) in data.artifacts.iter().enumerate() {
            for term in &artifact.terms {
                lex.entry(term)?.artifacts.push(index);
            }
        }
        lex.before = vec![Vec::new(); data.artifacts.len()];
        for (index, artifact) in data.artifacts.iter().enumerate() {
            for after in &artifact.after {
                let first = artifact_index(after)?;
                if let Some(list) = lex.before.get_mut(index) {
                    list.push(first);
                }
            }
        }
        // Transitive closure; the artifact graph is tiny and must be acyclic.
        for _ in 0..lex.before.len() {
            for index in 0..lex.before.len() {
                let extra: Vec<usize> = lex.before[index]
                    .iter()
                    .flat_map(|b| lex.before[*b].clone())
                    .filter(|b| !lex.before[index].contains(b))
                    .collect();
                for b in extra {
                    if !lex.before[index].contains(&b) {
                        lex.before[index].push(b);
                    }
                }
            }
        }
        if lex
            .before
            .iter()
            .enumerate()
            .any(|(index, list)| list.contains(&index))
        {
            return Err(data_error("artifact 'after' lists form a cycle"));
        }
        for (nudge, terms) in [
            (Nudge::Down, &data.budget_nudge.down),
            (Nudge::Up, &data.budget_nudge.up),
        ] {
            for term in terms {
                let info = lex.entry(term)?;
                if info.nudge != Some(Nudge::Up) {
                    info.nudge = Some(nudge);
                }
            }
        }
        Ok(lex)
    }

    fn entry(&mut self, term: &str) -> Result<&mut TermInfo, RoutingError> {
        term_slot(&mut self.matcher, &mut self.info, term, PLAN_FILE)
    }

    /// The built-in lexicon (empty if the embedded file were broken; tests guarantee it is not).
    pub fn builtin() -> &'static PlanLexicon {
        static LEXICON: OnceLock<PlanLexicon> = OnceLock::new();
        LEXICON.get_or_init(|| PlanLexicon::compile(PLAN_JSON).unwrap_or_default())
    }

    /// The phase, artifacts and budget nudge of one step's text.
    pub fn facts(&self, text: &str) -> StepFacts {
        let tokens = Tokens::new(text);
        let mut scores = vec![0.0f64; self.phases.len()];
        let mut first_seen: Vec<Option<usize>> = vec![None; self.phases.len()];
        let mut lead_used = false;
        let mut facts = StepFacts::default();
        let mut order = 0usize;
        self.matcher.scan(&tokens, |term, _| {
            order += 1;
            let Some(info) = self.info.get(term as usize) else {
                return;
            };
            if !info.phases.is_empty() {
                let factor = if lead_used { 1.0 } else { self.lead_bonus };
                lead_used = true;
                for (phase, weight) in &info.phases {
                    if let Some(score) = scores.get_mut(*phase) {
                        *score += weight * factor;
                    }
                    if let Some(seen) = first_seen.get_mut(*phase) {
                        seen.get_or_insert(order);
                    }
                }
            }
            for artifact in &info.artifacts {
                if !facts.artifacts.contains(artifact) {
                    facts.artifacts.push(*artifact);
                }
            }
            match (info.nudge, &facts.nudge) {
                (Some(Nudge::Up), Some((Nudge::Up, _))) | (None, _) => {}
                (Some(Nudge::Down), Some(_)) => {}
                (Some(nudge), _) => facts.nudge = Some((nudge, self.matcher.text(term).to_owned())),
            }
        });
        facts.phase = (0..self.phases.len())
            .filter(|p| scores[*p] > 0.0)
            .max_by(|a, b| {
                scores[*a]
                    .total_cmp(&scores[*b])
                    // On a tie the phase named first wins.
                    .then_with(|| first_seen[*b].cmp(&first_seen[*a]))
            });
        facts
    }
}

/// Checks the built-in planning lexicon compiles.
pub(crate) fn check_builtin() -> Result<(), RoutingError> {
    PlanLexicon::compile(PLAN_JSON).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phase_of(text: &str) -> Option<Phase> {
        let lex = PlanLexicon::builtin();
        lex.facts(text).phase.map(|p| lex.phases[p].phase)
    }

    fn artifacts_of(text: &str) -> Vec<String> {
        let lex = PlanLexicon::builtin();
        lex.facts(text)
            .artifacts
            .iter()
            .map(|a| lex.artifacts[*a].clone())
            .collect()
    }

    #[test]
    fn builtin_plan_data_compiles_with_singular_terms() {
        let lex = PlanLexicon::compile(PLAN_JSON).expect("plan.json compiles");
        assert_eq!(lex.matcher.plural_duplicates(), Vec::<String>::new());
        assert_eq!(lex.phases.len(), Phase::ALL.len());
    }

    #[test]
    fn phase_follows_the_weightiest_words_with_a_lead_bonus() {
        assert_eq!(phase_of("Design the database schema"), Some(Phase::Design));
        assert_eq!(phase_of("Write unit tests for the API"), Some(Phase::Test));
        assert_eq!(
            phase_of("Implement the API and test it"),
            Some(Phase::Implement)
        );
        assert_eq!(phase_of("Set up CI to run the tests"), Some(Phase::Setup));
        assert_eq!(phase_of("Write the docs"), Some(Phase::Docs));
        assert_eq!(phase_of("Add integration tests"), Some(Phase::Test));
        assert_eq!(phase_of("Deploy to staging"), Some(Phase::Deploy));
        assert_eq!(phase_of("设计数据库表结构"), Some(Phase::Design));
        assert_eq!(phase_of("Buy coffee"), None);
    }

    #[test]
    fn artifacts_include_plurals() {
        assert_eq!(
            artifacts_of("Build the REST APIs and their schemas"),
            ["api", "schema"]
        );
        assert_eq!(artifacts_of("Update configs and docs"), ["config", "docs"]);
        assert_eq!(
            artifacts_of("Write tests for the components"),
            ["tests", "component"]
        );
    }

    #[test]
    fn up_nudges_win_over_down_nudges() {
        let lex = PlanLexicon::builtin();
        assert_eq!(
            lex.facts("a simple rename").nudge.map(|n| n.0),
            Some(Nudge::Down)
        );
        assert_eq!(
            lex.facts("a simple but security relevant fix")
                .nudge
                .map(|n| n.0),
            Some(Nudge::Up)
        );
        assert_eq!(lex.facts("implement the parser").nudge, None);
    }
}
