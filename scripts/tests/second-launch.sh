#!/usr/bin/env bash
# Regression test: launching twice in a row must not rebuild anything the second time (the UI
# build used to rewrite ui/dist on every launch, which re-ran Tauri's build script and
# recompiled the desktop crate: ~90 s per launch on two cores).
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$ROOT"
./scripts/run.sh --build-only >/dev/null 2>&1 || { echo "FAIL: first build failed" >&2; exit 1; }
second="$(./scripts/run.sh --build-only 2>&1)" || { echo "FAIL: second build failed: $second" >&2; exit 1; }
failed=0
if ! grep -q "UI unchanged" <<<"$second"; then
  echo "FAIL: the second launch rebuilt the UI" >&2; failed=1
fi
if grep -q "Compiling" <<<"$second"; then
  echo "FAIL: the second launch recompiled Rust:" >&2; grep "Compiling" <<<"$second" >&2; failed=1
fi
if [ "$failed" -ne 0 ]; then
  echo "second-launch: 0 passed, 1 failed"; exit 1
fi
echo "second-launch: 1 passed, 0 failed"
