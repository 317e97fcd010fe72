#!/usr/bin/env bash
# Packs ragrank as npm would publish it, from a fresh clone of HEAD (so nothing untracked or uncommitted can make
# the tarball work): `npm pack` there runs prepack (the tshy build), and the linux-x64-gnu binary package is packed
# from npm/. publint and @arethetypeswrong/cli check the tarball. Both tarballs are then installed with --offline
# into empty apps, which run the demo, the CLI, ESM, CommonJS, strict TypeScript (node16 and bundler resolution),
# LangChain on the 1.x line and on the 0.3 line, and every examples/frameworks/*/index.mjs.
#
# The native binary: the checkout's ragrank.linux-x64-gnu.node is reused when no Rust source differs from HEAD
# and it is newer than HEAD's last Rust change; otherwise (or with PACK_SMOKE_BUILD_NATIVE=1) the clone builds it,
# sharing the checkout's target/, and the committed index.js / index.d.ts must equal the regenerated ones.
#
# Offline installs need the registry metadata of every installed package in the npm cache; `npm ci` stores only
# tarballs, so .ci/run first runs this script with --warm-cache (set PACK_SMOKE_ONLINE=1 to allow the registry).
#
#   npm run pack:smoke                       # after npm ci; builds what it needs in the clone
#   bash scripts/pack-smoke.sh --warm-cache  # fetch the metadata the offline installs need
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
platform=linux-x64-gnu
binary="ragrank.$platform.node"
rust_paths=(src crates build.rs Cargo.toml Cargo.lock)

ver() { node -p "require('$repo/node_modules/$1/package.json').version"; }
runtime_deps() { node -p "Object.entries(require('$repo/package.json').dependencies).map(([n, v]) => n + '@' + v).join(' ')"; }
# What the apps install next to the tarballs, at the versions the repository's lockfile installed.
tools="typescript@$(ver typescript) @types/node@$(ver @types/node)"
frameworks="onnxruntime-node@$(ver onnxruntime-node) @langchain/core@$(ver @langchain/core) \
@langchain/classic@$(ver @langchain/classic) llamaindex@$(ver llamaindex) @llamaindex/core@$(ver @llamaindex/core) \
ai@$(ver ai) @ai-sdk/provider@$(ver @ai-sdk/provider) zod@$(ver zod)"
langchain03="@langchain/core@$(ver @langchain/core-v03)"
install_flags=(--no-audit --no-fund --ignore-scripts --silent)

