import { useMemo } from "react";
import type { FileChange } from "../../../ipc";
import { collapseReason, fileNotes, fileTree, type TreeNode } from "./model";

interface Props {
  files: readonly FileChange[];
  selected: string | null;
  onSelect: (path: string) => void;
}

/** The changed files as a folder tree with +/− counts; a click scrolls the diff to the file. */
export function FileTree({ files, selected, onSelect }: Props) {
  const tree = useMemo(() => fileTree(files), [files]);
  if (files.length === 0) {
    return <p className="muted small">No files changed.</p>;
  }
  return (
    <ul className="file-tree" aria-label="Changed files">
      {tree.map((node) => (
        <TreeRow
          key={node.path}
          node={node}
          files={files}
          selected={selected}
          onSelect={onSelect}
        />
      ))}
    </ul>
  );
}

function TreeRow({
  node,
  files,
  selected,
  onSelect,
}: {
  node: TreeNode;
  files: readonly FileChange[];
  selected: string | null;
  onSelect: (path: string) => void;
}) {
  const counts = (
    <span className="tree-counts">
      <span className="add">+{node.additions}</span> <span className="del">−{node.deletions}</span>
    </span>
  );
  if (node.file === null) {
    return (
      <li className="tree-folder">
        <span className="tree-name" title={node.path}>
          {node.name}/
        </span>
        {counts}
        <ul>
          {node.children.map((child) => (
            <TreeRow
              key={child.path}
              node={child}
              files={files}
              selected={selected}
              onSelect={onSelect}
            />
          ))}
        </ul>
      </li>
    );
  }
  const file = files[node.file];
  const status = file?.status ?? "modified";
  const muted = file ? collapseReason(file.path) !== null : false;
  const notes = file
    ? fileNotes(file)
        .map((n) => n.text)
        .join("; ")
    : "";
  return (
    <li className="tree-file">
      <button
        type="button"
        className={`tree-name status-${status}${selected === node.path ? " selected" : ""}${muted ? " dim" : ""}`}
        data-tree-file={node.path}
        title={notes ? `${node.path} — ${notes}` : node.path}
        onClick={() => onSelect(node.path)}
      >
        <span className={`status-letter status-${status}`} title={status}>
          {STATUS_LETTER[status] ?? "M"}
        </span>
        {node.name}
      </button>
      {counts}
    </li>
  );
}

const STATUS_LETTER: Record<string, string> = {
  added: "A",
  modified: "M",
  deleted: "D",
  renamed: "R",
  copied: "C",
  typeChanged: "T",
};
