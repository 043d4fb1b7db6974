#!/usr/bin/env bash
# Rebuilds the site zoo's fixtures (test/fixtures/zoo/<site>) with the real frameworks from
# npm: each site's sources (src/<site>, versions pinned in its package.json) are copied to
# a work folder outside the project, installed, built, and the built output copied back.
# Slow (minutes, a few hundred MB of packages), so the output is committed and tests only
# serve it. Usage: bash test/zoo/build.sh [site...]   (default: every site in src/)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# The frameworks need Node >= 22: the project's own Node (node_modules/.bin) comes first.
export PATH="$here/../../node_modules/.bin:$PATH"
work="${ZOO_WORK_DIR:-/tmp/trawl-zoo}"
out="$here/../fixtures/zoo"
sites=("$@")
if [ ${#sites[@]} -eq 0 ]; then
  for d in "$here"/src/*/; do sites+=("$(basename "$d")"); done
fi
mkdir -p "$work" "$out"
cp "$here/src/articles.json" "$work/articles.json"
for site in "${sites[@]}"; do
  echo "== $site"
  mkdir -p "$work/$site"
  cp -r "$here/src/$site/." "$work/$site/"
  (cd "$work/$site" && npm install --no-audit --no-fund --loglevel=error && npm run build)
  built="$work/$site/$(node -e "console.log(require('$work/$site/package.json').zooOutput ?? 'out')")"
  rm -rf "$out/$site"
  cp -r "$built" "$out/$site"
done
