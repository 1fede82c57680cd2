#!/usr/bin/env bash
# oracles-nx-plugins.sh - install Nx's official "Project Crystal" plugins next to a real nx,
# so differential tests can ask nx what targets the plugins infer (ctxsel's static mode
# models them in adapters/js/nx_plugins.py).
#
# Idempotent: re-running only installs what is missing or at the wrong version.
# Needs Node.js + npm and registry access during installation only; afterwards every
# command runs offline.
#
# Versions: the registry has nx 24.0.6 but no @nx/* plugin 24.x (newest: 23.2.1 for every
# plugin, 23.3.1 for some). All plugins are pinned to one release, 23.2.1, whose
# @nx/devkit accepts nx ">= 22 <= 24"; nx itself is 24.0.6, as in ../shared/oracles.
# vite/vitest/jest/typescript/eslint are there because the plugins load them (or the
# config files) while creating nodes.
#
# Usage:  bash .ci/oracles-nx-plugins.sh        # into ~/.cache/ctxsel-oracles/nx-plugins
#         ORACLE_PREFIX=/some/dir bash .ci/oracles-nx-plugins.sh
# Afterwards run  $DIR/node_modules/.bin/nx  with  NODE_PATH=$DIR/node_modules  in a fixture
# that has no node_modules of its own (a fixture node_modules/nx would make the nx launcher
# switch to that copy); Nx resolves the plugins named in nx.json through NODE_PATH.
set -euo pipefail

PREFIX=${ORACLE_PREFIX:-$HOME/.cache/ctxsel-oracles}
DIR="$PREFIX/nx-plugins"
NX_VERSION=24.0.6
PLUGIN_VERSION=23.2.1
PINS=(
  "nx@$NX_VERSION"
  "@nx/devkit@$PLUGIN_VERSION"
  "@nx/js@$PLUGIN_VERSION"
  "@nx/workspace@$PLUGIN_VERSION"
  "@nx/vitest@$PLUGIN_VERSION"
  "@nx/vite@$PLUGIN_VERSION"
  "@nx/jest@$PLUGIN_VERSION"
  "@nx/eslint@$PLUGIN_VERSION"
  "@nx/playwright@$PLUGIN_VERSION"
  "@nx/cypress@$PLUGIN_VERSION"
  "typescript@6.0.3"
  "vite@8.3.8"
  "vitest@4.1.9"
  "jest@30.5.2"
  "eslint@9.9.1"
)

log() { printf '[oracles-nx-plugins] %s\n' "$*" >&2; }
mkdir -p "$DIR"
cd "$DIR"
[ -f package.json ] || echo '{"name":"ctxsel-nx-plugins","private":true}' > package.json

want=()
for pin in "${PINS[@]}"; do
  name=${pin%@*}
  version=${pin##*@}
  f="node_modules/$name/package.json"
  if ! [ -f "$f" ] || [ "$(node -p "require('./$f').version" 2>/dev/null)" != "$version" ]; then
    want+=("$pin")
  fi
done
if [ ${#want[@]} -gt 0 ]; then
  log "npm install ${want[*]}"
  # --legacy-peer-deps: the plugins' peers (@playwright/test, cypress, ts-jest, ...) are not
  # needed to create nodes; --ignore-scripts: no binary downloads (cypress, playwright)
  npm install --save-exact --no-audit --no-fund --legacy-peer-deps --ignore-scripts --loglevel=error "${PINS[@]}" >&2
  # nx's native binding comes from an optional per-platform package, installed by npm itself
else
  log "nx plugins already at pinned versions"
fi
[ -x node_modules/.bin/nx ] || { log "ERROR: node_modules/.bin/nx missing"; exit 1; }
