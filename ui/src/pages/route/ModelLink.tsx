import { modelHash } from "./format";

/** A model's name linking to the Models page (which it opens with the id in the hash). */
export function ModelLink({ id, name }: { id: string; name?: string }) {
  return (
    <a className="model-link" href={modelHash(id)} title={`Open ${id} on the Models page`}>
      {name ?? id}
    </a>
  );
}
