#!/usr/bin/env bash
# Installs whatever is missing, builds the app in release mode and launches it.
# `--build-only` stops after the build (used by the test that a second launch rebuilds nothing).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
build_only=""
if [ "${1:-}" = "--build-only" ]; then
  build_only=1
  shift
fi
ensure_disk_space
ensure_apt
ensure_rust
ensure_node
build_ui
step "building Switchyard"
cargo build --release -p switchyard-desktop --features custom-protocol
[ -n "$build_only" ] && exit 0
step "launching Switchyard"
exec "$CARGO_TARGET_DIR/release/switchyard-desktop" "$@"
