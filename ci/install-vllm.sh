#!/usr/bin/env bash
# Lean, pinned install of vLLM 0.33.0 for driving its V1 scheduler on CPU (the differential
# tests of geosched.reference_impl.vllm). Never lets pip resolve vLLM's own requirements
# (that would pull the CUDA build of torch, flashinfer, triton...: ~9 GB).
#
# Usage: ci/install-vllm.sh [VENV]        (default: $VENV, else .venv beside this repo)
#        GEOSCHED_VLLM_STRIP_SO=0 ci/install-vllm.sh ...   keep vLLM's *.so CUDA kernels
# Safe to run twice: every step is skipped when its pinned result is already in place.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
VENV="${1:-${VENV:-$ROOT/.venv}}"
TORCH_VERSION="2.13.0"
VLLM_VERSION="0.33.0"
REQUIREMENTS="$HERE/vllm-cpu-scheduler-requirements.txt"
STRIP_SO="${GEOSCHED_VLLM_STRIP_SO:-1}"

PY="$VENV/bin/python"
if [ ! -x "$PY" ]; then
    echo "install-vllm: no Python at $PY (pass the virtual environment as the first argument or \$VENV)" >&2
    exit 2
fi
if [ ! -f "$REQUIREMENTS" ]; then
    echo "install-vllm: missing $REQUIREMENTS" >&2
    exit 2
fi

installed() {  # installed <dist> -> prints its version or nothing
    "$PY" - "$1" <<'EOF'
import sys
from importlib.metadata import PackageNotFoundError, version
try:
    print(version(sys.argv[1]))
except PackageNotFoundError:
    pass
EOF
}

pip_install() {
    echo "+ $PY -m pip install $*"
    "$PY" -m pip install --disable-pip-version-check --no-input "$@"
}

echo "install-vllm: target environment $VENV ($("$PY" --version 2>&1))"

torch_now="$(installed torch)"
if [[ "$torch_now" == "$TORCH_VERSION" || "$torch_now" == "$TORCH_VERSION+"* ]]; then
    echo "install-vllm: torch $torch_now already installed"
else
    # torch's own small dependencies (filelock, sympy, networkx, jinja2, fsspec...) are pinned in
    # the requirements file; install torch alone first so that no later step swaps its build.
    pip_install --no-deps "torch==$TORCH_VERSION"
fi

vllm_now="$(installed vllm)"
if [ "$vllm_now" == "$VLLM_VERSION" ]; then
    echo "install-vllm: vllm $vllm_now already installed"
else
    pip_install --no-deps "vllm==$VLLM_VERSION"
fi

# Every pin at its version already? Then skip pip entirely (idempotent and offline-friendly).
missing="$("$PY" - "$REQUIREMENTS" <<'EOF'
import re, sys
from importlib.metadata import PackageNotFoundError, version
bad = []
for line in open(sys.argv[1]):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    name, _, pinned = line.partition("==")
    try:
        have = version(name.strip())
    except PackageNotFoundError:
        have = None
    if have != pinned.strip():
        bad.append(line)
print(" ".join(bad))
EOF
)"
if [ -z "$missing" ]; then
    echo "install-vllm: all pins of $(basename "$REQUIREMENTS") already satisfied"
else
    echo "install-vllm: to install: $missing"
    pip_install --no-deps -r "$REQUIREMENTS"
fi

if [ "$STRIP_SO" = "1" ]; then
    site="$("$PY" -c 'import importlib.util, os; print(os.path.dirname(importlib.util.find_spec("vllm").origin))')"
    count="$(find "$site" -name '*.so' | wc -l)"
    if [ "$count" -gt 0 ]; then
        echo "install-vllm: deleting $count CUDA kernel *.so files under $site (the scheduler never loads them)"
        find "$site" -name '*.so' -delete
    else
        echo "install-vllm: no *.so files left under $site"
    fi
fi

echo "install-vllm: checking that the scheduler imports on CPU"
VLLM_TARGET_DEVICE=cpu HF_HUB_OFFLINE=1 "$PY" -c \
    'import vllm, torch; from vllm.v1.core.sched.scheduler import Scheduler; print("install-vllm: ok: vllm", vllm.__version__, "torch", torch.__version__)'
