"""Whether a GPU server of vLLM 0.33 accepts a replay's settings: vLLM's own argument parser, engine-config
builder and attention backends' block-size rule, run at export time.

A ``vllm-bench`` export writes ``vllm serve`` settings (:mod:`geosched.reference_impl.formats.serving`). Three
things in vLLM 0.33 can refuse them, and :func:`check_server_settings` asks each of them:

* the ``vllm serve`` argument parser (``vllm.entrypoints.common.cli_args.make_arg_parser``, then
  ``validate_parsed_serve_args``);
* the engine-config builder (``AsyncEngineArgs.from_cli_args(...).create_engine_config()``), on the
  model directory the GPU replay serves (:func:`geosched.reference_impl.formats.serving.build_model_dir`);
  the check also confirms that vLLM kept the block size, block count, length and batch limits;
* the KV block size: a GPU worker runs ``select_common_block_size(block_size, [backend])`` for its
  attention backend, which refuses a block size that none of the backend's kernel block sizes
  divides. On CUDA, a standard decoder gets one of :data:`CUDA_BACKENDS` (vLLM 0.33's
  ``vllm/platforms/cuda.py``, ``_get_backend_priorities`` without MLA); each is asked.

vLLM is imported in a subprocess (its import is slow, changes logging and resolves a platform: nothing of
that touches the caller). Without vLLM installed, only :data:`RECORDED_BLOCK_SIZES` (geosched's record of
what those backends declare, compared with vLLM's own classes by ``tests/test_vllm_replay_http.py``)
is applied, and the result says so. That record also answers first: a block size it refuses is
refused without starting vLLM (every CUDA backend needs a multiple of 16).

Example
-------
>>> recorded_block_rule(1).accepted, recorded_block_rule(16).accepted
(False, True)
>>> recorded_block_rule(1).refusal()  # doctest: +ELLIPSIS
'--block-size 1 is rejected by every CUDA attention backend of vLLM 0.33 (FLASH_ATTN, ... multiples of 16)'
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from geosched.reference_impl.formats.serving import ServerSettings, build_model_dir

__all__ = ["CUDA_BACKENDS", "RECORDED_BLOCK_SIZES", "ServerCheck", "block_grain_fix", "check_server_settings",
           "recorded_block_rule"]

VLLM_VERSION = "0.33"
# vLLM 0.33's attention backends for a standard (non-MLA) decoder on CUDA, in its priority order
CUDA_BACKENDS = ("FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "FLEX_ATTENTION", "TURBOQUANT")
# what each declares in get_supported_kernel_block_sizes(): ("multiple", b) = any multiple of b, or exact sizes;
# a KV block size B is served when a declared kernel size divides it (select_common_block_size)
RECORDED_BLOCK_SIZES: dict[str, tuple[Any, ...]] = {
    "FLASH_ATTN": ("multiple", 16), "FLASHINFER": (16, 32, 64), "TRITON_ATTN": ("multiple", 16),
    "FLEX_ATTENTION": ("multiple", 16), "TURBOQUANT": (16, 32, 64, 128)}
CHECK_TIMEOUT = 300.0  # seconds for vLLM's check (its import is most of it)


def _recorded_kernel(name: str, block_size: int) -> int | None:
    declared = RECORDED_BLOCK_SIZES[name]
    if declared[0] == "multiple":
        return block_size if block_size % declared[1] == 0 else None
    fitting = [size for size in declared if block_size % size == 0]
    return block_size if block_size in declared else max(fitting, default=None)


@dataclass(frozen=True)
class ServerCheck:
    """What vLLM 0.33 says of a replay's server settings. ``accepted``: True, False, or None (not checked)."""

    accepted: bool | None
    by: str  # which checks ran
    block_size: int
    backends: dict[str, str] = field(default_factory=dict)  # backend -> its kernel block, or why not
    problems: list[str] = field(default_factory=list)  # vLLM's refusals
    notes: list[str] = field(default_factory=list)

    @property
    def block_refused(self) -> bool:
        """Every backend that could be asked refused the block size."""
        asked = [v for v in self.backends.values() if not v.startswith("not importable")]
        return bool(asked) and all(v.startswith("rejects") for v in asked)

    def refusal(self) -> str:
        """One clause: why vLLM refuses (empty when it accepts)."""
        if self.block_refused:
            rejecting = [k for k, v in self.backends.items() if v.startswith("rejects")]
            return (f"--block-size {self.block_size} is rejected by every CUDA attention backend of vLLM "
                    f"{VLLM_VERSION} ({', '.join(rejecting)}: multiples of 16)")
        return "; ".join(self.problems)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def recorded_block_rule(block_size: int) -> ServerCheck:
    """:data:`RECORDED_BLOCK_SIZES` applied to ``block_size`` (no vLLM needed)."""
    backends = {}
    for name in CUDA_BACKENDS:
        kernel = _recorded_kernel(name, block_size)
        backends[name] = f"kernel block {kernel}" if kernel else f"rejects {block_size} (declares {_declared(name)})"
    check = ServerCheck(None, f"geosched's record of vLLM {VLLM_VERSION}'s attention backends' block sizes",
                        block_size, backends)
    accepted = not check.block_refused
    return ServerCheck(accepted, check.by, block_size, backends,
                       [] if accepted else [check.refusal()])


