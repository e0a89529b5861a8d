"""Replay a witness against stock vLLM in vLLM's real scheduler, and measure the ratio there.

Hunts against the vLLM targets (``vllm-fcfs``, ``vllm-priority``: :mod:`geosched.adversary.targets`)
score instances with the vLLM-semantics model, for speed. A reported witness is then run
through vLLM 0.33's own V1 ``Scheduler`` (CPU, fake model outputs) by the differential
harness (:func:`geosched.reference_impl.vllm.harness.diff_native`, stock scheduler against the
semantics model, call by call) on the engine derived from the instance and the policy's name
(:func:`geosched.adversary.targets.vllm_engine`; the file's ``engine`` is only compared with
it, by :func:`~geosched.adversary.witness.verify_witness`, which runs first: a witness that
does not verify is not replayed), and the TEL is measured from the calls in which vLLM
finished each request (completion step = call + 1). The report gives both numbers, the
model's and vLLM's, against the witness schedule's TEL recomputed by the checker: the ratio
measured in vLLM is ``TEL(vLLM) / TEL(S)``, with ``S`` a schedule of the paper's model checked
by the checker, which vLLM can also run on this engine (budgets that never bind:
``docs/vllm.md``, step correspondence).

Example (needs vLLM)
--------------------
>>> from geosched.adversary.witness import make_witness
>>> from geosched.reference_impl.model import burst_instance
>>> w = make_witness(burst_instance(12, [(6, 3), (1, 5)]), "vllm-priority", {"r0": 0, "r1": 1}, found_by="hand")
>>> replay_in_vllm(w).vllm_tel  # doctest: +SKIP
11
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from geosched.adversary.targets import VLLM_TARGETS, vllm_engine
from geosched.adversary.witness import Witness, WitnessError, verify_witness, witness_from_dict
from geosched.errors import ValidationError
from geosched.reference_impl.formats.vllm_bench import export_plan  # re-exported: it lives with its format
from geosched.reference_impl.model import Instance
from geosched.reference_impl.vllm.harness import DiffResult, VllmDriver, diff_native, vllm_available
from geosched.reference_impl.vllm.semantics import EngineParams, SemRequest
from geosched.results import Result

__all__ = ["VllmReplay", "replay_in_vllm", "export_plan"]


@dataclass(frozen=True)
class VllmReplay(Result):
    """A vLLM-target witness run in vLLM's real scheduler.

    ``status``: ``"agree"`` (vLLM and the semantics model agree at every call, so the hunt's
    ratio is vLLM's), ``"diverged"`` (they differ somewhere: ``vllm_tel`` is still measured by
    running vLLM to the end; the model's number is then not vLLM's) or ``"unavailable"``
    (vLLM does not import here: nothing was replayed).
    """

    STATUSES = ("agree", "diverged", "unavailable")
    SUCCESS = ("agree",)

    status: str
    message: str
    wall_time: float
    policy: str
    n: int
    witness_tel: int  # TEL(S) of the checked witness schedule
    model_tel: int  # TEL of the vLLM-semantics model (the hunt's objective)
    model_preemptions: int
    vllm_tel: int | None = None  # TEL measured in vLLM's scheduler
    vllm_preemptions: int | None = None
    steps: int = 0  # schedule() calls compared
    diff: DiffResult | None = None  # the lockstep run

    @property
    def model_ratio(self) -> float:
        return self.model_tel / self.witness_tel

    @property
    def vllm_ratio(self) -> float | None:
        return None if self.vllm_tel is None else self.vllm_tel / self.witness_tel

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["model_ratio"] = self.model_ratio
        data["vllm_ratio"] = self.vllm_ratio
        data.pop("diff", None)
        data["diff_message"] = None if self.diff is None else self.diff.message
        return data


def _requests(instance: Instance) -> list[SemRequest]:
    return [SemRequest(r.id, r.arrival, r.prompt + 1, r.output) for r in instance.requests]


def _run_to_end(instance: Instance, params: EngineParams) -> tuple[dict[str, int], int]:
    """vLLM alone: the call each request finished in (a request missing: not finished within the
    step limit), and the preemptions."""
    driver = VllmDriver(params)
    for spec in _requests(instance):
        driver.add(spec)
    finish, preemptions, step = {}, 0, 0
    limit = 20 * sum(r.prompt + 1 + r.output for r in instance.requests) + max(r.arrival for r in instance.requests)
    while not driver.done() and step <= limit + 100:
        if driver.idle() and driver.next_arrival() is not None:
            step = max(step, driver.next_arrival())
        state = driver.step(step)
        preemptions += len(state.preempted)
        finish.update({rid: step for rid in state.finished})
        step += 1
    return finish, preemptions


def replay_in_vllm(witness: Witness | Mapping[str, Any]) -> VllmReplay:
    """Verify the witness (:func:`~geosched.adversary.witness.verify_witness`), then run its
    instance through stock vLLM and the semantics model in lockstep on the engine derived from
    the instance and the policy's name, and measure vLLM's TEL; see the module docstring.

    Raises
    ------
    ValidationError
        When the witness's policy is not a vLLM target.
    WitnessError
        When the witness does not verify (nothing is replayed), or its engine cannot serve the instance.
    WorkloadFormatError
        For a malformed witness.
    """
    started = time.perf_counter()
    data = witness.to_dict() if isinstance(witness, Witness) else dict(witness)
    if isinstance(data.get("instance"), Instance):  # as read_witness returns it
        data["instance"] = data["instance"].to_dict()
    parsed = witness_from_dict(data)
    policy = parsed["policy"]
    if policy.partition(":")[0] not in VLLM_TARGETS:
        raise ValidationError("witness policy", policy, f"is not a vLLM target ({', '.join(VLLM_TARGETS)})")
    report = verify_witness(parsed)
    if not report.ok:
        raise WitnessError(f"the witness does not verify, so it is not replayed: {report.message}")
    instance: Instance = parsed["instance"]
    params = vllm_engine(instance, policy)
    common = dict(policy=policy, n=instance.n, witness_tel=report.witness_tel, model_tel=report.policy_tel,
                  model_preemptions=report.preemptions)
    if not vllm_available():
        return VllmReplay("unavailable", "vLLM is not installed here: not replayed", time.perf_counter() - started,
                          **common)
    diff = diff_native(_requests(instance), params, policy=None)
    finish, preemptions = (diff.finish_calls, diff.preemptions) if diff.ok else _run_to_end(instance, params)
    unfinished = [r.id for r in instance.requests if r.id not in finish]
    if unfinished:
        return VllmReplay("diverged", f"{policy}: vLLM did not finish {len(unfinished)} request(s) (e.g. "
                          f"{unfinished[0]}) within the step limit; {diff.message}", time.perf_counter() - started,
                          **common, vllm_preemptions=preemptions, steps=diff.steps, diff=diff)
    vllm_tel = sum(finish[r.id] + 1 - r.arrival for r in instance.requests)
    status = "agree" if diff.ok else "diverged"
    message = (f"{policy}: vLLM TEL {vllm_tel} ({preemptions} preemptions), model TEL {report.policy_tel} "
               f"({report.preemptions}), witness TEL {report.witness_tel}: ratio in vLLM "
               f"{vllm_tel / report.witness_tel:.4f}; engine {params.capacity_blocks} blocks of {params.block_size} "
               f"(M = {instance.memory}); {diff.message}")
    return VllmReplay(status, message, time.perf_counter() - started, **common, vllm_tel=vllm_tel,
                      vllm_preemptions=preemptions, steps=diff.steps, diff=diff)
