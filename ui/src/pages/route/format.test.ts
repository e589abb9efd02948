import { describe, expect, it } from "vitest";
import {
  assistNote,
  describeRejections,
  evidence,
  modelLabel,
  parseMaxPrice,
  reasonFacts,
  signalChips,
  signed,
} from "./format";
import { classification, outcomeEvidence, reason } from "./testdata.test-util";

describe("reasonFacts", () => {
  it("quotes the numbers behind the score", () => {
    const facts = reasonFacts(
      reason({ feedbackAdjustment: -4.3, feedbackCount: 1, feedbackMean: 1, contextBoost: 1.2 }),
      outcomeEvidence(),
    );
    const value = (label: string) => facts.find((f) => f.label === label);
    expect(value("Coding score")?.value).toBe("87.3");
    expect(value("Coverage")?.value).toBe("80%");
    expect(value("Missing evidence")).toMatchObject({ value: "−1.6", tone: "down" });
    expect(value("Feedback")).toMatchObject({
      value: "−4.3 from 1 rating (mean 1.0)",
      tone: "down",
    });
    expect(value("Context")).toMatchObject({ value: "+1.2", tone: "up" });
    expect(value("Price")?.value).toBe("$3.00 in · $15.00 out /M");
    expect(value("Rank")?.value).toBe("#1 of 57");
    expect(value("Outcomes")?.value).toBe("no outcomes yet");
    expect(value("Per verified success")?.value).toBe("$7.00/M");
  });

  it("shows what recorded outcomes did to the score", () => {
    const facts = reasonFacts(
      reason({ learnedAdjustment: -31.2, estimatedSuccess: 0.5 }),
      outcomeEvidence({ successes: 2, failures: 7, prior: 0.8, estimate: 0.5 }),
    );
    const value = (label: string) => facts.find((f) => f.label === label);
    expect(value("Outcomes")).toMatchObject({ value: "−31.2 from 2 of 9 verified", tone: "down" });
    expect(value("Est. success")?.value).toBe("50% (prior 80%)");
  });

  it("leaves out adjustments that are zero, and says when nobody rated", () => {
    const facts = reasonFacts(reason({ coverageAdjustment: 0 }), outcomeEvidence());
    expect(facts.map((f) => f.label)).not.toContain("Missing evidence");
    expect(facts.map((f) => f.label)).not.toContain("Context");
    expect(facts.find((f) => f.label === "Feedback")?.value).toBe("no ratings");
  });
});

describe("formatting", () => {
  it("signs points", () => {
    expect(signed(1.24)).toBe("+1.2");
    expect(signed(-0.04)).toBe("0.0");
    expect(signed(-2)).toBe("−2.0");
  });

  it("lists the deciding features strongest first with their weights", () => {
    expect(evidence(classification())).toEqual([
      { label: "unit tests", weight: "+1.42", named: false },
      { label: "function", weight: "+0.90", named: false },
      { label: "code-like token", weight: "+0.31", named: true },
    ]);
    expect(modelLabel(classification())).toBe("classifier lr-1 (sha256 031dc666…)");
    expect(modelLabel(classification({ model: null }))).toContain("lexicon");
  });

  it("says when a language model decided", () => {
    expect(assistNote(classification())).toBeNull();
    const assisted = classification({
      category: "math",
      assist: {
        model: "ollama:qwen3",
        localCategory: "general",
        localConfidence: 0.42,
        cached: false,
      },
    });
    expect(assistNote(assisted)).toBe(
      "decided by ollama:qwen3; the classifier said General, 42% sure",
    );
  });

  it("shows signals as chips", () => {
    const chips = signalChips(
      classification({
        signals: {
          needs: { vision: true, longContext: 120000, tools: false, structuredOutput: false },
          stack: ["rust"],
          hints: { speed: true, cost: false, critical: false, production: false },
        },
      }),
    );
    expect(chips).toEqual(["needs vision", "~120k context", "rust", "quick"]);
  });

  it("parses the max price", () => {
    expect(parseMaxPrice("")).toBeNull();
    expect(parseMaxPrice(" $2.5 ")).toBe(2.5);
    expect(parseMaxPrice("cheap")).toBeUndefined();
    expect(parseMaxPrice("-1")).toBeUndefined();
  });
});

describe("describeRejections", () => {
  it("names only the filters that left models out", () => {
    const none = {
      overBudget: 0,
      notInCategory: 0,
      noVision: 0,
      shortContext: 0,
      noTools: 0,
      noStructuredOutput: 0,
      unusable: 0,
    };
    expect(describeRejections(none, "coding")).toBeNull();
    expect(describeRejections({ ...none, overBudget: 3, unusable: 40 }, "fastCheap")).toBe(
      "Left out: 3 outside the budget, 40 without a key or endpoint.",
    );
  });
});
