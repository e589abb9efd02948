// The `?` overlay: every shortcut. Loaded on first use, like the palette.
import * as Dialog from "@radix-ui/react-dialog";
import { ShortcutsTable } from "./ShortcutsTable";

export function ShortcutsDialog({
  open,
  onOpenChange,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="shortcuts-overlay" />
        <Dialog.Content
          className="shortcuts-dialog"
          id="shortcuts-dialog"
          aria-describedby={undefined}
        >
          <Dialog.Title>Keyboard shortcuts</Dialog.Title>
          <ShortcutsTable />
          <Dialog.Close className="ghost">Close</Dialog.Close>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
