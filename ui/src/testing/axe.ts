// Accessibility check for the UI tests: axe-core over what a test rendered. jsdom has no
// layout, so rules that need it (colour contrast) are left to the real-window e2e runs.
import axe from "axe-core";

/** Every serious or critical axe finding in `root`, one line each (empty: none). */
export async function seriousA11yFindings(root: Element = document.body): Promise<string[]> {
  const results = await axe.run(root, {
    resultTypes: ["violations"],
    rules: { "color-contrast": { enabled: false } },
  });
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((n) => `${v.impact} ${v.id}: ${v.help} — ${n.target.join(" ")}`));
}
