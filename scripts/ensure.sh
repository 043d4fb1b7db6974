#!/usr/bin/env bash
# Installs whatever is missing so `npm start` and `npm test` work on a fresh clone:
# npm dependencies (which pin Node 24 as the `node` package), Debian's nats-server and
# chromium-headless-shell (when root), then builds the TypeScript. Each step is skipped
# when it is already done, so a second run costs well under a second.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '[trawl] %s\n' "$*" >&2; }

# 1. npm dependencies: reinstall when package-lock.json or a patch of a dependency
# (patches/, applied by patch-package on install) changed since the last install.
lock_sum=$(cat package-lock.json patches/*.patch | sha256sum | cut -d' ' -f1)
if [ ! -x node_modules/.bin/node ] || [ "$(cat node_modules/.install-stamp 2>/dev/null)" != "$lock_sum" ]; then
  say "installing npm dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_sum" > node_modules/.install-stamp
fi

# 2. System packages. CHROMIUM_PATH / NATS_URL let a user bring their own.
missing=()
if [ -z "${NATS_URL:-}" ] && ! command -v nats-server >/dev/null 2>&1; then missing+=(nats-server); fi
if [ -z "${CHROMIUM_PATH:-}" ] && ! command -v chromium-headless-shell >/dev/null 2>&1 \
   && [ ! -x /usr/lib/chromium/chromium-headless-shell ]; then missing+=(chromium-headless-shell); fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    say "missing system packages: ${missing[*]}"
    say "install them with: sudo apt-get install ${missing[*]}"
    say "(or set NATS_URL to an existing server, CHROMIUM_PATH to a Chromium binary)"
    exit 1
  fi
fi

# 3. Build with the pinned Node (node_modules/.bin is first on PATH under npm scripts).
node_modules/.bin/node node_modules/typescript/bin/tsc -p tsconfig.json