def _declared(name: str) -> str:
    declared = RECORDED_BLOCK_SIZES[name]
    return f"multiples of {declared[1]}" if declared[0] == "multiple" else ", ".join(map(str, declared))


def block_grain_fix(memory: int, policy: str | None, stem: str, *, witness: bool = True) -> str:
    """What a user runs instead of a token-grain export for a GPU: a hunt at block grain, then its export
    (a witness is certified at its grain); a plain workload whose ``M`` allows it may also be exported at 16.

    >>> block_grain_fix(40, "vllm-fcfs", "worst")  # doctest: +NORMALIZE_WHITESPACE
    'hunt at block grain: `geosched hunt --policy vllm-fcfs --block-size 16 --memory 640 --out worst-hunt16`
     then `geosched export worst-hunt16/best_witness.json --format vllm-bench --out worst-block16.jsonl`'
    """
    target = "vllm-priority" if str(policy or "").startswith("vllm-priority") else "vllm-fcfs"
    hunt = (f"hunt at block grain: `geosched hunt --policy {target} --block-size 16 --memory {16 * memory} "
            f"--out {stem}-hunt16` then `geosched export {stem}-hunt16/best_witness.json --format vllm-bench "
            f"--out {stem}-block16.jsonl`")
    if witness or memory % 16:
        return hunt
    return f"export with --block-size 16 (vLLM then counts the M = {memory} tokens in blocks of 16), or {hunt}"


def check_server_settings(settings: ServerSettings, *, use_vllm: bool | None = None, timeout: float = CHECK_TIMEOUT,
                          progress: Callable[[str], None] | None = None) -> ServerCheck:
    """Ask vLLM 0.33 (module docstring) whether a GPU server accepts ``settings``.

    ``use_vllm``: None (vLLM's own checks when vLLM is installed), False (the recorded block rule only).
    A block size the record refuses is refused at once; ``accepted`` is None when vLLM's check could not
    finish (``timeout``, a crash): the problems say why. ``progress`` is told before vLLM is started.
    """
    rule = recorded_block_rule(settings.block_size)
    installed = importlib.util.find_spec("vllm") is not None
    if not rule.accepted or use_vllm is False or not installed:
        note = "vLLM is not installed here: its parser and engine config were not run" if not installed else \
            "vLLM's parser and engine config were not run (recorded rule only)"
        return ServerCheck(rule.accepted, rule.by, rule.block_size, rule.backends, rule.problems,
                           [] if not rule.accepted else [note])
    if progress is not None:
        progress(f"checking the vllm serve settings (block size {settings.block_size}) with vLLM's own parser, "
                 "engine config and attention backends, in a subprocess")
    env = dict(os.environ, VLLM_TARGET_DEVICE="cpu", HF_HUB_OFFLINE="1", VLLM_LOGGING_LEVEL="ERROR")
    command = [sys.executable, "-m", __name__, json.dumps(settings.to_dict())]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
        verdict = json.loads(done.stdout.strip().splitlines()[-1])
    except subprocess.TimeoutExpired:
        return ServerCheck(None, "vLLM's checks", settings.block_size, rule.backends,
                           [f"vLLM's checks did not finish in {timeout:.0f} s"])
    except (IndexError, ValueError):
        return ServerCheck(None, "vLLM's checks", settings.block_size, rule.backends,
                           [f"vLLM's checks failed: {(done.stderr or done.stdout).strip()[-300:]}"])
    return ServerCheck(**verdict)


