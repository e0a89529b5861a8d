#!/usr/bin/env bash
# Create (or update) .venv with geosched, its test tools and a lean vLLM for the
# differential tests. Safe to run twice. Usage: bash ci/setup.sh [VENV_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${1:-.venv}"
PYTHON="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
    echo "ci/setup.sh: creating $VENV"
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
# vLLM first, without resolving its requirements (they would pull ~9 GB of CUDA wheels)
bash ci/install-vllm.sh "$VENV"
"$VENV/bin/python" -m pip install -q -e ".[test,plot]"
"$VENV/bin/python" -c "import geosched, numpy, scipy, z3; print('geosched', geosched.__version__, 'numpy', numpy.__version__, 'scipy', scipy.__version__, 'z3', z3.get_version_string())"
