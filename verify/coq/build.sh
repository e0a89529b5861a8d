#!/usr/bin/env bash
# Build the Coq development from clean, check its assumptions and run coqchk.
# Usage: verify/coq/build.sh   (from anywhere; needs coqc and coqchk, Coq 8.16)
set -euo pipefail
cd "$(dirname "$0")"
for tool in coqc coqchk; do
  command -v "$tool" >/dev/null || { echo "$tool not installed" >&2; exit 3; }
done
FILES="Model Svf SvfFacts Sim SvfFast Volume Prop31 LemmaA2 Thm32 SjfFamily SvfCount SvfGroup SvfTriangles SvfPhases MergeSort SvfJump SvfEngine Hol Inversion LemmaA2Sum OneBit"
rm -f ./*.vo ./*.vok ./*.vos ./*.glob ./.*.aux ./.lia.cache ./.nia.cache Assumptions.out
start=$(date +%s%N)
for f in $FILES; do
  [ -f "$f.v" ] || continue
  coqc -q -R . GeoSched "$f.v"
done
ms=$(( ($(date +%s%N) - start) / 1000000 ))
printf 'coqc build from clean: %d.%03d s\n' $((ms / 1000)) $((ms % 1000))
if [ -f Assumptions.v ]; then
  coqc -q -R . GeoSched Assumptions.v > Assumptions.out
  cat Assumptions.out
  n_closed=$(grep -c "Closed under the global context" Assumptions.out || true)
  n_thms=$(grep -c "^Print Assumptions" Assumptions.v || true)
  if [ "$n_closed" != "$n_thms" ]; then
    echo "ASSUMPTIONS NOT CLOSED: $n_closed of $n_thms" >&2; exit 1
  fi
  echo "Print Assumptions: $n_closed of $n_thms closed"
  rm -f Assumptions.vo Assumptions.vok Assumptions.vos Assumptions.glob .Assumptions.aux
fi
mods=""
for f in $FILES; do [ -f "$f.vo" ] && mods="$mods GeoSched.$f"; done
coqchk -silent -o -R . GeoSched $mods
echo "coqchk: OK"
