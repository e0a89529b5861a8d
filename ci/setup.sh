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
"$VENV/bin/python" -m pip install -q -e ".[test,plot,docs,cluster,mutation]"
# Debian packages for the teaching tests: headless Chromium opens the built documentation site
# (tests/test_docs_site.py) and pdflatex compiles `geosched prove ID --latex --standalone`
# (tests/test_latex.py). Installed only when missing and when running as root (as CI does);
# elsewhere those tests skip and say why. About 1 min and ~0.5 GB for chromium, 40 s and
# ~120 MB for texlive-latex-base.
missing_debs=()
command -v chromium >/dev/null 2>&1 || missing_debs+=(chromium fonts-liberation fonts-dejavu-core)
command -v pdflatex >/dev/null 2>&1 || missing_debs+=(texlive-latex-base)
# Coq 8.16 (coqc, coqchk; its package brings OCaml, ocamlopt included): verify/coq is compiled, checked and
# extracted to OCaml by geosched.verify.coq_engine (tests/test_coq_*.py)
command -v coqc >/dev/null 2>&1 || missing_debs+=(coq)
command -v ocamlopt >/dev/null 2>&1 || missing_debs+=(ocaml-nox)
# Zarith (arbitrary-precision integers): the extracted engine's nat (verify/coq/Extract.v); the proofs build without it
[ -f /usr/lib/ocaml/zarith/zarith.cmxa ] || missing_debs+=(libzarith-ocaml-dev)
if [ "${#missing_debs[@]}" -gt 0 ]; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        echo "ci/setup.sh: apt-get install ${missing_debs[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing_debs[@]}" >/dev/null
    else
        echo "ci/setup.sh: not root (or no apt-get): not installing ${missing_debs[*]}; the browser, LaTeX and Coq tests will skip"
    fi
fi
"$VENV/bin/python" -c "import geosched, numpy, scipy, z3; print('geosched', geosched.__version__, 'numpy', numpy.__version__, 'scipy', scipy.__version__, 'z3', z3.get_version_string())"
