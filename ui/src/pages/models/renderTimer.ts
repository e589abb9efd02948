// Measures how long the page takes from data arrival to the frame after the table and the
// plot have rendered that data, and writes it on the page root as `data-render-ms` (the
// first measurement also as `data-first-render-ms`). Plain object, no React state: writing
// the figure must not cause another render.

interface Pending {
  version: number;
  start: number;
  rows: number;
  table: boolean;
  plot: boolean;
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
    this.pending = { version, start: this.now(), rows, table: false, plot: !plotShown };
  }

  /** The table committed `version`. */
  tableRendered(version: number): void {
    if (this.pending?.version === version) {
      this.pending.table = true;
      this.finishIfDone();
    }
  }

  /** The plot drew `version`. */
  plotRendered(version: number): void {
    if (this.pending?.version === version) {
      this.pending.plot = true;
      this.finishIfDone();
    }
  }

  private finishIfDone(): void {
    const pending = this.pending;
    if (!pending?.table || !pending.plot) {
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
      root.dataset.renderVersion = String(pending.version);
      if (this.measured === 0) {
        root.dataset.firstRenderMs = ms;
      }
      this.measured += 1;
    });
  }
}
