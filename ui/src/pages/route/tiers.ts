// The budget tiers the forms offer, as Rust defines them (asked once, then shared).
import { useEffect, useState } from "react";
import type { BudgetTierView } from "../../ipc";
import { routeIpc } from "./api";

let asked: Promise<BudgetTierView[]> | null = null;

/** The tiers, cheapest first; empty until Rust has answered. */
export function useBudgetTiers(): BudgetTierView[] {
  const [tiers, setTiers] = useState<BudgetTierView[]>([]);
  useEffect(() => {
    let live = true;
    asked ??= routeIpc.budgetTiers();
    asked.then(
      (found) => {
        if (live) setTiers(found);
      },
      () => {
        // Asked again on the next mount.
        asked = null;
      },
    );
    return () => {
      live = false;
    };
  }, []);
  return tiers;
}
