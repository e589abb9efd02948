// Measures how long the page takes from data arrival to the frame after the table and the
// plot have rendered that data, and writes it on the page root as `data-render-ms` (the
// first measurement also as `data-first-render-ms`; `data-render-table-ms` and
// `data-render-plot-ms` say when each part was done). Plain object, no React state: writing
// the figure must not cause another render.

interface Pending {
  version: number;
  start: number;
  rows: number;
  /** When the table, and the plot, had rendered (`null` = not yet). */
  table: number | null;
  plot: number | null;
}

export class RenderTimer {
  private pending: Pending | null = null;
  private measured = 0;

  constructor(
    private readonly root: () => HTMLElement | null,
    private readonly now: () => number = () => performance.now(),
    private readonly nextFrame: (callback: () => void) => void = (cb) =>
      requestAnimationFrame(() => cb()),
  ) {}

  /** Data for `version` arrived; `plotShown` = whether the plot has to draw it too. */
  arrived(version: number, rows: number, plotShown: boolean): void {
    const start = this.now();
    this.pending = { version, start, rows, table: null, plot: plotShown ? null : start };
  }

  /** The table committed `version`. */
  tableRendered(version: number): void {
    if (this.pending?.version === version) {
      this.pending.table = this.now();
      this.finishIfDone();
    }
  }

  /** The plot drew `version`. */
  plotRendered(version: number): void {
    if (this.pending?.version === version) {
      this.pending.plot = this.now();
      this.finishIfDone();
    }
  }

  private finishIfDone(): void {
    const pending = this.pending;
    if (pending?.table == null || pending.plot == null) {
      return;
    }
    this.pending = null;
    this.nextFrame(() => {
      const ms = (this.now() - pending.start).toFixed(1);
      const root = this.root();
      if (!root) {
        return;
      }
      root.dataset.renderMs = ms;
      root.dataset.renderRows = String(pending.rows);
      root.dataset.renderTableMs = ((pending.table ?? pending.start) - pending.start).toFixed(1);
      root.dataset.renderPlotMs = ((pending.plot ?? pending.start) - pending.start).toFixed(1);
      root.dataset.renderVersion = String(pending.version);
      if (this.measured === 0) {
        root.dataset.firstRenderMs = ms;
      }
      this.measured += 1;
    });
  }
}
