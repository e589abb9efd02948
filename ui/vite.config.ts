import react from "@vitejs/plugin-react";
import type { Plugin } from "vite";
import { defineConfig } from "vitest/config";

/**
 * The app runs with Tauri's `freezePrototype`, which freezes `Object.prototype`. tslib's
 * `__extends` (used by ECharts and zrender) gives each class prototype an enumerable own
 * `constructor` by assignment; ECharts then copies prototype keys onto plain objects, and
 * `obj.constructor = …` on an object inheriting the frozen one throws. Defining the property
 * instead makes it non-enumerable, as native classes have it.
 */
function tslibUnderFrozenPrototype(): Plugin {
  const assign = "function __() { this.constructor = d; }";
  const define =
    'function __() { Object.defineProperty(this, "constructor", { value: d, writable: true, configurable: true }); }';
  return {
    name: "tslib-under-frozen-prototype",
    transform(code, id) {
      if (!/[\\/]tslib[\\/]/.test(id) || !code.includes(assign)) {
        return null;
      }
      return { code: code.replace(assign, define), map: null };
    },
  };
}

export default defineConfig({
  plugins: [react(), tslibUnderFrozenPrototype()],
  clearScreen: false,
  build: { outDir: "dist", target: "es2022", sourcemap: false },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.{ts,tsx}"],
    // Transformed like the app's bundle (not loaded by Node as is), so the tslib fix above is
    // what chart.test.ts checks.
    server: { deps: { inline: ["echarts", "zrender", "tslib"] } },
  },
});
