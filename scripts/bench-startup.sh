#!/usr/bin/env bash
# Start-up and idle memory of Switchyard against the smallest Tauri 2 app built the same way
# (benches/empty-app: same Tauri, lockfile, release profile, CSP and WebKit compositing
# setting), in one run, alternating, under Xvfb: cold start to first paint (median of RUNS,
# default 10) and idle PSS of each app and its WebKit processes after IDLE_SECONDS (default 8).
# Prints both ratios against the targets (first paint ≤ 1.5×, idle PSS ≤ 1.1×).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
ensure_apt
ensure_rust
ensure_node
build_ui
step "building Switchyard and its CLI (release)"
cargo build --release --locked -p switchyard-desktop --features custom-protocol
cargo build --release --locked -p switchyard-cli
step "building the empty Tauri app (release, Switchyard's lockfile)"
cp Cargo.lock benches/empty-app/Cargo.lock
cargo build --release --manifest-path benches/empty-app/Cargo.toml --features custom-protocol
step "measuring"
xvfb-run -a -s "-screen 0 1280x800x24" python3 scripts/bench_startup.py \
  "$CARGO_TARGET_DIR/release/switchyard-desktop" \
  "$CARGO_TARGET_DIR/release/switchyard-empty-app" \
  "$CARGO_TARGET_DIR/release/switchyard"
