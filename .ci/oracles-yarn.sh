#!/usr/bin/env bash
# oracles-yarn.sh - install the real yarn 1 (classic) and yarn 4 (berry) used as oracles
# for ctxsel's yarn adapter (tests/test_probe16_yarn_*.py, tests/oracles.py yarn helpers).
#
# Idempotent: installs only what is missing or at another version. Network (the npm
# registry) is needed here only; the tests run each package's own bin/yarn.js with no
# network. Both packages install a `yarn` bin, so nothing is put on PATH: the tests call
#   node $PREFIX/yarn/node_modules/yarn/bin/yarn.js               (yarn 1)
#   node $PREFIX/yarn/node_modules/@yarnpkg/cli-dist/bin/yarn.js  (yarn 4)
#
# yarn 2 and yarn 3 (the older berry majors, whose rules differ from 4's in a few places;
# adapters/js/yarn.py BerryRules) go to their own prefixes, as every berry is @yarnpkg/cli-dist:
#   node $PREFIX/../yarn-berry2/node_modules/@yarnpkg/cli-dist/bin/yarn.js   (2.4.2, the last 2.x on npm)
#   node $PREFIX/../yarn-berry3/node_modules/@yarnpkg/cli-dist/bin/yarn.js   (3.8.7)
#
# Usage:  bash .ci/oracles-yarn.sh            # into ~/.cache/ctxsel-oracles/yarn
#         ORACLE_PREFIX=/some/dir bash .ci/oracles-yarn.sh
set -euo pipefail

PREFIX=${ORACLE_PREFIX:-$HOME/.cache/ctxsel-oracles}/yarn
YARN1_VERSION=${YARN1_VERSION:-1.22.22}
YARN_BERRY_VERSION=${YARN_BERRY_VERSION:-4.18.1}
YARN_BERRY2_VERSION=2.4.2
YARN_BERRY3_VERSION=3.8.7

log() { printf '[oracles-yarn] %s\n' "$*" >&2; }
if ! command -v npm >/dev/null 2>&1; then
  log "npm not found: the yarn oracle tests will be skipped"
  exit 0
fi
mkdir -p "$PREFIX"
cd "$PREFIX"
[ -f package.json ] || echo '{"name":"ctxsel-yarn-oracles","private":true}' > package.json

have_ver() { # pkg version -> 0 if node_modules/pkg/package.json has that version
  local f="node_modules/$1/package.json"
  [ -f "$f" ] && [ "$(node -p "require('./$f').version" 2>/dev/null)" = "$2" ]
}
want=()
have_ver yarn "$YARN1_VERSION" || want+=("yarn@$YARN1_VERSION")
have_ver @yarnpkg/cli-dist "$YARN_BERRY_VERSION" || want+=("@yarnpkg/cli-dist@$YARN_BERRY_VERSION")
if [ ${#want[@]} -gt 0 ]; then
  log "npm install ${want[*]}"
  # --ignore-scripts: yarn 1's preinstall only warns about a global yarn; nothing is built
  npm install --prefix "$PREFIX" --save-exact --no-audit --no-fund --ignore-scripts --loglevel=error "${want[@]}" >&2
else
  log "yarn $YARN1_VERSION and @yarnpkg/cli-dist $YARN_BERRY_VERSION already installed"
fi
for js in node_modules/yarn/bin/yarn.js node_modules/@yarnpkg/cli-dist/bin/yarn.js; do
  [ -f "$js" ] || { log "ERROR: $PREFIX/$js missing after install"; exit 1; }
done
log "yarn 1: $(node node_modules/yarn/bin/yarn.js --version)  berry: $(cd /tmp && node "$PREFIX/node_modules/@yarnpkg/cli-dist/bin/yarn.js" --version 2>/dev/null || echo '?')"

for pair in "2:$YARN_BERRY2_VERSION" "3:$YARN_BERRY3_VERSION"; do
  major=${pair%%:*}; version=${pair#*:}
  dir="$PREFIX/../yarn-berry$major"
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"name":"ctxsel-yarn-berry-oracle","private":true}' > "$dir/package.json"
  if (cd "$dir" && have_ver @yarnpkg/cli-dist "$version"); then
    log "yarn $version already installed"
  else
    log "npm install @yarnpkg/cli-dist@$version into $dir"
    npm install --prefix "$dir" --save-exact --no-audit --no-fund --ignore-scripts --loglevel=error "@yarnpkg/cli-dist@$version" >&2
  fi
  [ -f "$dir/node_modules/@yarnpkg/cli-dist/bin/yarn.js" ] || { log "ERROR: yarn $version missing after install"; exit 1; }
done
