# Shared by run.sh and test.sh: install what is missing, idempotently.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/switchyard/target}"
export PATH="$HOME/.cargo/bin:$PATH"

APT_PACKAGES=(
  build-essential pkg-config libssl-dev libwebkit2gtk-4.1-dev libgtk-3-dev libsoup-3.0-dev
  libjavascriptcoregtk-4.1-dev librsvg2-dev libayatana-appindicator3-dev xvfb xauth
  webkit2gtk-driver dbus dbus-x11 gnome-keyring libsecret-1-dev libsecret-tools git
  imagemagick x11-apps file bubblewrap socat python3-venv procps
)
TAURI_DRIVER_VERSION=2.1.0

step() { printf '\n==> %s\n' "$*"; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

ensure_apt() {
  local missing=()
  for pkg in "${APT_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$pkg")
    fi
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    step "installing system packages: ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
  fi
}

# CI once died in npm ci with "no space left on device" before building anything. The build
# cache outside the clone is ours and can be rebuilt, so when the disk is low we give back
# what we own (incremental state first, then the whole cache and npm's download cache) and
# stop with a plain message only if that was not enough.
DISK_WANT_GB="${SWITCHYARD_DISK_WANT_GB:-10}"
DISK_NEED_GB="${SWITCHYARD_DISK_NEED_GB:-6}"
free_gb() {
  local dir="$1"
  while [ ! -e "$dir" ]; do dir="$(dirname "$dir")"; done
  df -Pk "$dir" | awk 'NR==2 { printf "%d", $4 / 1048576 }'
}
ensure_disk_space() {
  # Once per run: the second-launch test calls run.sh, and clearing the cache between its two
  # builds would make it fail for the wrong reason.
  [ -n "${SWITCHYARD_DISK_CHECKED:-}" ] && return 0
  export SWITCHYARD_DISK_CHECKED=1
  local where
  for where in "$ROOT" "$CARGO_TARGET_DIR"; do
    if [ "$(free_gb "$where")" -ge "$DISK_WANT_GB" ]; then continue; fi
    step "only $(free_gb "$where") GB free near $where: clearing Switchyard's own build caches"
    find "$CARGO_TARGET_DIR" -maxdepth 3 -type d -name incremental -prune -exec rm -rf {} + 2>/dev/null || true
    if [ "$(free_gb "$where")" -lt "$DISK_WANT_GB" ]; then
      rm -rf "$CARGO_TARGET_DIR"
      npm cache clean --force >/dev/null 2>&1 || true
    fi
    if [ "$(free_gb "$where")" -lt "$DISK_NEED_GB" ]; then
      echo "not enough disk space: $(free_gb "$where") GB free near $where, the build and tests need about $DISK_NEED_GB GB" >&2
      df -h "$where" >&2 || true
      exit 1
    fi
  done
}

ensure_rust() {
  if ! command -v cargo >/dev/null 2>&1; then
    echo "cargo not found: install Rust with rustup (the toolchain is pinned in rust-toolchain.toml)" >&2
    exit 1
  fi
}

ensure_node() {
  if ! command -v npm >/dev/null 2>&1; then
    step "installing Node.js and npm"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm
  fi
  local stamp="$ROOT/ui/node_modules/.switchyard-lock"
  local want
  want="$(sha256sum "$ROOT/ui/package-lock.json" | cut -d' ' -f1)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    step "installing UI dependencies (npm ci)"
    (cd "$ROOT/ui" && npm ci --no-audit --no-fund)
    echo "$want" >"$stamp"
  fi
}

