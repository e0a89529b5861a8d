"""The one gate for names of code in data files: a file geosched reads never names code that runs.

A witness, a workload, an export's header, a hunt checkpoint, a server's settings or a record is
data: a reader takes numbers and built-in names from it, never a module, a class or a file to import.
Every reader passes what it parsed through :func:`refuse_code_names` before it uses any of it (and,
where vLLM is involved, before vLLM is imported: a refusal takes milliseconds, not an import of vLLM).

**Which fields name code.** By their key, anywhere in the file (nested objects and lists included):
the policy keys ``policy`` and ``scheduler`` (a scheduler the simulator or a hunt would build), vLLM's
``scheduling_policy`` and ``preemption``, every key ending in ``_cls`` or ``_class`` (vLLM's
``scheduler_cls``, ``worker_cls``, ...), and the keys :data:`CODE_KEYS` lists (``module``,
``callable``, ``factory``, ``plugin``, ``entrypoint``, ...).

**What is built in** (:func:`builtin_name`): for a policy key, a registered scheduler's name or spec
(``svf``, ``svf1:theta=8``: the base name in :func:`~geosched.reference_impl.scheduler_registry.scheduler_names`,
plain parameter values); for ``scheduling_policy``/``preemption``, vLLM's ``fcfs`` or ``priority``; for
``scheduler_cls``, geosched's own vLLM plugin class; nothing else. ``null`` is always allowed (no code).

**A user's own code** comes from the command line only (``--policy FILE.py:Class``,
``check-witness --scheduler``, ``serve-model --scheduler-cls``), pinned by the SHA-256 of its file. A data
file may *label* such code: a scheduler file ``path.py:Class`` in a policy key or ``scheduler_cls`` is
accepted when the same object records the SHA-256 of its bytes (``scheduler_sha256``, 64 hex digits; a
witness of your own scheduler, an export made with ``--scheduler-cls``). The label never runs: the
one reader that runs a witness's policy (:func:`geosched.adversary.witness.verify_witness`) and the
server (``serve-model``) run only a file the command line names, after checking that its SHA-256 is
the recorded one. A reader that was given code on the command line passes the keys it fills with it
as ``own``: the file's value there is then only compared with the command line's, never run.

Example
-------
>>> refuse_code_names({"policy": "svf", "instance": {"requests": []}}, "w.json")
>>> refuse_code_names({"server": {"scheduler_cls": "evil.Evil"}}, "e.jsonl")
Traceback (most recent call last):
...
geosched.errors.WorkloadFormatError: e.jsonl: server.scheduler_cls 'evil.Evil' names code, and geosched never runs ...
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from geosched.errors import WorkloadFormatError
from geosched.reference_impl.scheduler_registry import scheduler_names

__all__ = ["CODE_KEYS", "VLLM_POLICIES", "PLUGIN_SCHEDULER", "names_code", "builtin_name", "refuse_code_names"]

POLICY_KEYS = frozenset({"policy", "scheduler"})  # a scheduler the simulator or a hunt would build
VLLM_POLICIES = ("fcfs", "priority")  # vLLM's SchedulerConfig.policy: its queue and preemption rule
VLLM_POLICY_KEYS = frozenset({"scheduling_policy", "preemption"})
PLUGIN_SCHEDULER = "geosched.reference_impl.vllm.plugin.GeoschedScheduler"  # geosched's own vLLM scheduler
CODE_KEYS = frozenset({
    *POLICY_KEYS, *VLLM_POLICY_KEYS, "module", "modules", "callable", "factory", "plugin", "plugins",
    "entrypoint", "entry_point", "import", "imports", "hook", "loader", "executor_backend",
    "distributed_executor_backend", "code", "source_file", "script",
})
_CODE_SUFFIXES = ("_cls", "_class", "_module", "_factory", "_callable", "_plugin", "_hook", "_entrypoint")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_PLAIN_VALUE = re.compile(r"[-+]?[A-Za-z0-9_]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")  # a number or a word, no path


def names_code(key: str) -> bool:
    """Whether a field of this key names code (module docstring).

    >>> names_code("scheduler_cls"), names_code("worker_class"), names_code("policy"), names_code("tie_rule")
    (True, True, True, False)
    """
    return key in CODE_KEYS or key.endswith(_CODE_SUFFIXES)


def builtin_name(key: str, value: Any, *, pinned: bool = False) -> bool:
    """Whether ``value`` of a code-naming field ``key`` is built in, or (``pinned``: the object records
    the file's SHA-256) the label of a user's scheduler file (module docstring).

    >>> builtin_name("policy", "svf1:theta=8"), builtin_name("policy", "sub/p.py:X"), builtin_name("policy", "a.B")
    (True, False, False)
    >>> builtin_name("policy", "sub/p.py:X", pinned=True), builtin_name("policy", "a.B", pinned=True)
    (True, False)
    """
    if value is None:
        return True
    if not isinstance(value, str):
        return False
    if key in POLICY_KEYS or key == "scheduler_cls":
        if pinned and _file_label(value):
            return True
        return _registered_spec(value) if key in POLICY_KEYS else value == PLUGIN_SCHEDULER
    if key in VLLM_POLICY_KEYS:
        return value in VLLM_POLICIES
    return False


def _file_label(value: str) -> bool:
    """``path/to/file.py:Class``: a scheduler file and a class name, nothing else."""
    path, sep, name = value.rpartition(":")
    return bool(sep) and path.endswith(".py") and name.isidentifier() and "\n" not in path


def _registered_spec(spec: str) -> bool:
    name, _, params = spec.partition(":")
    if name not in scheduler_names():
        return False
    for item in filter(None, (part.strip() for part in params.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip().isidentifier() or not _PLAIN_VALUE.fullmatch(value.strip()):
            return False
    return True


def refuse_code_names(data: Any, source: str, *, own: Collection[str] = ()) -> None:
    """Refuse a data file (``data``: what was parsed from it, ``source``: its name in the message) any of
    whose fields names code that is not built in; the keys in ``own`` are filled by the caller with code
    the command line gave it (module docstring), and are not looked at here.

    The walk is iterative (a deeply nested file cannot exhaust the stack) and visits every object and list.

    Raises
    ------
    WorkloadFormatError
        One line: the file, the field's path, its value, and where a user's own code is given instead.
    """
    pending: list[tuple[Any, str]] = [(data, "")]
    while pending:
        node, path = pending.pop()
        if isinstance(node, dict):
            pinned = isinstance(node.get("scheduler_sha256"), str) and bool(_SHA256.fullmatch(node["scheduler_sha256"]))
            for key, value in node.items():
                where = f"{path}.{key}" if path else str(key)
                if isinstance(key, str) and names_code(key) and key not in own \
                        and not builtin_name(key, value, pinned=pinned):
                    raise WorkloadFormatError(_refusal(source, where, key, value))
                if isinstance(value, (dict, list)):
                    pending.append((value, where))
        elif isinstance(node, list):
            pending.extend((item, f"{path}[{k}]") for k, item in enumerate(node) if isinstance(item, (dict, list)))


def _refusal(source: str, where: str, key: str, value: Any) -> str:
    shown = repr(value) if not isinstance(value, (dict, list)) else f"(a JSON {type(value).__name__})"
    if len(shown) > 120:
        shown = shown[:117] + "..."
    label = "; a scheduler file FILE.py:Class only beside the scheduler_sha256 that pins it"
    if key in POLICY_KEYS:
        allowed = f"a registered scheduler's name{label}"
        own = "your own scheduler file is given on the command line (--policy FILE.py:Class, check-witness " \
              "--scheduler FILE.py:Class), where its SHA-256 is checked"
    elif key in VLLM_POLICY_KEYS:
        allowed = f"one of vLLM's policies {', '.join(VLLM_POLICIES)}"
        own = "a scheduler class of your own is given on the command line (serve-model --scheduler-cls FILE.py:Class)"
    else:
        allowed = f"null or {PLUGIN_SCHEDULER}{label}" if key == "scheduler_cls" else "null"
        own = "a class of your own is given on the command line (serve-model --scheduler-cls FILE.py:Class), where " \
              "its SHA-256 is checked"
    return (f"{source}: {where} {shown} names code, and geosched never runs code a data file names (built in "
            f"here: {allowed}); {own}")