def _parse_serve_args(args: list[str]) -> tuple[Any, str | None]:
    """vLLM's ``vllm serve`` parser and its quick checks on ``args`` (after ``vllm serve``)."""
    from vllm.entrypoints.common.cli_args import make_arg_parser, validate_parsed_serve_args
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    parser = make_arg_parser(FlexibleArgumentParser(prog="vllm serve"))
    errors = io.StringIO()
    try:
        with contextlib.redirect_stderr(errors):
            namespace = parser.parse_args(args)
    except SystemExit:
        return None, "vllm serve's parser: " + (errors.getvalue().strip().splitlines() or ["refused"])[-1]
    namespace.subparser = "serve"
    if getattr(namespace, "model_tag", None):
        namespace.model = namespace.model_tag
    try:
        validate_parsed_serve_args(namespace)
    except (ValueError, TypeError) as exc:
        return None, f"vllm serve's argument checks: {str(exc).splitlines()[0]}"
    return namespace, None


def _engine_config_problems(namespace: Any, settings: ServerSettings) -> list[str]:
    """``create_engine_config`` on the parsed arguments; what it refused or changed."""
    from vllm.engine.arg_utils import AsyncEngineArgs

    try:
        config = AsyncEngineArgs.from_cli_args(namespace).create_engine_config()
    except Exception as exc:  # noqa: BLE001 - any refusal of vLLM's config builder is the answer
        return [f"vLLM's create_engine_config: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}"]
    kept = {"--block-size": (config.cache_config.block_size, settings.block_size),
            "--num-gpu-blocks-override": (config.cache_config.num_gpu_blocks_override,
                                          settings.num_gpu_blocks_override),
            "--max-model-len": (config.model_config.max_model_len, settings.max_model_len),
            "--max-num-seqs": (config.scheduler_config.max_num_seqs, settings.max_num_seqs),
            "--max-num-batched-tokens": (config.scheduler_config.max_num_batched_tokens,
                                         settings.max_num_batched_tokens),
            "--no-enable-prefix-caching": (bool(config.cache_config.enable_prefix_caching), False),
            "--scheduling-policy": (config.scheduler_config.policy, settings.scheduling_policy),
            "--no-async-scheduling": (bool(config.scheduler_config.async_scheduling), False)}
    return [f"vLLM's create_engine_config changed {flag} from {wanted!r} to {got!r}"
            for flag, (got, wanted) in kept.items() if got != wanted]


def _backend_verdicts(block_size: int) -> dict[str, str]:
    """``select_common_block_size(block_size, [backend])`` for each of :data:`CUDA_BACKENDS`."""
    from vllm.v1.attention.backends.registry import AttentionBackendEnum
    from vllm.v1.worker.utils import select_common_block_size

    verdicts = {}
    for name in CUDA_BACKENDS:
        try:
            backend = AttentionBackendEnum[name].get_class()
        except Exception as exc:  # noqa: BLE001 - a backend whose kernels are not installed here
            verdicts[name] = f"not importable here ({type(exc).__name__}: {str(exc)[:80]})"
            continue
        try:
            verdicts[name] = f"kernel block {select_common_block_size(block_size, [backend])}"
        except ValueError as exc:
            verdicts[name] = f"rejects {block_size} ({str(exc)[:120]})"
    return verdicts


def _vllm_verdict(settings: ServerSettings) -> dict[str, Any]:
    """vLLM's three checks (module docstring), in this process; the fields of a :class:`ServerCheck`."""
    from importlib.metadata import version

    by = (f"vLLM {version('vllm')}: vllm serve's parser, create_engine_config, select_common_block_size of "
          f"{len(CUDA_BACKENDS)} CUDA attention backends")
    with tempfile.TemporaryDirectory(prefix="geosched-server-check-") as folder:
        model = build_model_dir(folder, settings.max_model_len)
        namespace, problem = _parse_serve_args(settings.serve_args(str(model))[2:])
        problems = [problem] if problem else _engine_config_problems(namespace, settings)
    backends = _backend_verdicts(settings.block_size)
    check = ServerCheck(None, by, settings.block_size, backends, problems)
    if check.block_refused:
        problems = [*problems, check.refusal()]
    notes = [f"{k}: {v}" for k, v in backends.items() if v.startswith("not importable")]
    return asdict(ServerCheck(not problems, by, settings.block_size, backends, problems, notes))


def _main(argv: list[str]) -> int:
    # a fresh process whose environment check_server_settings set (VLLM_TARGET_DEVICE=cpu, HF_HUB_OFFLINE=1) before
    # vLLM resolves its platform: what vllm.harness.ensure_vllm_device does, without importing the vllm/ client
    os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    settings = ServerSettings.from_dict(json.loads(argv[0]))
    with contextlib.redirect_stdout(sys.stderr):  # vLLM's own prints stay off the verdict line
        verdict = _vllm_verdict(settings)
    print(json.dumps(verdict))
    return 0


if __name__ == "__main__":  # check_server_settings runs vLLM's checks here, in a subprocess
    raise SystemExit(_main(sys.argv[1:]))
