"""An outside auditor of ``check-witness`` (issue 30): every shipped witness, every field tampered.

For each file of ``docs/witnesses/*.json`` (a glob, never a list), :func:`tampers` changes one
leaf of the JSON at a time: a number by +1, -1, x2 and to another valid value (half, or +2), a
boolean negated, a null set, a string to another valid value (every other built-in policy name,
a vLLM name with a block size in the old spelling ``vllm-fcfs:block=B``, which must be refused,
the other tie rules, another preemption rule, another request id). Leaves outside the
per-request collections (memory, the instance's block size, the TELs, the ratios, the engine,
the tie check, the policy, the seed) are all tampered; in each per-request collection
(``instance.requests[*].arrival`` etc., the starts, completions and runs) ``samples`` leaves are
drawn, deterministically per file and collection. A vLLM witness at token grain (no
``instance.block_size`` key: 1) also gets one added (:data:`ADDED_BLOCK_SIZES`).

:func:`judge` classifies what the referee did with a tampered file:

* ``refused`` (a clean one-line error: exit 2) or ``rejected`` (exit 1 with the failed checks);
* ``harmless``: verified with exactly the numbers of the untampered file (a seed, ``found_by``,
  a ``ratio_upper`` that is not reported);
* ``re-derived``: verified with other numbers, each equal to :func:`truth`'s;
* anything else (``ACCEPTED WITH WRONG ...``) is a certificate of a false number.

:func:`truth` recomputes the certified numbers without the code under test's path: the policy's
TEL by an independent implementation (the compiled evaluator ``adversary.fast`` for the priority
rules, the vLLM-semantics model on an engine built here for the vLLM targets; ``geo-guess`` and
``geo-batch`` have no second implementation, so their TEL is summed here from the simulator's
completions), the witness schedule's feasibility and TEL by a per-step memory sum (numpy, at the
block grain read here from the instance's ``block_size``), the engine's capacity from ``M`` and
that grain. The priority rules have no second implementation at block grain: :func:`policy_tel`
refuses one rather than compare with a token-grain number (no shipped witness has one, and no
tamper adds one to them).
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
WITNESS_FILES = sorted((ROOT / "docs" / "witnesses").glob("*.json"))
PRIORITY_RULES = ("fcfs", "sjf", "svf", "svf1")
SCHEDULERS = ("geo-guess", "geo-batch")
VLLM = ("vllm-fcfs", "vllm-priority")
OK_VERDICTS = ("refused", "rejected", "harmless", "re-derived")
ADDED_BLOCK_SIZES = (2, 8, 16)  # instance.block_size added to a token-grain vLLM witness


# ---------------------------------------------------------------- the tampered files


def leaves(node: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """Every (path, value) of a JSON tree whose value is not a container."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from leaves(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from leaves(value, path + (index,))
    else:
        yield path, node


def pattern(path: tuple) -> tuple:
    """The path with the positions inside a per-request collection replaced by ``*``: the request's
    index in ``instance.requests``, the id keys of starts, completions and runs, a run's index."""
    out = list(path)
    for k, part in enumerate(path):
        parent = path[k - 1] if k else None
        if parent in ("starts", "completions", "runs") or (parent == "requests" and isinstance(part, int)) \
                or (k > 1 and path[k - 2] == "runs" and isinstance(part, int)):
            out[k] = "*"
    return tuple(out)


def set_at(data: Any, path: tuple, value: Any) -> Any:
    """A deep copy of ``data`` (plain JSON) with the leaf at ``path`` replaced."""
    data = json.loads(json.dumps(data))
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return data


def block_of(instance: dict) -> int:
    """The KV block grain of an instance (its ``block_size``, 1 when the key is absent), read here
    from the JSON, not by geosched."""
    return instance.get("block_size", 1)


@functools.cache
def tie_rules() -> dict[str, str]:
    """The tie rule of each kind of policy, as the shipped witnesses state it."""
    rules = {}
    for path in WITNESS_FILES:
        data = json.loads(path.read_text())
        rules[_kind(data["policy"])] = data["tie_rule"]
    return rules


def _kind(policy: str) -> str:
    base = policy.partition(":")[0]
    return base if base in VLLM else "position"


