import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BlockPicker } from "./BlockPicker";
import { BLOCKS } from "./fixtures.test-util";

afterEach(cleanup);

const optionIds = () =>
  Array.from(document.querySelectorAll(".picker-option")).map((o) =>
    o.getAttribute("data-block-id"),
  );

describe("BlockPicker", () => {
  it("opens on focus, filters as you type, and picks with a click", () => {
    const onSelect = vi.fn();
    render(
      <BlockPicker
        kind="persona"
        blocks={BLOCKS}
        selected={[]}
        onSelect={onSelect}
        onRemove={vi.fn()}
      />,
    );
    const input = screen.getByRole("combobox");
    expect(optionIds()).toEqual([]);
    fireEvent.focus(input);
    expect(optionIds()).toEqual(["backend-engineer", "frontend-engineer", "sre"]);
    fireEvent.change(input, { target: { value: "front" } });
    expect(optionIds()).toEqual(["frontend-engineer"]);
    const option = document.querySelector("[data-block-id='frontend-engineer']");
    if (!option) throw new Error("option");
    fireEvent.click(option);
    expect(onSelect).toHaveBeenCalledWith("frontend-engineer");
    expect(optionIds()).toEqual([]);
  });

  it("hides chosen entries of list kinds, shows chips in order, and removes them", () => {
    const onRemove = vi.fn();
    const onMove = vi.fn();
    render(
      <BlockPicker
        kind="stack"
        blocks={BLOCKS}
        selected={["postgresql", "rust"]}
        onSelect={vi.fn()}
        onRemove={onRemove}
        onMove={onMove}
      />,
    );
    const chips = Array.from(document.querySelectorAll(".chip")).map((c) =>
      c.getAttribute("data-block-id"),
    );
    expect(chips).toEqual(["postgresql", "rust"]);
    fireEvent.focus(screen.getByRole("combobox"));
    expect(optionIds()).toEqual(["typescript", "react"]);
    expect(screen.getByText("Languages")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Remove PostgreSQL" }));
    expect(onRemove).toHaveBeenCalledWith("postgresql");
    fireEvent.click(screen.getByRole("button", { name: "Move Rust earlier" }));
    expect(onMove).toHaveBeenCalledWith("rust", -1);
    expect(screen.queryByRole("button", { name: "Move PostgreSQL earlier" })).toBeNull();
  });

  it("picks with the keyboard and removes the last chip with Backspace", () => {
    const onSelect = vi.fn();
    const onRemove = vi.fn();
    render(
      <BlockPicker
        kind="guardrail"
        blocks={BLOCKS}
        selected={["minimal-diff"]}
        onSelect={onSelect}
        onRemove={onRemove}
        onMove={vi.fn()}
      />,
    );
    const input = screen.getByRole("combobox");
    fireEvent.focus(input);
    fireEvent.keyDown(input, { key: "ArrowDown" });
    fireEvent.keyDown(input, { key: "Enter" });
    expect(onSelect).toHaveBeenCalledWith("custom:house-rules");
    fireEvent.keyDown(input, { key: "Backspace" });
    expect(onRemove).toHaveBeenCalledWith("minimal-diff");
  });

  it("shows ids that match no block as unknown chips", () => {
    render(
      <BlockPicker
        kind="format"
        blocks={BLOCKS}
        selected={["gone"]}
        onSelect={vi.fn()}
        onRemove={vi.fn()}
      />,
    );
    const chip = document.querySelector(".chip[data-block-id='gone']");
    expect(chip?.classList.contains("unknown")).toBe(true);
    expect(chip?.getAttribute("title")).toBe("Unknown format: gone");
  });
});
