import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import {
  type CatalogStatus,
  type Category,
  COMPARE_MODELS,
  catalogIpc,
  describeError,
  type ModelSummary,
  type SortKey,
} from "../../ipc";
import { CatalogStatusPanel } from "./CatalogStatusPanel";
import { CompareView } from "./CompareView";
import { FilterBar } from "./FilterBar";
import {
  clearFilters,
  DEFAULT_FILTERS,
  type FilterState,
  isFiltered,
  scoreCategory,
  toggleSort,
  toModelQuery,
} from "./filters";
import { CATEGORY_LABEL } from "./format";
import { ModelDrawer } from "./ModelDrawer";
import { ModelTable } from "./ModelTable";
import { plotPoints } from "./pareto";
import { choosePlotHidden, plotHidden } from "./plotPref";
import { RenderTimer } from "./renderTimer";
import { modelFromHash } from "./route";
import { ScatterPlot } from "./ScatterPlot";
import { useCatalogRefresh } from "./useCatalogRefresh";
import "./models.css";

type Tab = "browse" | "compare" | "status";

interface Listing {
  /** Which query this answers (queries are numbered as they are sent). */
  version: number;
  rows: ModelSummary[];
  /** The category the score column and the plot show for this answer. */
  category: Category;
}

function providerCounts(models: readonly ModelSummary[]): { id: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const m of models) {
    counts.set(m.provider, (counts.get(m.provider) ?? 0) + 1);
  }
  return [...counts.entries()]
    .map(([id, count]) => ({ id, count }))
    .sort((a, b) => b.count - a.count || a.id.localeCompare(b.id));
}

