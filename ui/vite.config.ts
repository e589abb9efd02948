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

/**
 * The UI is written against React's API and runs on Preact's compat layer: react-dom alone was
 * 207 KB of the 251 KB entry chunk the window parses before its first paint. Types still come
 * from `@types/react`; every module that imports React (ours, cmdk, Radix, TanStack Virtual)
 * gets Preact instead. The tests render through Preact's Testing Library (src/testing/library.ts).
 */
const preactInPlaceOfReact = [
  { find: /^react$/, replacement: "preact/compat" },
  { find: /^react-dom$/, replacement: "preact/compat" },
  { find: /^react-dom\/client$/, replacement: "preact/compat/client" },
  { find: /^react-dom\/server$/, replacement: "preact/compat/server" },
  { find: /^react-dom\/test-utils$/, replacement: "preact/test-utils" },
  { find: /^react\/jsx-runtime$/, replacement: "preact/compat/jsx-runtime" },
  { find: /^react\/jsx-dev-runtime$/, replacement: "preact/compat/jsx-dev-runtime" },
];

export default defineConfig({
  plugins: [react(), tslibUnderFrozenPrototype()],
  resolve: { alias: preactInPlaceOfReact },
  clearScreen: false,
  build: { outDir: "dist", target: "es2022", sourcemap: false },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.{ts,tsx}"],
    // Transformed like the app's bundle (not loaded by Node as is), so the tslib fix above is
    // what chart.test.ts checks.
    server: {
      deps: {
        inline: [
          "echarts",
          "zrender",
          "tslib",
          // Inlined so the aliases above reach them.
          /cmdk/,
          /@radix-ui/,
          /@tanstack/,
          /@testing-library/,
          /@pierre/,
        ],
      },
    },
  },
});
