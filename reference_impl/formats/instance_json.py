"""The ``json`` workload format: an instance file, or a witness file's instance (read only).

An instance object ``{"memory": M, "requests": [...]}`` (:func:`geosched.reference_impl.model.read_instance`),
or a witness object, whose ``"instance"`` is read (a witness is accepted wherever a workload is;
its other fields are not read here: ``geosched check-witness`` verifies them). An instance in
:func:`~geosched.reference_impl.model.write_instance`'s layout is read without a dict per request.

Example
-------
>>> import json, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "i.json")
>>> _ = open(path, "w").write(json.dumps({"memory": 12, "requests": [
...     {"id": "a", "arrival": 0, "prompt": 6, "output": 3}]}))
>>> FORMAT.read(path, memory=None, step_seconds=0.025).memory
12
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from geosched.reference_impl.code_names import refuse_code_names
from geosched.reference_impl.formats.registry import WorkloadFormat
from geosched.reference_impl.jsonfile import decode_text, loads, read_bytes
from geosched.reference_impl.model import Instance, canonical_instance, instance_from_dict

__all__ = ["FORMAT", "instance_from_json_object"]


def instance_from_json_object(data: Any, source: str) -> Instance:
    """An instance object, or a witness object's ``"instance"`` (a witness is accepted wherever
    a workload is; its other fields are not read here: ``geosched check-witness`` verifies them); no field
    may name code (:func:`~geosched.reference_impl.code_names.refuse_code_names`)."""
    refuse_code_names(data, source)
    if isinstance(data, Mapping) and "instance" in data and "policy" in data:
        return instance_from_dict(data["instance"], source=f"{source}: instance")
    return instance_from_dict(data, source=source)


def read(path: str | Path, *, memory: int | None = None, step_seconds: float = 0.025) -> Instance:
    """The instance of an instance or witness ``.json`` (``memory``, ``step_seconds``: not used)."""
    path = Path(path)
    raw = read_bytes(path)
    instance = canonical_instance(raw)  # an instance file as geosched writes it, without a dict per request
    if instance is not None:
        return instance
    return instance_from_json_object(loads(decode_text(raw, path), str(path)), str(path))


FORMAT = WorkloadFormat(
    name="json", suffixes=(".json",), order=0, read=read, label="instance JSON",
    description="an instance {memory, requests} or a witness file's instance (read only)")
