//! What a node is told: the original task, the plan, its own step, its inputs' outputs and
//! earlier failures, within a character budget. Every input is listed in the node's context
//! trace (where it came from, how long it was, whether it was cut), and a cut input says so in
//! the prompt itself: `[truncated: N of M characters]`.

use serde::{Deserialize, Serialize};
use specta::Type;

/// Characters of context a node gets unless the run says otherwise.
pub const DEFAULT_CONTEXT_CHARS: usize = 48_000;

/// One input of a node's prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ContextItem {
    /// `task`, `plan`, `step`, `role`, `node:<id>` or `failure:<rung>`.
    pub source: String,
    /// Characters of it the prompt holds.
    pub chars: u32,
    /// Characters it had.
    pub total_chars: u32,
    /// Whether it was cut to fit the budget.
    pub truncated: bool,
    /// What the prompt called it (its section's heading): `Task`, `Your step (n2)`…; traces
    /// stored before headings were kept get one from their source
    /// ([`ContextTrace::with_headings`]).
    #[serde(default)]
    pub heading: String,
}

/// Everything a node received, in prompt order.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ContextTrace {
    pub items: Vec<ContextItem>,
}

impl ContextTrace {
    /// The trace with a heading on every item: a trace stored before headings were kept
    /// names its items after their source.
    pub fn with_headings(mut self) -> Self {
        for item in &mut self.items {
            if item.heading.is_empty() {
                item.heading = heading_of_source(&item.source);
            }
        }
        self
    }
}

fn heading_of_source(source: &str) -> String {
    match source {
        "task" => "Task".to_owned(),
        "plan" => "Plan".to_owned(),
        "step" => "Your step".to_owned(),
        "role" => "Role".to_owned(),
        _ => {
            if let Some(node) = source.strip_prefix("node:") {
                format!("Output of {node}")
            } else if let Some(rung) = source.strip_prefix("failure:") {
                format!("An earlier attempt failed (rung {rung})")
            } else {
                source.to_owned()
            }
        }
    }
}

/// A node's prompt and its trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeContext {
    pub prompt: String,
    pub trace: ContextTrace,
}

/// One section: its trace source, its heading and its text.
#[derive(Debug, Clone)]
struct Section {
    source: String,
    heading: String,
    text: String,
    /// Kept whole whatever the budget (the node's own task).
    fixed: bool,
}

/// Builds a node's prompt section by section; [`ContextBuilder::build`] fits it to a budget.
#[derive(Debug, Clone, Default)]
pub struct ContextBuilder {
    sections: Vec<Section>,
}

impl ContextBuilder {
    /// An empty prompt.
    pub fn new() -> Self {
        Self::default()
    }

    fn push(mut self, source: String, heading: String, text: &str, fixed: bool) -> Self {
        if !text.trim().is_empty() {
            self.sections.push(Section {
                source,
                heading,
                text: text.trim().to_owned(),
                fixed,
            });
        }
        self
    }

    /// The run's original task (cut last).
    pub fn task(self, task: &str) -> Self {
        self.push("task".into(), "Task".into(), task, false)
    }

    /// The plan's outline.
    pub fn plan(self, outline: &str) -> Self {
        self.push("plan".into(), "Plan".into(), outline, false)
    }

    /// The node's own step, never cut.
    pub fn step(self, id: &str, task: &str) -> Self {
        self.push("step".into(), format!("Your step ({id})"), task, true)
    }

    /// The output of node `id`, labelled `label` in the heading.
    pub fn input(self, id: &str, label: &str, output: &str) -> Self {
        self.push(format!("node:{id}"), label.to_owned(), output, false)
    }

    /// Why rung `rung` (1-based) failed, for the next rung.
    pub fn failure(self, rung: u32, text: &str) -> Self {
        self.push(
            format!("failure:{rung}"),
            format!("An earlier attempt failed (rung {rung})"),
            text,
            false,
        )
    }

    /// Closing instructions, never cut (not part of the trace).
    pub fn instruction(self, text: &str) -> Self {
        self.push(String::new(), String::new(), text, true)
    }

    /// The prompt within `budget_chars` characters of section text: fixed sections whole,
    /// the others shared fairly (a short input keeps all of it; what it leaves goes to the
    /// longer ones), each cut at its end with a marker.
    pub fn build(self, budget_chars: usize) -> NodeContext {
        let lengths: Vec<usize> = self
            .sections
            .iter()
            .map(|s| s.text.chars().count())
            .collect();
        let fixed: usize = self
            .sections
            .iter()
            .zip(&lengths)
            .filter(|(s, _)| s.fixed)
            .map(|(_, n)| n)
            .sum();
        let flexible: Vec<usize> = self
            .sections
            .iter()
            .zip(&lengths)
            .filter(|(s, _)| !s.fixed)
            .map(|(_, n)| *n)
            .collect();
        let shares = fair_shares(&flexible, budget_chars.saturating_sub(fixed));
        let mut shares = shares.into_iter();
        let mut prompt = String::new();
        let mut trace = ContextTrace::default();
        for (section, total) in self.sections.iter().zip(lengths) {
            let keep = if section.fixed {
                total
            } else {
                shares.next().unwrap_or(0)
            };
            let truncated = keep < total;
            if !prompt.is_empty() {
                prompt.push_str("\n\n");
            }
            if !section.heading.is_empty() {
                prompt.push_str("# ");
                prompt.push_str(&section.heading);
                prompt.push('\n');
            }
            if truncated {
                prompt.extend(section.text.chars().take(keep));
                prompt.push_str(&format!("\n[truncated: {keep} of {total} characters]"));
            } else {
                prompt.push_str(&section.text);
            }
            if !section.source.is_empty() {
                trace.items.push(ContextItem {
                    source: section.source.clone(),
                    chars: u32::try_from(keep).unwrap_or(u32::MAX),
                    total_chars: u32::try_from(total).unwrap_or(u32::MAX),
                    truncated,
                    heading: section.heading.clone(),
                });
            }
        }
        NodeContext { prompt, trace }
    }
}

