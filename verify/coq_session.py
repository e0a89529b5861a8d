"""Coq as a calculator and as a proof stepper, on the compiled development of ``verify/coq``.

The Coq functions and proofs the ledger's theorems are about, used directly (no extraction):

* :func:`evaluate` computes terms of the development with ``Eval vm_compute`` (for instance
  ``onebit 10 1 1 4 [(0, 5); (9, 1)]``, the 1-bit SVF's starts) and returns what Coq prints;
  the differential tests compare these values with the Python simulator's.
* :func:`coqtop` runs ``coqtop`` on a list of sentences in the compiled library and returns
  what it printed after each one: the goals after each tactic of a proof.
* :func:`proof_sentences` reads a theorem's statement and the sentences of its proof from its
  ``.v`` file, so that a lesson steps through the proof as it is written there.

Both run in the build cache's compiled copy of the sources (:func:`geosched.verify.coq_engine.build`,
compiled on first use) and raise :class:`~geosched.errors.ValidationError` naming ``coq``
when coqc is not installed.

Example
-------
>>> from geosched.verify import coq_engine
>>> if coq_engine.coq_available():  # doctest: +SKIP
...     evaluate(["svf 12 [(6, 3); (1, 5)]"], imports=("Model", "Svf"))
['[5; 0]']
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from geosched.errors import SolverError, ValidationError
from geosched.verify import coq_engine
from geosched.verify.coq_output import strip_comments

__all__ = ["evaluate", "coqtop", "proof_sentences", "compiled_sources"]

_TIMEOUT_S = 1200  # a hung coqc or coqtop is an error after this long
_PROMPT = re.compile(r"(?m)^[A-Za-z_][\w']* < ")
_NOISE = re.compile(r"Fetching opaque proofs from disk for \S+\n")  # Print Assumptions' progress lines


def compiled_sources() -> Path:
    """The folder of the compiled development (``.v`` and ``.vo``): built or read from the cache.

    Raises
    ------
    ValidationError
        When coqc is not installed (field ``coq``).
    SolverError
        When the development does not build.
    """
    result = coq_engine.build()
    if result.status == "unavailable":
        raise ValidationError("coq", "coqc", f"needs {result.message.replace(' not installed', '')}, which is not "
                                              "installed (Debian package coq)")
    if result.status != "ok":
        raise SolverError(f"the Coq development did not build: {result.message}")
    return Path(result.directory) / "src"


def _require(imports: Sequence[str]) -> str:
    for name in imports:
        if not re.fullmatch(r"[A-Z][A-Za-z0-9_]*", name):
            raise ValidationError("imports", name, "must be a module name of verify/coq (e.g. OneBit)")
    return "From Coq Require Import Arith List.\nImport ListNotations.\n" + \
        (f"From GeoSched Require Import {' '.join(imports)}.\n" if imports else "")


def evaluate(expressions: Sequence[str], imports: Sequence[str] = ("Model",)) -> list[str]:
    """The values of ``expressions`` (Coq terms) computed by ``Eval vm_compute``, as Coq prints them
    (whitespace collapsed), one per expression.

    Parameters
    ----------
    expressions : sequence of str
        Closed Coq terms (one sentence each; no ``.`` at the end).
    imports : sequence of str
        Modules of the development to import first.

    Raises
    ------
    ValidationError
        No coqc, or a term with a sentence end in it.
    SolverError
        Coq rejected a term (the message has its first error).
    """
    for k, text in enumerate(expressions):
        if re.search(r"\.(\s|$)", text):
            raise ValidationError(f"expressions[{k}]", text, "must be one term, without a sentence end")
    if not expressions:
        return []
    src = compiled_sources()
    script = _require(imports) + "".join(f"Eval vm_compute in ({e}).\n" for e in expressions)
    with tempfile.TemporaryDirectory(prefix="geosched-coq-eval-") as tmp:
        path = Path(tmp) / "Eval.v"
        path.write_text(script, encoding="utf-8")
        done = subprocess.run(["coqc", "-q", "-R", str(src), "GeoSched", str(path)], capture_output=True,
                              text=True, timeout=_TIMEOUT_S, check=False, cwd=tmp)
    if done.returncode != 0:
        raise SolverError(f"coqc rejected the terms: {(done.stdout + done.stderr).strip()[:400]}")
    values = re.findall(r"(?ms)^\s+= (.*?)\n\s+: ", done.stdout)
    if len(values) != len(expressions):
        raise SolverError(f"coqc printed {len(values)} values for {len(expressions)} terms")
    return [" ".join(v.split()) for v in values]


def coqtop(sentences: Sequence[str], imports: Sequence[str] = ()) -> list[str]:
    """Run ``coqtop`` on ``sentences`` (after importing ``imports``) in the compiled development and return
    what it printed after each sentence: the goals after a tactic, an error, a ``Print Assumptions``.

    Each sentence is one Coq command ending with ``.``; they are sent one per line.
    """
    src = compiled_sources()
    header = _require(imports)
    lines = header.strip().splitlines() + [" ".join(s.split()) for s in sentences]
    # coqtop prints its prompts on stderr and the answers on stdout: one pipe keeps them in order
    done = subprocess.run(["coqtop", "-q", "-R", str(src), "GeoSched"], input="\n".join(lines) + "\n",
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=_TIMEOUT_S,
                          check=False, cwd=src)
    transcript = _NOISE.sub("", done.stdout)
    prompts = list(_PROMPT.finditer(transcript))
    blocks = [transcript[a.end():b.start()].strip() for a, b in zip(prompts, prompts[1:])]
    blocks += [transcript[prompts[-1].end():].strip()] if prompts else []
    if len(blocks) < len(lines):
        raise SolverError(f"coqtop answered {len(blocks)} of {len(lines)} sentences: {transcript[-400:]}")
    return blocks[len(lines) - len(sentences):len(lines)]


def proof_sentences(module: str, theorem: str, root: Path | None = None) -> tuple[str, list[str]]:
    """``(statement, tactics)`` of ``theorem`` as written in ``verify/coq/<module>.v``: the sentence
    ``Theorem NAME : ... .`` and the sentences of its proof (``Proof.`` and ``Qed.`` included), comments
    removed, each bullet or brace kept with the tactic after it.

    >>> statement, tactics = proof_sentences("Thm32", "thm32_svf_competitive")
    >>> statement.split(":")[0], tactics[0], tactics[-1]
    ('Theorem thm32_svf_competitive ', 'Proof.', 'Qed.')
    """
    path = (root or coq_engine.COQ_DIR) / f"{module}.v"
    if not re.fullmatch(r"[A-Z][A-Za-z0-9_]*", module) or not path.is_file():
        raise ValidationError("module", module, "is not a file of verify/coq")
    text = strip_comments(path.read_text(encoding="utf-8"))
    found = re.search(rf"(?m)^(Theorem|Lemma|Corollary)\s+{re.escape(theorem)}\b", text)
    if found is None:
        raise ValidationError("theorem", theorem, f"is not a Theorem, Lemma or Corollary of {module}.v")
    sentences = [s.strip() for s in re.split(r"(?<=[^.])\.(?=\s)", text[found.start():])]
    end = next(k for k, s in enumerate(sentences) if s.split()[-1:] in (["Qed"], ["Defined"]))
    statement, proof = sentences[0] + ".", [" ".join(s.split()) + "." for s in sentences[1:end + 1]]
    return " ".join(statement.split()), proof
