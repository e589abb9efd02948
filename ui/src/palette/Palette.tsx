// The command palette (Ctrl+K / Cmd+K): jump to a page, model, run or attempt, or run an
// action. cmdk does the list, filtering and keyboard handling; loaded on first use, so it
// costs the first paint nothing.
import * as Dialog from "@radix-ui/react-dialog";
import { Command } from "cmdk";
import { useEffect, useMemo, useRef, useState } from "react";
import {
  type AgentConfig,
  agentsIpc,
  catalogIpc,
  describeError,
  ipc,
  type PaletteEntry,
} from "../ipc";
import { copyText } from "../pages/roles/clipboard";
import { requestDecision } from "./commands";
import { type PaletteEffect, type PaletteGroup, paletteItems } from "./entries";
import "./palette.css";

const GROUPS: readonly PaletteGroup[] = ["Actions", "Pages", "Attempts", "Runs", "Models"];

export function Palette({
  open,
  onOpenChange,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const [entries, setEntries] = useState<PaletteEntry[]>([]);
  const [snippets, setSnippets] = useState<AgentConfig[]>([]);
  const [note, setNote] = useState<string | null>(null);
  const [hash, setHash] = useState(window.location.hash);

  useEffect(() => {
    if (!open) return;
    let gone = false;
    setHash(window.location.hash);
    setNote(null);
    void (async () => {
      const [found, connect] = await Promise.all([
        ipc.paletteEntries().catch((e) => {
          setNote(`Models, runs and attempts could not be listed: ${describeError(e).message}`);
          return [];
        }),
        agentsIpc.connectConfigs().catch(() => null),
      ]);
      if (gone) return;
      setEntries(found);
      setSnippets(connect?.configs ?? []);
    })();
    return () => {
      gone = true;
    };
  }, [open]);

  const items = useMemo(() => paletteItems(hash, entries, snippets), [hash, entries, snippets]);
  // A choice runs once the palette has closed and let go of the focus, so the focus goes
  // where the choice leads (the page, a confirmation), not back to where it was before.
  const pending = useRef<PaletteEffect | null>(null);

  const choose = (effect: PaletteEffect) => {
    pending.current = effect;
    onOpenChange(false);
  };

  const run = async (effect: PaletteEffect) => {
    switch (effect.kind) {
      case "go":
        window.location.hash = effect.hash;
        return;
      case "decide":
        requestDecision(effect.decision);
        return;
      case "refreshCatalog":
        window.location.hash = "#/models";
        await catalogIpc.refresh().catch(() => undefined);
        return;
      case "copy":
        await copyText(effect.text);
        return;
    }
  };

  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="palette-overlay" />
        <Dialog.Content
          className="palette-content"
          aria-describedby={undefined}
          onCloseAutoFocus={(event) => {
            const effect = pending.current;
            pending.current = null;
            if (effect) {
              event.preventDefault();
              void run(effect);
            }
          }}
        >
          <Dialog.Title className="sr-only">Command palette</Dialog.Title>
          <Command label="Command palette" className="palette" loop>
            <Command.Input placeholder="Go to a page, model, run or attempt, or run an action…" />
            <Command.List>
              <Command.Empty>Nothing matches.</Command.Empty>
              {note && <p className="palette-note small">{note}</p>}
              {GROUPS.map((group) => {
                const inGroup = items.filter((i) => i.group === group);
                if (inGroup.length === 0) return null;
                return (
                  <Command.Group key={group} heading={group}>
                    {inGroup.map((item) => (
                      <Command.Item
                        key={item.key}
                        value={item.key}
                        keywords={[item.label, item.detail, ...item.keywords]}
                        data-entry={item.key}
                        onSelect={() => choose(item.effect)}
                      >
                        <span className="palette-label">{item.label}</span>
                        <span className="palette-detail">{item.detail}</span>
                      </Command.Item>
                    ))}
                  </Command.Group>
                );
              })}
            </Command.List>
            <p className="palette-hint small">
              <kbd>↑</kbd> <kbd>↓</kbd> to move, <kbd>Enter</kbd> to choose, <kbd>Esc</kbd> to close
            </p>
          </Command>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
