import "./keys.css";
import { SHORTCUTS, type ShortcutScope } from "./shortcuts";

/** Every shortcut by scope: in the `?` overlay and in Settings. */
export function ShortcutsTable({ id }: { id?: string }) {
  const scopes: ShortcutScope[] = ["Anywhere", "Review"];
  return (
    <div className="shortcuts" id={id}>
      {scopes.map((scope) => (
        <table key={scope} className="shortcuts-table">
          <caption>
            {scope === "Anywhere" ? "Anywhere" : "Review page (an attempt in view)"}
          </caption>
          <tbody>
            {SHORTCUTS.filter((s) => s.scope === scope).map((s) => (
              <tr key={s.binding} data-shortcut={s.binding}>
                <td className="keys">
                  {s.keys.map((k, i) => (
                    <span key={`${k}-${i.toString()}`}>
                      {i > 0 && (s.keys[0] === "g" ? " then " : " + ")}
                      <kbd>{k}</kbd>
                    </span>
                  ))}
                </td>
                <td>{s.action}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </div>
  );
}
