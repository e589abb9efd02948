#!/usr/bin/env bash
# Installs whatever is missing and runs every check CI runs: formatting, clippy, the UI's
# typecheck/lint/unit tests, all Rust tests (real SQLite, real keychain under D-Bus, real git),
# the bindings freshness test, the WebDriver end-to-end suite under Xvfb, and the .deb
# installed, launched and removed.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
ensure_disk_space
ensure_apt
ensure_rust
ensure_node
ensure_tauri_driver
ensure_agent_clis

step "cargo fmt --check"
cargo fmt --all -- --check

build_ui

step "cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "UI: typecheck, lint, unit tests"
(cd ui && npm run --silent typecheck && npm run --silent lint && npm run --silent test)

step "the keychain session starts only once the Secret Service answers"
./scripts/tests/session-keyring.sh

step "Rust tests (D-Bus + keychain + Xvfb)"
cargo test --workspace --locked --no-run
with_session env SWITCHYARD_E2E=1 SWITCHYARD_REQUIRE_KEYCHAIN=1 SWITCHYARD_REQUIRE_AGENT_CLIS=1 SWITCHYARD_NO_BACKGROUND_REFRESH=1 xvfb-run -a -s "-screen 0 1280x800x24" \
  cargo test --workspace --locked --no-fail-fast -- --test-threads=2

step "tests over the shared benchmark corpus (../shared/corpus), when it is next to the project"
if [[ -f "$ROOT/../shared/corpus/README.md" ]]; then
  cargo test -p switchyard-core --locked --test catalog_sources --test catalog_corpus --test routing_corpus \
    -- --ignored --skip parse_speed --test-threads=2
else
  echo "skipped: ../shared/corpus is absent (these tests are listed as ignored above)"
fi

step "end-to-end tests in the real window (WebDriver, Xvfb)"
with_session env SWITCHYARD_E2E=1 SWITCHYARD_REQUIRE_KEYCHAIN=1 SWITCHYARD_REQUIRE_AGENT_CLIS=1 SWITCHYARD_NO_BACKGROUND_REFRESH=1 xvfb-run -a -s "-screen 0 1280x800x24" \
  cargo test -p switchyard-desktop --test e2e --locked -- --ignored --test-threads=2

step "a second launch rebuilds nothing"
./scripts/tests/second-launch.sh

step "the .deb installs, its app paints, its CLI answers, and it uninstalls cleanly"
./scripts/tests/package.sh

step "bindings are committed and fresh"
git diff --exit-code -- ui/src/ipc/bindings.ts
echo "all checks passed"
