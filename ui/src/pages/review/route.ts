// Views inside the Review page, in the hash after `#/review`.

export type ReviewRoute =
  | { view: "list" }
  | { view: "new" }
  | { view: "attempt"; id: string }
  | { view: "compare"; id: string };

const ID = /^[A-Za-z0-9_-]{1,80}$/;

/** `#/review` → list, `#/review/new`, `#/review/<id>`, `#/review/compare/<id>`. */
export function reviewRoute(hash: string): ReviewRoute {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  if (parts[0] !== "review") return { view: "list" };
  const [, first, second] = parts;
  if (first === "new") return { view: "new" };
  if (first === "compare" && second && ID.test(second)) return { view: "compare", id: second };
  if (first && ID.test(first)) return { view: "attempt", id: first };
  return { view: "list" };
}

export function reviewHash(route: ReviewRoute): string {
  switch (route.view) {
    case "list":
      return "#/review";
    case "new":
      return "#/review/new";
    case "attempt":
      return `#/review/${route.id}`;
    case "compare":
      return `#/review/compare/${route.id}`;
  }
}
