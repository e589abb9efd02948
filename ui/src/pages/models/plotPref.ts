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

/**
 * Remembers `hidden` for this session at once (a page opened again keeps it) and stores it.
 * Resolves to why it could not be stored, or `null`.
 */
export async function choosePlotHidden(hidden: boolean): Promise<string | null> {
  chosen = hidden;
  try {
    await ipc.setPlotHidden(hidden);
    return null;
  } catch (e) {
    return describeError(e).message;
  }
}
