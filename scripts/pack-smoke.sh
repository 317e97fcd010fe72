#!/usr/bin/env bash
# Packs ragrank as npm would publish it (the main package plus the linux-x64-gnu binary package that the release
# workflow publishes from npm/), installs both tarballs into an empty folder and runs the demo, the CLI and a BM25
# query (ESM and CommonJS) from there. Installs with --offline: dependencies come from the npm cache, which .ci/run
# warms with the runtime dependency tree (set PACK_SMOKE_ONLINE=1 to allow the registry).
#
#   npm run build && bash scripts/pack-smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."

platform=linux-x64-gnu
binary="ragrank.$platform.node"
[[ "$(node -p 'process.platform + "-" + process.arch')" == linux-x64 ]] || { echo "pack-smoke: runs on linux x64 only" >&2; exit 2; }
[[ -f "$binary" && -f dist/index.js ]] || { echo "pack-smoke: build first (npm run build): $binary or dist/ missing" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
version="$(node -p 'require("./package.json").version')"

# The platform package: its package.json from npm/, the binary napi would move there (`napi artifacts`).
cp -r "npm/$platform" "$work/platform"
cp "$binary" "$work/platform/"
(cd "$work/platform" && npm pack --silent --pack-destination "$work" >/dev/null)
npm pack --silent --pack-destination "$work" >/dev/null
tar -tzf "$work/ragrank-$version.tgz" >"$work/contents" # a file, not a pipe: grep -q would cut tar short under pipefail
grep -q '^package/bin/ragrank.mjs$' "$work/contents" || { echo "pack-smoke: bin missing from the tarball" >&2; exit 1; }
if grep -q '\.node$' "$work/contents"; then echo "pack-smoke: a .node binary leaked into the main package" >&2; exit 1; fi

mkdir "$work/app"
cd "$work/app"
npm init -y >/dev/null
offline=(--offline)
[[ "${PACK_SMOKE_ONLINE:-}" == 1 ]] && offline=()
npm install "${offline[@]}" --no-audit --no-fund --silent "$work/ragrank-$version.tgz" "$work/ragrank-$platform-$version.tgz"

echo "== demo from the installed package"
npx --no-install ragrank demo --metrics map@3,mrr@10 | tee demo.out
grep -q '^bm25 lucene ' demo.out

echo "== CLI index + search"
npx --no-install ragrank index node_modules/ragrank/demo/corpus.jsonl -o demo.idx --no-progress
npx --no-install ragrank search demo.idx "Velmora festival" -k 1 --json | grep -q '"id":"en/velmora/festival/'

echo "== library, ESM and CommonJS"
node --input-type=module -e "
import { Bm25Index } from 'ragrank'
const i = new Bm25Index(); i.add([{ id: 'a', text: 'hello world' }, { id: 'b', text: '학교에 가는 길' }])
if (i.search('학교')[0]?.id !== 'b') throw new Error('ESM search failed')"
node -e "
const { Bm25Index } = require('ragrank')
const i = new Bm25Index(); i.add([{ id: 'a', text: 'hello world' }])
if (i.search('hello')[0]?.id !== 'a') throw new Error('CJS search failed')"
echo "pack-smoke: ok"
