// Whether the Models page shows its quality-vs-price plot. Rust stores the choice
// (`UiPrefs.plotHidden`) and hands it to the page at start, so a plot the user hid stays hidden
// at the next start and its charting library is not loaded at all then.
import { describeError, ipc } from "../../ipc";
import { startupPrefs } from "../../theme";

/** The choice made since the app started; `null`: none yet, the stored one holds. */
let chosen: boolean | null = null;

/** Whether the plot is hidden: the choice made in this session, else the stored one. */
export function plotHidden(): boolean {
  return chosen ?? startupPrefs()?.plotHidden === true;
}

/** The stores asked for, one after another, so the last choice is the one stored. */
let storing: Promise<string | null> = Promise.resolve(null);

/**
 * Remembers `hidden` for this session at once (a page opened again keeps it) and stores it
 * after any store still under way. Resolves to why it could not be stored, or `null`.
 */
export function choosePlotHidden(hidden: boolean): Promise<string | null> {
  chosen = hidden;
  // Never rejects (a failure resolves to its message), so the chain goes on after one.
  const stored = storing.then(() =>
    ipc.setPlotHidden(hidden).then(
      () => null,
      (e: unknown) => describeError(e).message,
    ),
  );
  storing = stored;
  return stored;
}
