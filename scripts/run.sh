#!/usr/bin/env bash
# Installs whatever is missing, builds the app in release mode and launches it.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
ensure_apt
ensure_rust
ensure_node
build_ui
step "building and launching Switchyard"
cargo build --release -p switchyard-desktop --features custom-protocol
exec "$CARGO_TARGET_DIR/release/switchyard-desktop" "$@"
