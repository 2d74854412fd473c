#!/usr/bin/env bash
# Node 22 LTS smoke test: the built server (dist/server) on Node 22, fetched from the npm registry as the
# platform package node-linux-<arch>@22 (its tarball holds bin/node and include/node, the headers node-gyp
# needs). better-sqlite3 is a native addon built for the project's Node: it is rebuilt for Node 22's ABI into a
# separate copy, beside the checkout's node_modules, which stay as they are. Then: start, GET /health, an event,
# a ticket, an attendee and its check-in through the API (scripts/smoke-flow.mjs), SIGTERM, exit code 0.
#
# Needs: a build (npm run build:server), npm, python3, make and a C++ compiler (node-gyp). Nothing from
# nodejs.org or GitHub. The Node download and the rebuilt addon are kept in node_modules/.cache/doorstep-node22.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
major=${SMOKE_NODE_MAJOR:-22}
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "smoke-node22: no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac
[ -f dist/server/main.js ] || { echo "smoke-node22: no build: run npm run build:server first" >&2; exit 1; }

cache="$root/node_modules/.cache/doorstep-node$major"
mkdir -p "$cache"
if [ ! -x "$cache/node/bin/node" ]; then
  echo "smoke: fetching node-linux-$arch@$major from the npm registry"
  rm -rf "$cache/node" "$cache"/*.tgz
  tarball=$(cd "$cache" && npm pack "node-linux-$arch@$major" --silent | tail -n1)
  mkdir -p "$cache/node"
  tar -xzf "$cache/$tarball" -C "$cache/node" --strip-components=1
  rm -f "$cache/$tarball"
fi
node22="$cache/node/bin/node"
version=$("$node22" --version)
[[ "$version" == v$major.* ]] || { echo "smoke: expected Node $major, got $version" >&2; exit 1; }
[ -f "$cache/node/include/node/node.h" ] || { echo "smoke: the node-linux-$arch package has no headers (include/node)" >&2; exit 1; }

# better-sqlite3 for Node 22's ABI: a copy of the project's package, compiled against the package's headers with
# npm's own node-gyp (the SQLite sources ship inside better-sqlite3: no download).
addon="$cache/better-sqlite3"
bsv=$(node -p "require('./node_modules/better-sqlite3/package.json').version")
if [ ! -f "$addon/build/Release/better_sqlite3.node" ] || [ "$(cat "$addon/.built-for" 2>/dev/null)" != "$version $bsv" ]; then
  echo "smoke: rebuilding better-sqlite3 $bsv for Node $version"
  rm -rf "$addon"
  cp -R node_modules/better-sqlite3 "$addon"
  rm -rf "$addon/build"
  gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
  [ -f "$gyp" ] || gyp="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
  (cd "$addon" && "$node22" "$gyp" rebuild --release --nodedir="$cache/node" --jobs="$(nproc)" >"$cache/node-gyp.log" 2>&1) ||
    { tail -n 30 "$cache/node-gyp.log" >&2; echo "smoke: node-gyp failed (log: $cache/node-gyp.log)" >&2; exit 1; }
  echo "$version $bsv" >"$addon/.built-for"
fi

# A copy of the runtime layout: the bundle, the checkpoint and mail threads' scripts and the migrations where the bundle
# looks for them, and node_modules with every package linked from the checkout except the rebuilt addon.
work=$(mktemp -d "${TMPDIR:-/tmp}/doorstep-node$major-XXXXXX")
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/dist" "$work/server/db" "$work/server/ops" "$work/server/mail" "$work/node_modules" "$work/renderer"
cp -R dist/server "$work/dist/server"
cp server/ops/checkpoint-worker.cjs "$work/server/ops/"
cp server/mail/mail-worker.cjs server/mail/qr-png.cjs "$work/server/mail/"
cp -R server/db/migrations "$work/server/db/migrations"
[ -d renderer/dist ] && ln -s "$root/renderer/dist" "$work/renderer/dist"
for entry in node_modules/* node_modules/.bin; do
  name=$(basename "$entry")
  [ "$name" = better-sqlite3 ] && continue
  ln -s "$root/$entry" "$work/node_modules/$name"
done
cp -R "$addon" "$work/node_modules/better-sqlite3"

port=$("$node22" -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
export EVT_DB="$work/data/evt.sqlite" PORT="$port" HOST=127.0.0.1 EVT_LOG=off
"$node22" "$work/dist/server/cli.js" user add smoke --role administrator >/dev/null
password=$("$node22" "$work/dist/server/cli.js" app-password create smoke | tail -n1)
"$node22" "$work/dist/server/main.js" 2>"$work/server.err" &
pid=$!
for _ in $(seq 1 300); do
  if "$node22" -e "fetch('http://127.0.0.1:$port/health').then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"; then break; fi
  kill -0 "$pid" 2>/dev/null || { cat "$work/server.err" >&2; echo "smoke: the server exited" >&2; exit 1; }
  sleep 0.1
done
"$node22" scripts/smoke-flow.mjs "http://127.0.0.1:$port" smoke "$password"
kill -TERM "$pid"
set +e
wait "$pid"
code=$?
set -e
pid=""
[ "$code" -eq 0 ] || { cat "$work/server.err" >&2; echo "smoke: the server exited with $code after SIGTERM" >&2; exit 1; }
[ ! -e "$EVT_DB-wal" ] || { echo "smoke: $EVT_DB-wal left behind: the database was not closed" >&2; exit 1; }
echo "smoke: Node $version: the server started, served, checked in and stopped cleanly"