def _string_values(path: tuple, value: str, data: dict) -> list[Any]:
    last = path[-1]
    if path == ("policy",):
        base, block = value.partition(":")[0], block_of(data["instance"])
        names = [*PRIORITY_RULES, *SCHEDULERS, *VLLM]
        if base in VLLM:  # the old spelling, the block size in the name: refused, whatever B
            blocks = sorted({1, 2, block // 2 or 1, block, 2 * block, 64})
            names += [f"{name}:block={b}" for name in VLLM for b in blocks]
        return [n for n in names if n != value]
    if last == "tie_rule":
        return [rule for rule in tie_rules().values() if rule != value]
    if last == "preemption":
        return [p for p in ("fcfs", "priority") if p != value]
    if last == "order":
        return ["forward"]
    if last == "id":
        others = [r["id"] for r in data["instance"]["requests"] if r["id"] != value]
        return [value + "x"] + others[:1]  # a new label, and an existing one (a duplicate)
    return [value + " x"]


def values_for(path: tuple, value: Any, data: dict) -> list[Any]:
    """The tampered values of one leaf (see the module docstring)."""
    if isinstance(value, bool):
        return [not value]
    if value is None:
        return [1]
    if isinstance(value, int):
        other = value // 2 if value > 1 else value + 2
        changed = [value + 1, value - 1, 2 * value, other]
    elif isinstance(value, float):
        changed = [value + 1, value - 1, 2 * value, value / 2]
    else:
        changed = _string_values(path, value, data)
    return [v for k, v in enumerate(changed) if v != value and v not in changed[:k]]


def tampers(path: Path, samples: int = 1) -> list[tuple[str, dict]]:
    """``(label, tampered data)`` for every tampered leaf of the witness at ``path``."""
    data = json.loads(path.read_text())
    groups: dict[tuple, list[tuple[tuple, Any]]] = {}
    for leaf_path, value in leaves(data):
        groups.setdefault(pattern(leaf_path), []).append((leaf_path, value))
    out = []
    if data["policy"].partition(":")[0] in VLLM and "block_size" not in data["instance"]:
        for block in ADDED_BLOCK_SIZES:
            out.append((f"{path.name}: instance.block_size = {block!r} (added)",
                        set_at(data, ("instance", "block_size"), block)))
    for group_pattern, members in groups.items():
        if "*" in group_pattern and len(members) > samples:
            rng = random.Random(f"{path.name}|{group_pattern}")  # a string seed: the same draw on every run
            members = sorted(rng.sample(members, samples), key=lambda m: members.index(m))
        for leaf_path, value in members:
            label = ".".join(map(str, leaf_path))
            for changed in values_for(leaf_path, value, data):
                out.append((f"{path.name}: {label} = {changed!r}"[:200], set_at(data, leaf_path, changed)))
    return out


# ---------------------------------------------------------------- the independent numbers


def schedule_tel(instance: dict, starts: Any, block: int) -> int | None:
    """TEL of a start schedule when it is feasible at block grain (every request once, no start
    before its arrival, the blocks held at every step within M), else None: a per-step sum."""
    requests = instance["requests"]
    if not isinstance(starts, dict) or set(starts) != {r["id"] for r in requests}:
        return None
    if any(type(starts[r["id"]]) is not int or starts[r["id"]] < r["arrival"] for r in requests):
        return None
    steps, held = [], []
    for r in requests:
        k = np.arange(1, r["output"] + 1, dtype=np.int64)
        steps.append(starts[r["id"]] + k)
        held.append(block * -(-(r["prompt"] + k) // block))
    usage = np.bincount(np.concatenate(steps), weights=np.concatenate(held).astype(np.float64))
    if usage.max(initial=0) > instance["memory"]:
        return None
    return sum(starts[r["id"]] + r["output"] - r["arrival"] for r in requests)


def _reversed(instance: dict, swap_ids: bool) -> dict:
    """Positions reversed; with ``swap_ids`` the ids exchanged so that their string order is reversed."""
    requests = [dict(r) for r in reversed(instance["requests"])]
    if swap_ids:
        ranked = sorted(r["id"] for r in requests)
        swap = {rid: ranked[len(ranked) - 1 - k] for k, rid in enumerate(ranked)}
        requests = [dict(r, id=swap[r["id"]]) for r in requests]
    return {**instance, "requests": requests}


def policy_tel(instance: dict, policy: str) -> int:
    """The policy's TEL on the instance by a second implementation (module docstring)."""
    base = policy.partition(":")[0]
    requests = instance["requests"]
    if policy in PRIORITY_RULES:
        from geosched.adversary import fast

        if block_of(instance) != 1:
            raise NotImplementedError(f"{policy} at block grain {block_of(instance)}: no second implementation here")

        a, s, o = (np.array([r[k] for r in requests], dtype=np.int64) for k in ("arrival", "prompt", "output"))
        return int(fast.policy_tel(policy, a, s, o, instance["memory"]))
    if base in VLLM:
        from geosched.reference_impl.vllm.semantics import EngineParams, SemRequest, VllmSemantics

        block, rule = block_of(instance), base.partition("-")[2]
        params = EngineParams(capacity_blocks=instance["memory"] // block, block_size=block,
                              max_num_seqs=len(requests), max_num_batched_tokens=1 << 40, preemption=rule)
        model = VllmSemantics(params, queue_order=rule)
        for r in requests:
            model.add(SemRequest(r["id"], r["arrival"], r["prompt"] + 1, r["output"]))
        done = {}
        for state in model.run(max_steps=10**7):
            done.update({rid: state.step + 1 for rid in state.finished})
        return sum(done[r["id"]] - r["arrival"] for r in requests)
    from geosched.reference_impl.model import instance_from_dict
    from geosched.reference_impl.simulation import simulate

    completions = simulate(instance_from_dict(instance), policy).completions
    return sum(completions[r["id"]] - r["arrival"] for r in requests)


def truth(data: dict) -> dict[str, Any]:
    """The numbers a correct referee certifies for ``data`` (a witness whose instance and policy
    are taken as given), computed here."""
    instance, policy = data["instance"], data["policy"]
    block = block_of(instance)
    tel_a = policy_tel(instance, policy)
    tel_s = schedule_tel(instance, data["witness_schedule"]["starts"], block)
    reversed_tel = policy_tel(_reversed(instance, policy.startswith("vllm-priority")), policy)
    peak = max(r["prompt"] + r["output"] for r in instance["requests"])
    numbers = {"policy_tel": tel_a, "witness_tel": tel_s, "memory": instance["memory"],
               "n": len(instance["requests"]), "block_size": block, "reversed_ties_tel": reversed_tel,
               "depends_on_ties": reversed_tel != tel_a, "alpha_exact": str(Fraction(peak, instance["memory"])),
               "tie_rule": tie_rules()[_kind(policy)],
               "certified_ratio_exact": str(Fraction(tel_a, tel_s)) if tel_s else None}
    if policy.partition(":")[0] in VLLM:
        numbers["engine"] = {"capacity_blocks": instance["memory"] // block, "block_size": block,
                             "preemption": policy.partition(":")[0].partition("-")[2]}
    return numbers


# ---------------------------------------------------------------- the verdict


def judge(report: dict | None, tampered: dict, original: dict, original_report: dict) -> str:
    """One of :data:`OK_VERDICTS`, or what is wrong. ``report`` is ``check-witness --json``'s
    output (or ``verify_witness(...).to_dict()``), None for a clean refusal (exit 2)."""
    if report is None:
        return "refused"
    if not report["ok"]:
        return "rejected" if report["problems"] else f"not ok without problems: {report['message']}"
    numbers = ("policy_tel", "witness_tel", "certified_ratio_exact", "memory", "n", "alpha_exact", "block_size",
               "reversed_ties_tel", "depends_on_ties", "tie_rule", "lower_bound", "ratio_upper_exact", "engine")
    same = all(report.get(k) == original_report.get(k) for k in numbers)
    if same and tampered["instance"] == original["instance"] and tampered["policy"] == original["policy"]:
        return "harmless"  # the untampered file's numbers: the test checks those against truth() once
    expected = truth(tampered)
    # a number the report does not state is not certified (older versions state no block size or engine)
    wrong = [k for k, v in expected.items() if k != "engine" and k in report and report[k] != v]
    if "engine" in expected and report.get("engine") is not None \
            and {k: report["engine"].get(k) for k in expected["engine"]} != expected["engine"]:
        wrong.append("engine")
    lower = report.get("lower_bound")
    if lower is not None and expected["witness_tel"] is not None and lower > expected["witness_tel"]:
        wrong.append("lower_bound")
    if report.get("ratio_upper_exact") is not None and \
            Fraction(report["ratio_upper_exact"]) != Fraction(expected["policy_tel"], lower):
        wrong.append("ratio_upper")
    return f"ACCEPTED WITH WRONG {wrong}" if wrong else ("harmless" if same else "re-derived")


def verify_api(data: dict) -> dict | None:
    """``verify_witness(data).to_dict()``, None for a refusal (a GeoschedError: exit 2 in the CLI)."""
    from geosched.adversary.witness import verify_witness
    from geosched.errors import GeoschedError

    try:
        return verify_witness(data).to_dict()
    except GeoschedError:
        return None
