// After the first frame, as Switchyard's App does.
requestAnimationFrame(() =>
  setTimeout(() => window.__TAURI_INTERNALS__.invoke("first_paint"), 0),
);
