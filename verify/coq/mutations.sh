#!/usr/bin/env bash
# Self-check of the three mutation anchors: each mutated copy of the sources must fail to build.
# Usage: verify/coq/mutations.sh   (copies the sources to a temporary folder; the tree is not touched)
set -uo pipefail
src="$(cd "$(dirname "$0")" && pwd)"
status=0
for m in growth window factor2; do
  tmp="$(mktemp -d)"
  cp "$src"/*.v "$src"/build.sh "$src"/_CoqProject "$tmp"/
  case $m in
    growth)  sed -i '/(\* MUT: growth \*)/s/prompt r + (t - x)/prompt r/' "$tmp/Model.v" ;;
    window)  sed -i '/(\* MUT: window \*)/s/t + output r/t + output r - 1/' "$tmp/Svf.v" ;;
    factor2) sed -i '/(\* MUT: factor2 \*)/s/<= 2 \*/<= 1 */' "$tmp/Thm32.v" ;;
  esac
  if cmp -s "$src/Model.v" "$tmp/Model.v" && cmp -s "$src/Svf.v" "$tmp/Svf.v" \
     && cmp -s "$src/Thm32.v" "$tmp/Thm32.v"; then
    echo "$m: anchor not found"; status=1
  elif bash "$tmp/build.sh" >"$tmp/log" 2>&1; then
    echo "$m: mutated build PASSED (bad)"; status=1
  else
    echo "$m: build fails: $(grep -m1 '^File' "$tmp/log")"
  fi
  rm -rf "$tmp"
done
exit $status
