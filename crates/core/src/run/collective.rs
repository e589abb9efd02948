//! Collective text runs: several models answer the same task; a merge node synthesizes one
//! answer from them and says which inputs it used (a final line `Used: 1, 3`).

use super::context::{ContextBuilder, NodeContext};

/// The merge node's instruction to name the inputs it used.
pub const USED_LINE_INSTRUCTION: &str = "Synthesize the best single answer to the task from the \
     numbered answers above: keep what is correct, resolve disagreements, drop what is wrong. \
     Reply with the answer only, then a final line `Used: ` followed by the numbers of the \
     answers you drew on, comma-separated (for example `Used: 1, 3`).";

/// One member's answer as the merge node sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberAnswer {
    pub node_id: String,
    pub model: String,
    pub text: String,
}

/// The merge node's prompt: the task, then each answer numbered from 1, then the
/// instruction, within `budget_chars`.
pub fn merge_context(task: &str, answers: &[MemberAnswer], budget_chars: usize) -> NodeContext {
    let mut builder = ContextBuilder::new().task(task);
    for (i, answer) in answers.iter().enumerate() {
        builder = builder.input(
            &answer.node_id,
            &format!("Answer {} (from {})", i + 1, answer.model),
            &answer.text,
        );
    }
    builder
        .instruction(USED_LINE_INSTRUCTION)
        .build(budget_chars)
}

/// The input numbers on the merge answer's last `Used:` line that are within `1..=inputs`,
/// sorted and unique; `None` when there is no such line.
pub fn parse_used_inputs(answer: &str, inputs: usize) -> Option<Vec<u32>> {
    let line = answer
        .lines()
        .rev()
        .map(|l| l.trim().trim_matches(|c| c == '*' || c == '`').trim())
        .find(|l| l.to_ascii_lowercase().starts_with("used:"))?;
    let mut used: Vec<u32> = line["used:".len()..]
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter_map(|part| {
            part.trim_matches(|c: char| !c.is_ascii_digit())
                .parse()
                .ok()
        })
        .filter(|n: &u32| *n >= 1 && (*n as usize) <= inputs)
        .collect();
    used.sort_unstable();
    used.dedup();
    Some(used)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_merge_prompt_numbers_answers_and_traces_them() {
        let answers = vec![
            MemberAnswer {
                node_id: "m1".into(),
                model: "a".into(),
                text: "Paris".into(),
            },
            MemberAnswer {
                node_id: "m2".into(),
                model: "b".into(),
                text: "Lyon".into(),
            },
        ];
        let context = merge_context("Capital of France?", &answers, 10_000);
        assert!(context.prompt.contains("# Answer 1 (from a)\nParis"));
        assert!(context.prompt.contains("# Answer 2 (from b)\nLyon"));
        assert!(context.prompt.ends_with(USED_LINE_INSTRUCTION));
        let sources: Vec<&str> = context
            .trace
            .items
            .iter()
            .map(|i| i.source.as_str())
            .collect();
        assert_eq!(sources, ["task", "node:m1", "node:m2"]);
    }

    #[test]
    fn used_inputs_come_from_the_last_used_line() {
        assert_eq!(parse_used_inputs("Paris.\nUsed: 1, 3", 3), Some(vec![1, 3]));
        assert_eq!(parse_used_inputs("x\n**Used: 2,2, 9**", 3), Some(vec![2]));
        assert_eq!(parse_used_inputs("no line", 3), None);
        assert_eq!(parse_used_inputs("used: none", 3), Some(vec![]));
    }
}
