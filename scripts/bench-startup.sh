#!/usr/bin/env bash
# Measures cold start to first paint (median of 5) and idle memory of the release build.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
ensure_apt
ensure_node
build_ui
cargo build --release -p switchyard-desktop --features custom-protocol
xvfb-run -a -s "-screen 0 1280x800x24" python3 scripts/bench_startup.py \
  "$CARGO_TARGET_DIR/release/switchyard-desktop"