/** The Models page: table + plot, detail drawer, compare, catalog status. */
export function ModelsPage() {
  const root = useRef<HTMLElement>(null);
  const timer = useMemo(() => new RenderTimer(() => root.current), []);
  const [tab, setTab] = useState<Tab>("browse");
  const [filters, setFilters] = useState<FilterState>(DEFAULT_FILTERS);
  const [listing, setListing] = useState<Listing | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const [busy, setBusy] = useState(true);
  const [catalogVersion, setCatalogVersion] = useState(0);
  const [everything, setEverything] = useState<ModelSummary[] | null>(null);
  const [status, setStatus] = useState<CatalogStatus | null>(null);
  const [statusError, setStatusError] = useState<string | null>(null);
  const [openId, setOpenId] = useState<string | null>(() => modelFromHash(window.location.hash));
  const [selected, setSelected] = useState<string[]>([]);
  const [showPlot, setShowPlot] = useState(() => !plotHidden());
  /** Storing the plot choice: `saving`, then `null` or why it failed. */
  const [plotPref, setPlotPref] = useState<{ saving: boolean; error: string | null }>({
    saving: false,
    error: null,
  });
  /** How many choices were made: only the latest one's store ends `saving`. */
  const plotChoices = useRef(0);
  const plotVisible = useRef(showPlot);
  plotVisible.current = showPlot && tab === "browse";
  const sent = useRef(0);
  const filtersNow = useRef(filters);
  filtersNow.current = filters;
  const mounted = useRef(performance.now());

  const reloadCatalog = useCallback(() => setCatalogVersion((v) => v + 1), []);
  const { refresh, startRefresh, acceptHeld } = useCatalogRefresh(reloadCatalog);

  // biome-ignore lint/correctness/useExhaustiveDependencies: catalogVersion re-runs the query after the catalog changed
  useEffect(() => {
    const version = ++sent.current;
    const category = scoreCategory(filters);
    setBusy(true);
    catalogIpc
      .listModels(toModelQuery(filters))
      .then((rows) => {
        if (version !== sent.current) {
          return;
        }
        timer.arrived(version, rows.length, plotVisible.current);
        if (root.current && root.current.dataset.firstDataMs === undefined) {
          root.current.dataset.firstDataMs = (performance.now() - mounted.current).toFixed(1);
        }
        setListing({ version, rows, category });
        if (!isFiltered(filters)) {
          // The unfiltered answer is the whole catalog: no second query for the provider list.
          setEverything(rows);
        }
        setListError(null);
        setBusy(false);
      })
      .catch((e: unknown) => {
        if (version === sent.current) {
          setListError(describeError(e).message);
          setBusy(false);
        }
      });
  }, [filters, catalogVersion, timer]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: catalogVersion reloads after the catalog changed
  useEffect(() => {
    let current = true;
    if (isFiltered(filtersNow.current)) {
      catalogIpc
        .listModels({})
        .then((all) => current && setEverything(all))
        .catch(() => {});
    }
    catalogIpc
      .status()
      .then((s) => {
        if (current) {
          setStatus(s);
          setStatusError(null);
        }
      })
      .catch((e: unknown) => current && setStatusError(describeError(e).message));
    return () => {
      current = false;
    };
  }, [catalogVersion]);

  useLayoutEffect(() => {
    if (listing) {
      timer.tableRendered(listing.version);
    }
  }, [listing, timer]);

  const onPlotRendered = useCallback((version: number) => timer.plotRendered(version), [timer]);
  const onOpen = useCallback((id: string) => setOpenId(id), []);
  const onClose = useCallback(() => {
    setOpenId(null);
    // A drawer opened through `#/models/<id>` (the palette) closes back to the page.
    if (modelFromHash(window.location.hash)) window.location.hash = "#/models";
  }, []);
  useEffect(() => {
    const onHash = () => {
      const id = modelFromHash(window.location.hash);
      if (id) setOpenId(id);
    };
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);
  const onSort = useCallback((sort: SortKey) => setFilters((f) => toggleSort(f, sort)), []);
  const onToggleSelect = useCallback(
    (id: string) =>
      setSelected((list) =>
        list.includes(id)
          ? list.filter((x) => x !== id)
          : list.length >= COMPARE_MODELS.max
            ? list
            : [...list, id],
      ),
    [],
  );

  const rows = listing?.rows ?? [];
  const category = listing?.category ?? scoreCategory(filters);
  const plotData = useMemo(
    () => plotPoints(listing?.rows ?? [], listing?.category ?? "general"),
    [listing],
  );
  const selectedSet = useMemo(() => new Set(selected), [selected]);
  const providers = useMemo(() => providerCounts(everything ?? []), [everything]);
  const total = everything?.length ?? status?.modelCount ?? null;
  const bundledAll = status !== null && status.bundledSources.length > 0;

  const empty = useMemo(
    () =>
      listing === null ? (
        <div className="table-empty">
          {listError ? (
            <p className="error">{listError}</p>
          ) : (
            <p className="muted">Loading the catalog…</p>
          )}
        </div>
      ) : isFiltered(filters) ? (
        <div className="table-empty" id="models-empty">
          <p>No models match these filters.</p>
          <button type="button" onClick={() => setFilters(clearFilters(filters))}>
            Clear filters
          </button>
        </div>
      ) : (
        <div className="table-empty" id="models-empty">
          <p>The catalog is empty.</p>
          <button type="button" onClick={() => setTab("status")}>
            Refresh or import it
          </button>
        </div>
      ),
    [listing, listError, filters],
  );

  return (
    <section className="page models-page" id="models-page" ref={root} data-tab={tab}>
      <header className="page-header models-header">
        <div>
          <h1>Models</h1>
          <p className="muted">
            {listing ? `${rows.length}${total !== null ? ` of ${total}` : ""} models` : "Loading…"}
            {status?.snapshotDate && ` · data up to ${status.snapshotDate}`}
            {bundledAll && (
              <button type="button" className="link small" onClick={() => setTab("status")}>
                {" "}
                · bundled snapshot{status?.bundledDate ? ` of ${status.bundledDate}` : ""}
              </button>
            )}
            {refresh.running && <span className="pill warn refreshing">refreshing…</span>}
          </p>
        </div>
        <nav className="tabs" aria-label="Models views">
          <button
            type="button"
            id="models-tab-browse"
            className={tab === "browse" ? "active" : undefined}
            aria-current={tab === "browse" ? "page" : undefined}
            onClick={() => setTab("browse")}
          >
            Browse
          </button>
          <button
            type="button"
            id="models-tab-compare"
            className={tab === "compare" ? "active" : undefined}
            aria-current={tab === "compare" ? "page" : undefined}
            onClick={() => setTab("compare")}
          >
            Compare{selected.length > 0 && <span className="count">{selected.length}</span>}
          </button>
          <button
            type="button"
            id="models-tab-status"
            className={tab === "status" ? "active" : undefined}
            aria-current={tab === "status" ? "page" : undefined}
            onClick={() => setTab("status")}
          >
            Catalog status
            {status?.sources.some((s) => s.error) && <span className="dot fail" />}
          </button>
        </nav>
      </header>

      <div className="browse" hidden={tab !== "browse"}>
        <FilterBar
          filters={filters}
          onChange={setFilters}
          onClear={() => setFilters(clearFilters(filters))}
          providers={providers}
        />
        {listError && listing && <p className="error">{listError}</p>}
        <div className="plot-card card">
          <div className="card-title-row">
            <h2>
              {CATEGORY_LABEL[category]} quality vs price
              {filters.category === null && (
                <span className="muted small"> (pick a category above)</span>
              )}
            </h2>
            <span className="grow" />
            {plotPref.error && (
              <span className="error small" id="plot-pref-error">
                Not remembered: {plotPref.error}
              </span>
            )}
            <button
              type="button"
              className="link small"
              id="plot-toggle"
              aria-expanded={showPlot}
              data-saving={plotPref.saving}
              onClick={() => {
                const choice = ++plotChoices.current;
                setShowPlot(!showPlot);
                setPlotPref({ saving: true, error: null });
                void choosePlotHidden(showPlot).then((error) => {
                  if (choice === plotChoices.current) setPlotPref({ saving: false, error });
                });
              }}
            >
              {showPlot ? "Hide plot" : "Show plot"}
            </button>
          </div>
          {showPlot && (
            <ScatterPlot
              data={plotData}
              category={category}
              version={listing?.version ?? 0}
              selected={selectedSet}
              onOpen={onOpen}
              onRendered={onPlotRendered}
            />
          )}
        </div>
        <div className="table-card card">
          <ModelTable
            rows={rows}
            category={category}
            filters={filters}
            version={listing?.version ?? 0}
            busy={busy && listing !== null}
            selected={selected}
            openId={openId}
            onSort={onSort}
            onToggleSelect={onToggleSelect}
            onOpen={onOpen}
            empty={empty}
          />
        </div>
        {selected.length > 0 && (
          <div className="compare-tray" id="compare-tray">
            <span>
              {selected.length} selected
              {selected.length < COMPARE_MODELS.min
                ? ` — pick at least ${COMPARE_MODELS.min} to compare`
                : ""}
            </span>
            <button
              type="button"
              id="compare-open"
              disabled={selected.length < COMPARE_MODELS.min}
              onClick={() => setTab("compare")}
            >
              Compare
            </button>
            <button type="button" className="link" onClick={() => setSelected([])}>
              Clear
            </button>
          </div>
        )}
      </div>

      {tab === "compare" && (
        <CompareView
          ids={selected}
          onOpen={onOpen}
          onRemove={onToggleSelect}
          onClear={() => setSelected([])}
        />
      )}
      {tab === "status" && (
        <CatalogStatusPanel
          status={status}
          statusError={statusError}
          refresh={refresh}
          onRefresh={(dir) => void startRefresh(dir)}
          onAccept={(source) => void acceptHeld(source)}
        />
      )}

      {openId && (
        <ModelDrawer
          modelId={openId}
          focus={filters.category}
          status={status}
          selected={selected}
          onToggleSelect={onToggleSelect}
          onClose={onClose}
          onChanged={reloadCatalog}
        />
      )}
    </section>
  );
}
