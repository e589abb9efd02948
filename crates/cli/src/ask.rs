//! `ask`: one streamed answer from whichever provider serves a model.

use std::io::{Read, Write};
use std::process::ExitCode;

use clap::Args;
use switchyard_core::providers::{AskAnswer, AskRequest};
use switchyard_engine::Engine;

use crate::output::CliError;

/// `switchyard ask`
#[derive(Args)]
pub struct AskArgs {
    /// Catalog id (openai/gpt-4o-mini, local/ollama/llama3.2:3b) or <provider>:<model>
    /// (openrouter:anthropic/claude-sonnet-4.5, ollama:llama3.2).
    #[arg(long)]
    model: String,
    /// The prompt; `-` reads it from standard input.
    prompt: String,
    /// A system prompt.
    #[arg(long)]
    system: Option<String>,
    /// Cap on answer tokens.
    #[arg(long, value_name = "N")]
    max_tokens: Option<u32>,
}

/// Runs `switchyard ask`: the answer streams to stdout as it arrives; usage and cost follow
/// on stderr. With `--json`, stdout is JSON Lines: `{"delta": "…"}` per streamed piece, then
/// one `{"answer": {…}}` with the whole text, usage, cost, provider and latency.
pub async fn ask(engine: &Engine, args: AskArgs, json: bool) -> Result<ExitCode, CliError> {
    let prompt = if args.prompt == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| {
            CliError::invalid(format!("cannot read the prompt from standard input: {e}"))
        })?;
        text
    } else {
        args.prompt
    };
    let request = AskRequest {
        model: args.model,
        prompt,
        system: args.system,
        max_tokens: args.max_tokens,
        pricing: None,
    };
    let mut ends_with_newline = true;
    let answer = engine
        .ask(request, None, |delta: &str| {
            let mut out = std::io::stdout().lock();
            // A closed pipe (`| head`) is the reader's choice, not an error of the answer.
            let _ = if json {
                writeln!(out, "{}", serde_json::json!({ "delta": delta }))
            } else {
                write!(out, "{delta}")
            };
            let _ = out.flush();
            if !delta.is_empty() {
                ends_with_newline = delta.ends_with('\n');
            }
        })
        .await?;
    if json {
        println!("{}", serde_json::json!({ "answer": answer }));
    } else {
        if !ends_with_newline {
            println!();
        }
        eprintln!("{}", describe_answer(&answer));
    }
    Ok(ExitCode::SUCCESS)
}

/// `[openai · gpt-4o-mini · 12 in, 34 out tokens · $0.000022 · 850 ms]`
fn describe_answer(answer: &AskAnswer) -> String {
    let approx = if answer.usage.estimated { "~" } else { "" };
    let cost = match &answer.cost {
        Some(cost) => format!("{}{}", if cost.estimated { "~" } else { "" }, usd(cost.usd)),
        None => "cost unknown (no catalog price for this model)".into(),
    };
    let estimated = if answer.usage.estimated {
        " (estimated: the provider sent no usage)"
    } else {
        ""
    };
    format!(
        "[{} · {} · {approx}{} in, {approx}{} out tokens{estimated} · {cost} · {} ms]",
        answer.provider_id,
        answer.provider_model,
        answer.usage.input_tokens,
        answer.usage.output_tokens,
        answer.latency_ms
    )
}

/// Dollars with enough digits to show sub-cent answers.
fn usd(amount: f64) -> String {
    if amount == 0.0 {
        "$0 (free)".into()
    } else if amount < 0.01 {
        format!("${amount:.6}")
    } else {
        format!("${amount:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchyard_core::providers::{Cost, Usage};

    #[test]
    fn answer_line_marks_estimates_and_prices() {
        let mut answer = AskAnswer {
            model: "openai/gpt-4o-mini".into(),
            provider_id: "openai".into(),
            provider_model: "gpt-4o-mini".into(),
            key_source: None,
            text: "hi".into(),
            finish_reason: Some("stop".into()),
            usage: Usage {
                input_tokens: 12,
                output_tokens: 34,
                estimated: false,
            },
            cost: Some(Cost {
                usd: 0.000_022_2,
                input_usd: 0.000_001_8,
                output_usd: 0.000_020_4,
                estimated: false,
            }),
            latency_ms: 850,
        };
        assert_eq!(
            describe_answer(&answer),
            "[openai · gpt-4o-mini · 12 in, 34 out tokens · $0.000022 · 850 ms]"
        );
        answer.usage.estimated = true;
        answer.cost = None;
        let line = describe_answer(&answer);
        assert!(line.contains("~12 in, ~34 out tokens (estimated"), "{line}");
        assert!(line.contains("cost unknown"), "{line}");
        assert_eq!(usd(0.0), "$0 (free)");
        assert_eq!(usd(1.5), "$1.5000");
    }
}
