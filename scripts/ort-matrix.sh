#!/usr/bin/env bash
# The ONNX Runtime versions ragrank accepts, tested on linux-x64 besides the bundled onnxruntime-node:
#   bash scripts/ort-matrix.sh fetch   the libraries of onnxruntime-node 1.24.2 (the oldest accepted) and 1.23.2
#                                      (the newest refused) into target/ort-matrix/<version>/ (npm pack: only
#                                      the linux-x64 libonnxruntime.so.1 is kept; target/ outlives `npm ci`)
#   bash scripts/ort-matrix.sh run     the ONNX model specs with ORT_DYLIB_PATH at the oldest accepted library
# __test__/models/onnx-runtime-versions.spec.mjs (in `npm test`) uses both libraries. Elsewhere than linux-x64 both
# steps say so and do nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

OLDEST=1.24.2 # keep with MIN_ORT_VERSION in crates/ragrank-onnx/src/runtime.rs and docs/MODELS.md
REFUSED=1.23.2
CACHE=target/ort-matrix
SPECS=(__test__/models/onnx.spec.mjs __test__/models/model-loading.spec.mjs __test__/models/onnx-runtime.spec.mjs
  __test__/models/model-file-safety.spec.mjs __test__/models/inference-checks.spec.mjs)

if [[ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]]; then
  echo "ort-matrix: linux-x64 only, skipped on $(uname -s)-$(uname -m)"
  exit 0
fi

fetch() {
  local version=$1 dest="$CACHE/$1/libonnxruntime.so.1"
  [[ -s "$dest" ]] && return 0
  local tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  (cd "$tmp" && npm pack "onnxruntime-node@$version" --silent >/dev/null)
  tar -xzf "$tmp/onnxruntime-node-$version.tgz" -C "$tmp" package/bin/napi-v6/linux/x64/libonnxruntime.so.1
  mkdir -p "$CACHE/$version"
  mv "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$dest.part"
  mv "$dest.part" "$dest"
  echo "ort-matrix: $dest"
}

case "${1:-}" in
  fetch)
    fetch "$OLDEST"
    fetch "$REFUSED"
    ;;
  run)
    lib="$PWD/$CACHE/$OLDEST/libonnxruntime.so.1"
    [[ -s "$lib" ]] || { echo "ort-matrix: $lib is missing, run: bash scripts/ort-matrix.sh fetch" >&2; exit 1; }
    start=$SECONDS
    ORT_DYLIB_PATH="$lib" npx ava "${SPECS[@]}"
    echo "ort-matrix: the ONNX specs under ONNX Runtime $OLDEST took $((SECONDS - start)) s"
    ;;
  *)
    echo "usage: bash scripts/ort-matrix.sh fetch|run" >&2
    exit 2
    ;;
esac
