import type { KeychainProblem } from "./status";

interface KeychainBannerProps {
  problem: KeychainProblem;
  checking: boolean;
  onCheck: () => void;
}

/** Says exactly why no key can be stored and how to fix it. There is no plaintext fallback. */
export function KeychainBanner({ problem, checking, onCheck }: KeychainBannerProps) {
  return (
    <div className="keychain-banner" id="keychain-banner" role="alert">
      <div className="banner-head">
        <span className="dot fail" aria-hidden="true" />
        <strong>No keychain available: keys cannot be stored</strong>
        <span className="grow" />
        <button type="button" onClick={onCheck} disabled={checking} id="keychain-check">
          {checking ? "Checking…" : "Check again"}
        </button>
      </div>
      <p className="mono small banner-reason" id="keychain-reason">
        {problem.reason}
      </p>
      <ul className="banner-fixes">
        {problem.fixes.map((fix) => (
          <li key={fix}>{withCode(fix)}</li>
        ))}
      </ul>
    </div>
  );
}

/** Renders `backticked` parts of a fix as code. */
function withCode(text: string) {
  return text.split("`").map((part, i) => (i % 2 === 1 ? <code key={part}>{part}</code> : part));
}
