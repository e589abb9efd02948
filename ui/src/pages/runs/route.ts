// Views inside the Runs page, in the hash after `#/runs`.

export type RunsRoute = { view: "list" } | { view: "new" } | { view: "run"; id: string };

const ID = /^[A-Za-z0-9_-]{1,80}$/;

/** `#/runs` → list (with spend), `#/runs/new` → launch form, `#/runs/<id>` → one run. */
export function runsRoute(hash: string): RunsRoute {
  const parts = hash.replace(/^#\/?/, "").split(/[/?]/).filter(Boolean);
  if (parts[0] !== "runs") return { view: "list" };
  const first = parts[1];
  if (first === "new") return { view: "new" };
  if (first && ID.test(first)) return { view: "run", id: first };
  return { view: "list" };
}

export function runsHash(route: RunsRoute): string {
  switch (route.view) {
    case "list":
      return "#/runs";
    case "new":
      return "#/runs/new";
    case "run":
      return `#/runs/${route.id}`;
  }
}
