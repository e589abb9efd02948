import { describe, expect, it } from "vitest";
import {
  formatContext,
  formatEfficiency,
  formatPrice,
  formatScore,
  formatSeconds,
  formatShare,
  formatSpeed,
  ruleLabel,
  UNKNOWN,
} from "./format";
import { formatRaw, metricRegistry } from "./metrics";
import { CATALOG_METRICS } from "./testdata";

describe("formatPrice", () => {
  it("shows free, cents with two significant digits, dollars with two decimals", () => {
    expect(formatPrice(0)).toBe("free");
    expect(formatPrice(0.004)).toBe("$0.004");
    expect(formatPrice(0.15)).toBe("$0.15");
    expect(formatPrice(0.1234)).toBe("$0.12");
    expect(formatPrice(3)).toBe("$3.00");
    expect(formatPrice(10.5)).toBe("$10.50");
    expect(formatPrice(150.4)).toBe("$150");
  });

  it("never shows an unknown price as zero", () => {
    expect(formatPrice(null)).toBe(UNKNOWN);
    expect(formatPrice(undefined)).toBe(UNKNOWN);
    expect(formatPrice(-1)).toBe(UNKNOWN);
    expect(formatPrice(Number.NaN)).toBe(UNKNOWN);
  });
});

describe("formatContext", () => {
  it("uses k and M", () => {
    expect(formatContext(1_000_000)).toBe("1M");
    expect(formatContext(1_048_576)).toBe("1M");
    expect(formatContext(2_500_000)).toBe("2.5M");
    expect(formatContext(200_000)).toBe("200k");
    expect(formatContext(131_072)).toBe("131k");
    expect(formatContext(4096)).toBe("4k");
    expect(formatContext(512)).toBe("512");
    expect(formatContext(null)).toBe(UNKNOWN);
    expect(formatContext(0)).toBe(UNKNOWN);
  });
});

describe("other formats", () => {
  it("formats speed, seconds, scores, shares and efficiency", () => {
    expect(formatSpeed(55.934)).toBe("56 tok/s");
    expect(formatSeconds(0.8412)).toBe("0.84 s");
    expect(formatSeconds(12.4)).toBe("12 s");
    expect(formatScore(80.6)).toBe("81");
    expect(formatScore(null)).toBe(UNKNOWN);
    expect(formatShare(0.4285)).toBe("43%");
    expect(formatEfficiency(8.099)).toBe("8.1");
    expect(formatEfficiency(245.4)).toBe("245");
    expect(formatEfficiency(8012)).toBe("8.0k");
    expect(formatEfficiency(80_120)).toBe("80k");
  });

  it("formats raw metric values in the unit the engine's registry gives", () => {
    const registry = metricRegistry(CATALOG_METRICS);
    const unit = (id: string) => registry.info(id).unit;
    expect(formatRaw(0.932, unit("aa.gpqa"))).toBe("93.2%");
    expect(formatRaw(1492.4, unit("lmarena.overall"))).toBe("1492");
    expect(formatRaw(78, unit("aa.coding_index"))).toBe("78.0");
    expect(formatRaw(10, unit("openrouter.price"))).toBe("$10.00");
    expect(formatRaw(1_000_000, unit("openrouter.context"))).toBe("1M");
    expect(formatRaw(null, "score")).toBe(UNKNOWN);
  });

  it("labels metrics from the registry, unknown ones by their id, and every rule", () => {
    const registry = metricRegistry(CATALOG_METRICS);
    expect(registry.info("aa.gpqa")).toMatchObject({ label: "GPQA Diamond (AA)", symbol: "0–1" });
    expect(registry.info("aa.new_eval").label).toBe("aa.new_eval");
    expect(registry.minCoverage).toBe(0.2);
    expect(ruleLabel("wordOrder")).toBe("same words, other order");
    expect(ruleLabel("localFamilySize")).toBe("same family and size (local)");
  });
});