# The real agent CLIs the worker tests drive, pinned (npm packages into a prefix outside the
# clone, keyed by the pins so a change installs afresh). Tests find them through
# SWITCHYARD_AGENT_CLIS (a bin folder); with SWITCHYARD_REQUIRE_AGENT_CLIS set a missing one
# fails its test instead of skipping it.
AGENT_CLI_PACKAGES=(
  @anthropic-ai/claude-code@2.1.197
  @google/gemini-cli@0.61.0
  @openai/codex@0.171.0
  opencode-ai@1.18.33
)
AIDER_PACKAGE=aider-chat==0.86.2
ensure_agent_clis() {
  local pins dir
  pins="$(printf '%s\n' "${AGENT_CLI_PACKAGES[@]}" "$AIDER_PACKAGE" | sha256sum | cut -c1-16)"
  dir="$HOME/.cache/switchyard/agent-clis/$pins"
  if [ ! -f "$dir/.installed" ]; then
    step "installing the agent CLIs: ${AGENT_CLI_PACKAGES[*]} $AIDER_PACKAGE"
    rm -rf "$dir"
    mkdir -p "$dir"
    npm install -g --prefix "$dir" --no-audit --no-fund "${AGENT_CLI_PACKAGES[@]}"
    # Aider from PyPI into a virtual environment of its own; its entry point joins the others.
    python3 -m venv "$dir/aider-venv"
    "$dir/aider-venv/bin/pip" install --quiet --disable-pip-version-check "$AIDER_PACKAGE"
    ln -sf "$dir/aider-venv/bin/aider" "$dir/bin/aider"
    touch "$dir/.installed"
  fi
  export SWITCHYARD_AGENT_CLIS="$dir/bin"
}

ensure_tauri_driver() {
  if ! tauri-driver --help >/dev/null 2>&1; then
    step "installing tauri-driver $TAURI_DRIVER_VERSION"
    cargo install tauri-driver --locked --version "$TAURI_DRIVER_VERSION"
  fi
}

# A digest of everything the UI build reads: its sources, config and lock file. Test files
# are included too; they are cheap to hash and excluding them would need a second file list.
ui_inputs_digest() {
  local inputs=() path
  for path in src public index.html package.json package-lock.json vite.config.ts tsconfig.json; do
    [ -e "$ROOT/ui/$path" ] && inputs+=("$path")
  done
  (cd "$ROOT/ui" && find "${inputs[@]}" -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum \
    | sha256sum | cut -d' ' -f1)
}

# Builds ui/dist only when its inputs changed since the last build. Rewriting ui/dist makes
# Tauri's build script (which embeds the assets) run again and recompile the desktop crate, so
# an unchanged UI must leave ui/dist untouched: then cargo alone decides what to rebuild.
build_ui() {
  local stamp="$ROOT/ui/dist/.switchyard-inputs"
  local want
  want="$(ui_inputs_digest)"
  if [ -f "$ROOT/ui/dist/index.html" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    step "UI unchanged since the last build (ui/dist kept)"
    return 0
  fi
  step "building the UI"
  (cd "$ROOT/ui" && npm run --silent build)
  echo "$want" >"$stamp"
}

# Runs "$@" inside a private D-Bus session with an unlocked gnome-keyring (a fresh keyring
# in a temp dir, so a real login keyring is never touched) and, when asked, under Xvfb.
# The command starts only once the Secret Service really answers (see session-keyring.sh).
with_session() {
  local keyring_home
  keyring_home="$(mktemp -d)"
  local rc=0
  session_bus_config "$keyring_home"
  dbus-run-session --config-file="$keyring_home/bus/session.conf" -- \
    env XDG_DATA_HOME="$keyring_home" "$ROOT/scripts/session-keyring.sh" "$@" || rc=$?
  rm -rf "$keyring_home"
  return $rc
}

# The private session bus's configuration, in "$1/bus": the standard session bus, except that
# the only service it can start is the Secret Service, as scripts/keyring-daemon.sh runs it
# (unlocked, on the keyring in "$1"). The system's service file would start gnome-keyring on
# the user's own login keyring, locked: every keychain call after a daemon crash then failed
# with "Locked" until the end of the run.
session_bus_config() {
  local home="$1"
  mkdir -p "$home/bus/services"
  cat >"$home/bus/session.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <servicedir>$home/bus/services</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
  <limit name="service_start_timeout">120000</limit>
</busconfig>
CONF
  cat >"$home/bus/services/org.freedesktop.secrets.service" <<SERVICE
[D-BUS Service]
Name=org.freedesktop.secrets
Exec=$ROOT/scripts/keyring-daemon.sh $home
SERVICE
}
