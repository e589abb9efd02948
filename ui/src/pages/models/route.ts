// One model's drawer in the hash: `#/models/<id>` (the id URI-encoded: ids hold slashes).

/** The hash that opens model `id` on the Models page. */
export function modelHash(id: string): string {
  return `#/models/${encodeURIComponent(id)}`;
}

/** The model `#/models/<id>` names, or `null`. */
export function modelFromHash(hash: string): string | null {
  const match = /^#\/models\/(.+)$/.exec(hash);
  if (!match?.[1]) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}