if [[ "${1:-}" == --warm-cache ]]; then
  warm="$(mktemp -d)"
  trap 'rm -rf "$warm"' EXIT
  for set in "$frameworks" "$langchain03"; do
    rm -rf "$warm"/* && (cd "$warm" && npm init -y >/dev/null && npm install "${install_flags[@]}" $(runtime_deps) $tools $set)
  done
  echo "pack-smoke: npm cache warmed"
  exit 0
fi

[[ "$(node -p 'process.platform + "-" + process.arch')" == linux-x64 ]] || { echo "pack-smoke: runs on linux x64 only" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
offline=(--offline)
[[ "${PACK_SMOKE_ONLINE:-}" == 1 ]] && offline=()
fail() { echo "pack-smoke: $*" >&2; exit 1; }

echo "== fresh clone of HEAD"
head="$(git -C "$repo" rev-parse HEAD)"
[[ -z "$(git -C "$repo" status --porcelain --untracked-files=no)" ]] || echo "pack-smoke: uncommitted changes are not in the smoke (it packs $head)"
clone="$work/clone"
git clone -q "$repo" "$clone" && git -C "$clone" checkout -q --detach "$head"
ln -s "$repo/node_modules" "$clone/node_modules"

rust_changed="$(git -C "$repo" status --porcelain -- "${rust_paths[@]}")"
rust_commit="$(git -C "$repo" log -1 --format=%ct -- "${rust_paths[@]}")"
if [[ -z "${PACK_SMOKE_BUILD_NATIVE:-}" && -f "$repo/$binary" && -z "$rust_changed" &&
  "$(stat -c %Y "$repo/$binary")" -gt "$rust_commit" ]]; then
  echo "== native binary: the checkout's (built after HEAD's last Rust change)"
  cp "$repo/$binary" "$clone/"
else
  echo "== native binary: built in the clone"
  (cd "$clone" && CARGO_TARGET_DIR="$repo/target" npm run build:native >"$work/native.log" 2>&1) || { cat "$work/native.log"; fail "native build failed"; }
  git -C "$clone" diff --exit-code -- index.js index.d.ts || fail "the committed index.js / index.d.ts differ from what napi build generates: commit them"
fi

echo "== npm pack (prepack builds dist/)"
(cd "$clone" && npm pack --pack-destination "$work" >"$work/pack.log" 2>&1) || { cat "$work/pack.log"; fail "npm pack failed"; }
git -C "$clone" diff --exit-code -- package.json ||
  fail "the build changed package.json (exports derived from tshy.exports): run npm run build:ts and commit it"
version="$(node -p "require('$clone/package.json').version")"
tarball="$work/ragrank-$version.tgz"
cp -r "$clone/npm/$platform" "$work/platform" && cp "$clone/$binary" "$work/platform/"
(cd "$work/platform" && npm pack --silent --pack-destination "$work" >/dev/null)
platform_tarball="$(ls "$work"/ragrank-binding-"$platform"-*.tgz)"

tar -tzf "$tarball" >"$work/contents" # a file, not a pipe: grep -q would cut tar short under pipefail
for f in bin/ragrank.mjs index.js index.d.ts LICENSE dist/esm/index.js dist/commonjs/index.js dist/esm/langchain.d.ts; do
  grep -qx "package/$f" "$work/contents" || fail "$f missing from the tarball"
done
if grep -qE '\.node$|^package/(lib|src|\.tshy-stage)/' "$work/contents"; then fail "a binary or sources leaked into the tarball"; fi

echo "== publint and @arethetypeswrong/cli"
"$repo/node_modules/.bin/publint" run --strict "$tarball" | tee "$work/publint.out"
if grep -qE '^(Errors|Warnings|Suggestions):' "$work/publint.out"; then fail "publint reported something"; fi
"$repo/node_modules/.bin/attw" --no-emoji --no-color "$tarball" || fail "@arethetypeswrong/cli reported problems"

# An empty app with both tarballs and $@ installed offline from the npm cache.
make_app() {
  local dir="$1"
  shift
  mkdir "$dir" && cd "$dir" && npm init -y >/dev/null
  npm install "${offline[@]}" "${install_flags[@]}" "$tarball" "$platform_tarball" "$@"
}
# Strict TypeScript over check.mts (ESM) and check.cts (CommonJS) with node16 resolution, and check.ts with bundler's.
typecheck() {
  local common='"strict": true, "noEmit": true, "skipLibCheck": true, "types": ["node"], "target": "es2022"'
  echo "{ \"compilerOptions\": { $common, \"module\": \"node16\", \"moduleResolution\": \"node16\" }, \"files\": [\"check.mts\", \"check.cts\"] }" >tsconfig.node16.json
  echo "{ \"compilerOptions\": { $common, \"module\": \"esnext\", \"moduleResolution\": \"bundler\" }, \"files\": [\"check.ts\"] }" >tsconfig.bundler.json
  cp check.mts check.ts
  npx --no-install tsc -p tsconfig.node16.json
  npx --no-install tsc -p tsconfig.bundler.json
}

echo "== app: the demo, the CLI, ESM, CommonJS, TypeScript, LangChain 1.x, the framework examples"
make_app "$work/app" $tools $frameworks
npx --no-install ragrank demo --metrics map@3,mrr@10 | tee demo.out
grep -q '^bm25 lucene ' demo.out
npx --no-install ragrank index node_modules/ragrank/demo/corpus.jsonl -o demo.idx --no-progress
npx --no-install ragrank search demo.idx "Velmora festival" -k 1 --json | grep -q '"id":"en/velmora/festival/'

cat >esm.mjs <<'EOF'
import { createRequire } from 'node:module'
import { Bm25Index } from 'ragrank'
import { RagrankRetriever } from 'ragrank/langchain'
import { BaseRetriever } from '@langchain/core/retrievers'
const index = new Bm25Index()
index.add([{ id: 'a', text: 'hello world', meta: { lang: 'en' } }, { id: 'b', text: '학교에 가는 길' }])
if (index.search('학교')[0]?.id !== 'b') throw new Error('ESM search failed')
const retriever = new RagrankRetriever({ retriever: index, topK: 1 })
if (!(retriever instanceof BaseRetriever)) throw new Error("RagrankRetriever is not the ESM @langchain/core's BaseRetriever")
const [doc] = await retriever.invoke('hello')
if (doc?.id !== 'a' || doc.metadata.lang !== 'en') throw new Error('RagrankRetriever.invoke failed')
// The ESM build must not pull in @langchain/core's CommonJS copy (the require cache holds only CommonJS modules).
const cjsCore = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('/@langchain/core/'))
if (cjsCore.length) throw new Error(`the CommonJS @langchain/core loaded: ${cjsCore[0]}`)
EOF
cat >cjs.cjs <<'EOF'
const { Bm25Index } = require('ragrank')
const { RagrankRetriever } = require('ragrank/langchain')
const { BaseRetriever } = require('@langchain/core/retrievers')
const index = new Bm25Index()
index.add([{ id: 'a', text: 'hello world' }])
if (index.search('hello')[0]?.id !== 'a') throw new Error('CJS search failed')
const retriever = new RagrankRetriever({ retriever: index })
if (!(retriever instanceof BaseRetriever)) throw new Error("RagrankRetriever is not the CommonJS @langchain/core's BaseRetriever")
retriever.invoke('hello').then(([doc]) => {
  if (doc?.id !== 'a') throw new Error('RagrankRetriever.invoke failed')
})
EOF
node esm.mjs
node cjs.cjs
# onnxruntime-node was installed without its postinstall (npm 11's default): its CPU library is all ragrank needs.
cat >onnx.mjs <<'EOF'
import { CrossEncoder } from 'ragrank'
const ranker = await CrossEncoder.load(process.argv[2])
const ranked = await ranker.rerank('cat', [{ id: 'a', text: 'a cat' }, { id: 'b', text: 'a car' }])
if (ranked.length !== 2 || !ranked.every((r) => Number.isFinite(r.score))) throw new Error('CrossEncoder.rerank failed')
ranker.dispose()
EOF
node onnx.mjs "$clone/fixtures/models/tiny-cross-encoder"

cat >check.mts <<'EOF'
import { Bm25Index, type CrossEncoder, HybridRetriever, RagrankError, VectorIndex } from 'ragrank'
import { RagrankRetriever, RankerCompressor } from 'ragrank/langchain'
import type { DocumentInterface } from '@langchain/core/documents'
import { BaseRetriever } from '@langchain/core/retrievers'
import { RunnableLambda, RunnableSequence } from '@langchain/core/runnables'
import { ContextualCompressionRetriever } from '@langchain/classic/retrievers/contextual_compression'
import { EnsembleRetriever } from '@langchain/classic/retrievers/ensemble'

declare const cross: CrossEncoder
const index = new Bm25Index()
index.add([{ id: 'a', text: 'hello world' }])
const first: string | undefined = index.search('hello')[0]?.id
// @ts-expect-error a query is a string (fails if the declarations degrade to any)
index.search(42)
const vectors = new VectorIndex({ dim: 2 })
const hybrid = new HybridRetriever({ retrievers: [index, { retriever: index, weight: 2 }] })
const retriever = new RagrankRetriever({ retriever: index, topK: 2 })
const base: BaseRetriever = retriever
const ensemble = new EnsembleRetriever({ retrievers: [retriever, base], weights: [0.5, 0.5] })
const compressed = new ContextualCompressionRetriever({
  baseRetriever: retriever,
  baseCompressor: new RankerCompressor({ ranker: cross, topK: 1 }),
})
const chain = RunnableSequence.from([retriever, RunnableLambda.from((docs: DocumentInterface[]) => docs.length)])
const isError = (e: unknown) => e instanceof RagrankError && e.code === 'ERR_DISPOSED'
export { chain, compressed, ensemble, first, hybrid, isError, vectors }
EOF
cat >check.cts <<'EOF'
import { Bm25Index } from 'ragrank'
import { RagrankRetriever } from 'ragrank/langchain'
import { BaseRetriever } from '@langchain/core/retrievers'
const base: BaseRetriever = new RagrankRetriever({ retriever: new Bm25Index() })
export = base
EOF
typecheck

models="$clone/fixtures/models"
for example in "$clone"/examples/frameworks/*/index.mjs; do
  [[ -f "$example" ]] || continue
  name="$(basename "$(dirname "$example")")"
  echo "== examples/frameworks/$name"
  # Run from inside the app so that `ragrank` and the frameworks resolve to what it installed.
  mkdir -p "examples/$name" && cp -r "$(dirname "$example")"/. "examples/$name/"
  RAGRANK_EXAMPLE_EMBEDDER="$models/tiny-embedder" RAGRANK_EXAMPLE_RERANKER="$models/tiny-cross-encoder" \
    node "examples/$name/index.mjs" >"$work/example.out" 2>&1 || { cat "$work/example.out"; fail "examples/frameworks/$name failed"; }
done

echo "== app: LangChain 0.3 (@langchain/core $(ver @langchain/core-v03))"
make_app "$work/app03" $tools $langchain03
cp ../app/esm.mjs ../app/cjs.cjs .
node esm.mjs
node cjs.cjs
cat >check.mts <<'EOF'
import { Bm25Index, type CrossEncoder } from 'ragrank'
import { RagrankRetriever, RankerCompressor } from 'ragrank/langchain'
import type { DocumentInterface } from '@langchain/core/documents'
import { BaseRetriever } from '@langchain/core/retrievers'
import { BaseDocumentCompressor } from '@langchain/core/retrievers/document_compressors'
import { RunnableLambda, RunnableSequence } from '@langchain/core/runnables'

declare const cross: CrossEncoder
const base: BaseRetriever = new RagrankRetriever({ retriever: new Bm25Index(), topK: 2 })
const compressor: BaseDocumentCompressor = new RankerCompressor({ ranker: cross })
const chain = RunnableSequence.from([base, RunnableLambda.from((docs: DocumentInterface[]) => docs.length)])
export { chain, compressor }
EOF
cp ../app/check.cts .
typecheck
echo "pack-smoke: ok"
