#!/usr/bin/env bash
# Records the transcript fixtures of the real agent CLIs (at the versions the test command
# pins) into crates/core/tests/fixtures/transcripts/real/: each CLI fixes the fixture's bug
# against the scripted model server of crates/engine/tests/real_clis.rs, and its stdout is kept
# as <cli>-<version>.<jsonl|txt>. Run it after changing a pin in scripts/lib.sh, then run the
# core crate's `transcripts` tests and commit the new files (and remove the old versions').
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib.sh
source scripts/lib.sh
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/switchyard/target}"
ensure_agent_clis
out="$PWD/crates/core/tests/fixtures/transcripts/real"
with_session env SWITCHYARD_REQUIRE_AGENT_CLIS=1 SWITCHYARD_RECORD_TRANSCRIPTS="$out" \
  cargo test -q -p switchyard-engine --test real_clis fixes_a_bug -- --test-threads=2
ls -1 "$out"
