"""Witness files of an older spelling, converted: ``python -m geosched.adversary.upgrade FILE...``.

Until issue 31 a hunt at KV block grain named the block size in the policy (``"vllm-fcfs:block=16"``)
and the instance had none. The block size is now the instance's (``"block_size"`` in the instance
object, :class:`geosched.reference_impl.model.Instance`) and the policy is the plain target name. This
command moves it: the policy loses ``:block=B`` and the instance gains ``"block_size": B``; nothing
else changes (the engine's ``block_size`` was ``B`` already and must stay so). The converted witness is
re-verified from scratch (:func:`~geosched.adversary.witness.verify_witness`) and written, atomically,
only when it verifies with the same certified ratio as the file states; a file already in the current
spelling is left untouched. Nothing else reads the old spelling: a target named ``vllm-fcfs:block=16``
is refused with a line that says where the block size lives now.

Example
-------
>>> upgraded({"policy": "vllm-fcfs:block=16", "instance": {"memory": 32, "requests": []}})
{'policy': 'vllm-fcfs', 'instance': {'memory': 32, 'block_size': 16, 'requests': []}}
>>> upgraded({"policy": "vllm-fcfs", "instance": {"memory": 32, "requests": []}}) is None
True
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from geosched.errors import GeoschedError, WorkloadFormatError
from geosched.output import write_json_atomic
from geosched.reference_impl.jsonfile import read_json

__all__ = ["upgraded", "upgrade_file", "main"]

_OLD_POLICY = re.compile(r"(?P<base>vllm-[a-z]+):block=(?P<block>[1-9][0-9]*)")


def upgraded(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """The witness object in the current spelling, or None when it needs no change."""
    match = _OLD_POLICY.fullmatch(str(data.get("policy", "")))
    if match is None:
        return None
    instance = data.get("instance")
    if not isinstance(instance, Mapping) or "block_size" in instance:
        raise WorkloadFormatError(f"policy {data['policy']!r}: the instance must be an object without a block_size")
    converted = dict(data)
    converted["policy"] = match["base"]
    converted["instance"] = {"memory": instance.get("memory"), "block_size": int(match["block"]),
                             **{k: v for k, v in instance.items() if k != "memory"}}
    return converted


def upgrade_file(path: str | Path) -> str:
    """Convert one witness file in place (see the module docstring); returns what was done."""
    from geosched.adversary.witness import verify_witness  # the referee re-verifies the converted file

    data = read_json(path)
    converted = upgraded(data) if isinstance(data, Mapping) else None
    if converted is None:
        return f"{path}: already current, left as it is"
    report = verify_witness(converted)
    if not report.ok or float(report.certified_ratio) != float(data["certified_ratio"]):
        raise WorkloadFormatError(f"{path}: the converted witness does not verify with its ratio "
                                  f"{data['certified_ratio']!r} ({report.message}); the file is left as it is")
    write_json_atomic(path, converted)
    return (f"{path}: policy {data['policy']!r} -> {converted['policy']!r}, instance block_size "
            f"{converted['instance']['block_size']}; verified, certified ratio {float(report.certified_ratio):.6f}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m geosched.adversary.upgrade", description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", help="witness .json files, converted in place")
    args = parser.parse_args(argv)
    try:
        for path in args.files:
            print(upgrade_file(path))
    except GeoschedError as exc:
        print(f"geosched: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
