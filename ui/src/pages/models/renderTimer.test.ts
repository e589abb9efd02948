import { describe, expect, it } from "vitest";
import { RenderTimer } from "./renderTimer";

function setup() {
  const root = document.createElement("section");
  let clock = 100;
  const frames: (() => void)[] = [];
  const timer = new RenderTimer(
    () => root,
    () => clock,
    (cb) => frames.push(cb),
  );
  return {
    root,
    timer,
    advance: (ms: number) => {
      clock += ms;
    },
    frame: () => frames.shift()?.(),
  };
}

describe("RenderTimer", () => {
  it("measures from data arrival to the frame after table and plot rendered", () => {
    const { root, timer, advance, frame } = setup();
    timer.arrived(1, 334, true);
    advance(20);
    timer.tableRendered(1);
    advance(30);
    timer.plotRendered(1);
    expect(root.dataset.renderMs).toBeUndefined();
    advance(12);
    frame();
    expect(root.dataset.renderMs).toBe("62.0");
    expect(root.dataset.firstRenderMs).toBe("62.0");
    expect(root.dataset.renderRows).toBe("334");
    expect(root.dataset.renderTableMs).toBe("20.0");
    expect(root.dataset.renderPlotMs).toBe("50.0");
  });

  it("ignores renders of an older query and keeps the first figure", () => {
    const { root, timer, advance, frame } = setup();
    timer.arrived(1, 10, true);
    timer.tableRendered(1);
    timer.plotRendered(1);
    advance(5);
    frame();
    timer.arrived(2, 3, true);
    timer.plotRendered(1);
    timer.tableRendered(2);
    expect(frame()).toBeUndefined();
    timer.plotRendered(2);
    advance(7);
    frame();
    expect(root.dataset.renderMs).toBe("7.0");
    expect(root.dataset.firstRenderMs).toBe("5.0");
    expect(root.dataset.renderVersion).toBe("2");
  });

  it("does not wait for a hidden plot", () => {
    const { root, timer, frame } = setup();
    timer.arrived(4, 1, false);
    timer.tableRendered(4);
    frame();
    expect(root.dataset.renderMs).toBe("0.0");
  });
});