/// Splits `budget` among items of `lengths` (water-filling): each gets at most its length,
/// and what short items leave is shared by the others.
fn fair_shares(lengths: &[usize], budget: usize) -> Vec<usize> {
    let mut shares = vec![0; lengths.len()];
    let mut open: Vec<usize> = (0..lengths.len()).collect();
    let mut left = budget;
    while !open.is_empty() && left > 0 {
        let each = (left / open.len()).max(1);
        let mut next = Vec::new();
        for &i in &open {
            let want = lengths[i] - shares[i];
            let give = want.min(each).min(left);
            shares[i] += give;
            left -= give;
            if shares[i] < lengths[i] {
                next.push(i);
            }
        }
        open = next;
    }
    shares
}

/// The context of a step of a plan or swarm: the original task, the plan outline, the
/// outputs of `deps` (`(node id, output)`, labelled by id), within `budget_chars`.
pub fn node_context(
    original_task: &str,
    plan_outline: &str,
    deps: &[(String, String)],
    budget_chars: usize,
) -> NodeContext {
    let mut builder = ContextBuilder::new().task(original_task).plan(plan_outline);
    for (id, output) in deps {
        builder = builder.input(id, &format!("Output of {id}"), output);
    }
    builder.build(budget_chars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_item_carries_the_heading_the_prompt_gave_it_and_old_traces_get_one() {
        let context = ContextBuilder::new()
            .task("Do the thing")
            .step("n2", "This part")
            .failure(1, "tests failed")
            .build(DEFAULT_CONTEXT_CHARS);
        let headings: Vec<&str> = context
            .trace
            .items
            .iter()
            .map(|i| i.heading.as_str())
            .collect();
        assert!(context.prompt.contains(headings[1]), "{}", context.prompt);
        assert_eq!(
            headings,
            [
                "Task",
                "Your step (n2)",
                "An earlier attempt failed (rung 1)"
            ]
        );
        // A trace stored before headings were kept.
        let old: ContextTrace = serde_json::from_str(
            r#"{"items":[{"source":"node:n1","chars":3,"totalChars":3,"truncated":false}]}"#,
        )
        .expect("an old trace still reads");
        assert_eq!(old.with_headings().items[0].heading, "Output of n1");
    }

    #[test]
    fn everything_fits_untouched_and_is_traced_in_order() {
        let context = ContextBuilder::new()
            .task("Write a poem")
            .plan("s1: draft\ns2: polish")
            .step("s2", "Polish the draft")
            .input("s1", "Output of s1", "Roses are red")
            .build(10_000);
        let sources: Vec<&str> = context
            .trace
            .items
            .iter()
            .map(|i| i.source.as_str())
            .collect();
        assert_eq!(sources, ["task", "plan", "step", "node:s1"]);
        assert!(context.trace.items.iter().all(|i| !i.truncated));
        assert!(context
            .prompt
            .contains("# Your step (s2)\nPolish the draft"));
        assert!(context.prompt.contains("# Output of s1\nRoses are red"));
        assert!(!context.prompt.contains("truncated"));
    }

    #[test]
    fn a_long_input_is_cut_and_marked_while_short_ones_stay_whole() {
        let long = "x".repeat(5000);
        let context = node_context(
            "Summarize",
            "",
            &[("n1".into(), long.clone()), ("n2".into(), "short".into())],
            1000,
        );
        let n1 = &context.trace.items[1];
        assert_eq!(n1.source, "node:n1");
        assert!(n1.truncated);
        assert_eq!(n1.total_chars, 5000);
        // The task (9) and n2 (5) keep everything; n1 gets the rest.
        assert_eq!(n1.chars, 1000 - 9 - 5);
        assert!(!context.trace.items[2].truncated);
        assert!(context
            .prompt
            .contains(&format!("[truncated: {} of 5000 characters]", n1.chars)));
        let section_chars: u32 = context.trace.items.iter().map(|i| i.chars).sum();
        assert!(section_chars as usize <= 1000);
    }

    #[test]
    fn the_step_is_never_cut_and_multibyte_text_is_cut_on_characters() {
        let context = ContextBuilder::new()
            .step("s1", &"é".repeat(50))
            .failure(1, &"ü".repeat(100))
            .build(60);
        assert!(!context.trace.items[0].truncated);
        assert_eq!(context.trace.items[1].chars, 10);
        assert_eq!(context.trace.items[1].source, "failure:1");
    }

    #[test]
    fn fair_shares_fill_and_never_exceed() {
        assert_eq!(fair_shares(&[10, 100, 100], 110), vec![10, 50, 50]);
        assert_eq!(fair_shares(&[3, 4], 100), vec![3, 4]);
        assert_eq!(fair_shares(&[5, 5, 5], 2), vec![1, 1, 0]);
        assert_eq!(fair_shares(&[], 5), Vec::<usize>::new());
    }
}
