"""What a vLLM server needs to reproduce a model workload: its KV memory, block size and batching.

A geosched workload fixes the KV budget ``M`` (tokens) and, for stock vLLM's semantics, the
engine parameters (:class:`~geosched.reference_impl.vllm.semantics.EngineParams`). A vLLM server
reproduces them with these flags of ``vllm serve`` (vLLM 0.33):

* ``--block-size B`` and ``--num-gpu-blocks-override N`` with ``N = M / B + 1`` (vLLM keeps one
  block back as its null block, so ``N - 1 = M / B`` blocks hold KV);
* ``--max-num-seqs`` and ``--max-num-batched-tokens`` (the batch limits), ``--max-model-len L``
  (vLLM checks at start that one request of ``L`` tokens fits in the usable blocks, and a request
  of ``P`` prompt and ``o`` output tokens needs ``L >= P + o``);
* ``--no-enable-prefix-caching`` (the model has no prefix sharing), ``--scheduling-policy``
  (``fcfs`` or ``priority``: the preemption rule), ``--no-async-scheduling`` (the model's steps are
  vLLM's synchronous ones: each step schedules after the previous one's outputs),
  ``--no-enable-chunked-prefill`` where the model does not split prefills, and ``--scheduler-cls`` for
  geosched's plugin (:data:`~geosched.reference_impl.code_names.PLUGIN_SCHEDULER`) or a plugin scheduler of
  your own.

A scheduler of your own is a file, ``FILE.py:Class``, given on the command line (``export --scheduler-cls``,
``serve-model --scheduler-cls``): the settings record it as a label with the SHA-256 of its bytes
(``scheduler_sha256``), never as a module path that vLLM would import; a server runs only a file that the
command line names again, with that SHA-256 (:mod:`geosched.reference_impl.code_names`).

:func:`bench_args` is the ``vllm bench serve`` command that replays an exported ``vllm-bench``
file (``--dataset-name timed_trace``, which keeps the file's order and timestamps and ignores
EOS); :func:`build_model_dir` writes the small local model directory both serve (random weights,
a word-level tokenizer: nothing is downloaded). Nothing here imports vLLM. Whether vLLM accepts the
settings is :mod:`geosched.reference_impl.formats.server_check`'s question.

Example
-------
>>> settings = ServerSettings(memory=64, block_size=16, max_num_seqs=8, max_num_batched_tokens=4096,
...                           max_model_len=64)
>>> " ".join(settings.serve_args("MODEL"))  # doctest: +NORMALIZE_WHITESPACE
'vllm serve MODEL --block-size 16 --num-gpu-blocks-override 5 --max-num-seqs 8
 --max-num-batched-tokens 4096 --max-model-len 64 --no-enable-prefix-caching --scheduling-policy fcfs
 --no-async-scheduling --load-format dummy --enforce-eager'
"""

from __future__ import annotations

import json
import shlex
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from geosched.errors import ValidationError
from geosched.reference_impl.code_names import PLUGIN_SCHEDULER, VLLM_POLICIES, refuse_code_names
from geosched.reference_impl.model import Instance

__all__ = ["REQUEST_ID_PREFIX", "ServerSettings", "server_settings", "bench_args", "replay_script", "build_model_dir"]

SCHEDULING_POLICIES = VLLM_POLICIES
SCHEDULER_CLS_VARIABLE = "SCHEDULER_CLS"  # replay.sh's variable for a plugin file's module path (vllm serve imports it)
# vllm bench serve's --request-id-prefix of a replay: request k of the file (its k-th line) reaches the server with
# the header X-Request-Id: geosched-k, which the server's request log prints (the replay's order check reads it)
REQUEST_ID_PREFIX = "geosched-"
VOCAB = 4096  # the local tokenizer's words (build_model_dir): enough that the client's random token ids are all valid


@dataclass(frozen=True)
class ServerSettings:
    """The ``vllm serve`` settings under which vLLM's memory and batching equal the model's."""

    memory: int  # KV budget M in tokens (a multiple of block_size)
    block_size: int  # tokens per KV block
    max_num_seqs: int  # most running requests
    max_num_batched_tokens: int  # token budget per step
    max_model_len: int  # longest request (prompt + output tokens); must fit in M
    scheduling_policy: str = "fcfs"  # vLLM's queue and preemption rule
    enable_chunked_prefill: bool = True  # whether prefills may be split over steps
    scheduler_cls: str | None = None  # None (stock vLLM), geosched's plugin, or a file label "FILE.py:Class"
    scheduler_sha256: str | None = None  # the SHA-256 of that file's bytes (a file label only)

    def __post_init__(self) -> None:
        for name in ("memory", "block_size", "max_num_seqs", "max_num_batched_tokens", "max_model_len"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValidationError(name, value, "must be an integer >= 1")
        if self.memory % self.block_size:
            raise ValidationError("memory", self.memory, f"must be a multiple of the block size {self.block_size}")
        if self.max_model_len > self.memory:
            raise ValidationError("max_model_len", self.max_model_len,
                                  f"must be <= the KV budget M = {self.memory} (vLLM checks that one request of "
                                  "max_model_len tokens fits)")
        if self.scheduling_policy not in SCHEDULING_POLICIES:
            raise ValidationError("scheduling_policy", self.scheduling_policy,
                                  f"must be one of {', '.join(SCHEDULING_POLICIES)}")
        self._check_scheduler()

    def _check_scheduler(self) -> None:
        """``scheduler_cls`` is None, geosched's plugin, or a file label pinned by ``scheduler_sha256``."""
        label = self.plugin_file is not None
        if self.scheduler_cls not in (None, PLUGIN_SCHEDULER) and not label:
            raise ValidationError("scheduler_cls", self.scheduler_cls,
                                  f"must be null, {PLUGIN_SCHEDULER} or a scheduler file FILE.py:Class (a module path "
                                  "would make vLLM import code the settings name)")
        sha = self.scheduler_sha256
        if label != (sha is not None) or (sha is not None and not (
                isinstance(sha, str) and len(sha) == 64 and all(c in "0123456789abcdef" for c in sha))):
            raise ValidationError("scheduler_sha256", sha, "must be the 64 hex digits of the scheduler file's SHA-256 "
                                  "when scheduler_cls is a file FILE.py:Class, else null")

    @property
    def plugin_file(self) -> str | None:
        """The file label ``FILE.py:Class`` of a plugin scheduler of the user's own, else None."""
        cls = self.scheduler_cls
        path, sep, name = cls.rpartition(":") if isinstance(cls, str) else ("", "", "")
        return cls if sep and path.endswith(".py") and name.isidentifier() else None

    @property
    def num_gpu_blocks_override(self) -> int:
        """vLLM's block count: the usable ``M / B`` plus its null block."""
        return self.memory // self.block_size + 1

    def serve_args(self, model: str, *, plugin_module: str | None = None) -> list[str]:
        """``vllm serve`` with these settings, for a model directory (random weights: ``--load-format dummy``).

        A plugin file of the user's own (``plugin_file``) is passed as ``plugin_module`` (``module.Class``, which
        ``vllm serve`` imports: the user's own words, never the file's); without it the settings are refused."""
        args = ["vllm", "serve", model, "--block-size", str(self.block_size),
                "--num-gpu-blocks-override", str(self.num_gpu_blocks_override),
                "--max-num-seqs", str(self.max_num_seqs), "--max-num-batched-tokens", str(self.max_num_batched_tokens),
                "--max-model-len", str(self.max_model_len), "--no-enable-prefix-caching",
                "--scheduling-policy", self.scheduling_policy, "--no-async-scheduling"]
        if not self.enable_chunked_prefill:
            args.append("--no-enable-chunked-prefill")
        if self.plugin_file is not None:
            if plugin_module is None:
                raise ValidationError("scheduler_cls", self.scheduler_cls, "is a scheduler file of your own: vllm "
                                      "serve imports a module path, which you give (module.Class), never the file")
            args += ["--scheduler-cls", plugin_module]
        elif self.scheduler_cls:
            args += ["--scheduler-cls", self.scheduler_cls]
        return args + ["--load-format", "dummy", "--enforce-eager"]

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "num_gpu_blocks_override": self.num_gpu_blocks_override}

    @classmethod
    def from_dict(cls, data: Any) -> ServerSettings:
        """The settings of :meth:`to_dict` (an export's ``geosched_workload.server``); the derived block count
        must agree with the stated one."""
        if not isinstance(data, dict):
            raise ValidationError("geosched_workload.server", data, "must be an object")
        refuse_code_names(data, "geosched_workload.server")  # before any field is used (or vLLM imported)
        fields = {k: v for k, v in data.items() if k != "num_gpu_blocks_override"}
        try:
            settings = cls(**fields)
        except TypeError as exc:
            raise ValidationError("geosched_workload.server", sorted(fields), f"are not the server settings ({exc})") \
                from None
        stated = data.get("num_gpu_blocks_override", settings.num_gpu_blocks_override)
        if stated != settings.num_gpu_blocks_override:
            raise ValidationError("geosched_workload.server.num_gpu_blocks_override", stated,
                                  f"must be memory / block_size + 1 = {settings.num_gpu_blocks_override}")
        return settings


def server_settings(instance: Instance, *, engine: Any = None, scheduler_cls: str | None = None,
                    scheduler_sha256: str | None = None) -> ServerSettings:
    """The settings that reproduce ``instance``'s memory in whole blocks of its ``block_size``, from a
    witness's ``engine`` (EngineParams or dict) if given.

    Without an engine, the batch limits never bind (``max_num_seqs = n``, a token budget of ``M + n``).

    Raises
    ------
    ValidationError
        When the engine's block size is not the instance's, or its blocks do not hold ``M``, or a
        request cannot be served in ``M``
        (vLLM needs ``max_model_len = P + o = s + 1 + o`` tokens to fit in the usable blocks).
    """
    fields = engine if isinstance(engine, dict) else (asdict(engine) if engine is not None else {})
    block = instance.block_size
    if int(fields.get("block_size", block)) != block:
        raise ValidationError("engine.block_size", fields["block_size"], f"must be the instance's block_size {block}")
    if "capacity_blocks" in fields and fields["capacity_blocks"] * block != instance.memory:
        raise ValidationError("engine.capacity_blocks", fields["capacity_blocks"],
                              f"times block_size {block} must equal the memory M = {instance.memory}")
    longest = max((r.prompt + 1 + r.output for r in instance.requests), default=1)
    if longest > instance.memory:
        raise ValidationError("requests", longest,
                              f"the longest request needs max_model_len = s + 1 + o = {longest} tokens, more than "
                              f"M = {instance.memory}: vLLM refuses such a server (alpha must be < 1)")
    return ServerSettings(
        memory=instance.memory, block_size=block,
        max_num_seqs=int(fields.get("max_num_seqs", max(1, instance.n))),
        max_num_batched_tokens=int(fields.get("max_num_batched_tokens", instance.memory + max(1, instance.n))),
        max_model_len=longest, scheduling_policy=str(fields.get("preemption", "fcfs")),
        enable_chunked_prefill=bool(fields.get("enable_chunked_prefill", True)), scheduler_cls=scheduler_cls,
        scheduler_sha256=scheduler_sha256)


def bench_args(dataset_path: str, model: str, n: int, *, port: int = 8000, host: str = "127.0.0.1",
               result_dir: str | None = None) -> list[str]:
    """``vllm bench serve`` replaying an exported ``vllm-bench`` file in its order and timestamps.

    No ready-check request (``--ready-check-timeout-sec 0``: the server is up before the client starts, and
    a test request would reach the server before the replay's first one), request ids
    ``geosched-<line>`` (:data:`REQUEST_ID_PREFIX`), and the per-request result file
    (``--save-result --save-detailed``: ``latencies``, ``ttfts``, ``itls``, ``start_times``...), written
    to ``result_dir/bench.json`` when ``result_dir`` is given.
    """
    args = ["vllm", "bench", "serve", "--backend", "vllm", "--model", model, "--host", host, "--port", str(port),
            "--dataset-name", "timed_trace", "--dataset-path", dataset_path, "--num-prompts", str(n),
            "--timed-trace-chunk-hash-size", "16", "--ignore-eos", "--request-id-prefix", REQUEST_ID_PREFIX,
            "--ready-check-timeout-sec", "0", "--save-result", "--save-detailed", "--percentile-metrics",
            "ttft,tpot,itl,e2el"]
    if result_dir is not None:
        args += ["--result-dir", result_dir, "--result-filename", "bench.json"]
    return args


def replay_script(settings: ServerSettings, dataset_path: str, n: int, *, model: str = "$MODEL") -> str:
    """A shell script that starts the server and replays the file (``MODEL``: a model directory)."""
    module = f"${SCHEDULER_CLS_VARIABLE}" if settings.plugin_file is not None else None
    variables = {"$MODEL": '"$MODEL"', module: f'"{module}"'}  # expanded by the shell, not quoted away
    serve = " ".join(variables.get(a) or shlex.quote(a) for a in settings.serve_args(model, plugin_module=module))
    bench = " ".join(variables.get(a) or shlex.quote(a) for a in bench_args(dataset_path, model, n))
    return ("#!/usr/bin/env bash\n"
            "# Replays a geosched vllm-bench export in vLLM with the memory and batching of the model.\n"
            "# MODEL: a model directory (random weights are enough: --load-format dummy); a GPU is needed.\n"
            "# benchmarks/gpu_replay.py builds a small model locally, runs both commands and checks the order and\n"
            "# timing in which the server received the requests (docs/vllm.md, replay fidelity).\n"
            "set -euo pipefail\n"
            'MODEL="${MODEL:?set MODEL to a model directory}"\n'
            + (f"# --scheduler-cls: your scheduler file {settings.plugin_file!r} (SHA-256 {settings.scheduler_sha256}) "
               f"as a module path vllm serve imports\n{SCHEDULER_CLS_VARIABLE}=\"${{{SCHEDULER_CLS_VARIABLE}:?set "
               f"{SCHEDULER_CLS_VARIABLE} to module.Class of your scheduler file}}\"\n"
               if settings.plugin_file is not None else "") +
            f"{serve} &\n"
            "server=$!\n"
            "trap 'kill $server' EXIT\n"
            "until curl -sf 127.0.0.1:8000/health >/dev/null; do sleep 2; done\n"
            f"{bench}\n")


def build_model_dir(folder: str | Path, max_len: int) -> Path:
    """A tiny Llama config and a word-level tokenizer, written locally: what ``vllm serve --load-format dummy``
    serves (random weights) and what ``vllm bench serve`` tokenizes with. Nothing is downloaded."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    length = max(max_len, 2048)
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256,
              "intermediate_size": 512, "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 4,
              "vocab_size": VOCAB, "max_position_embeddings": length, "torch_dtype": "bfloat16",
              "bos_token_id": 1, "eos_token_id": 2, "rms_norm_eps": 1e-5, "tie_word_embeddings": False}
    (folder / "config.json").write_text(json.dumps(config, indent=1))
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, **{f"w{k}": k for k in range(3, VOCAB)}}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>",
        "model_max_length": length}))
    (folder / "special_tokens_map.json").write_text(json.dumps({"bos_token": "<s>", "eos_token": "</s>",
                                                                "unk_token": "<unk>"}))
    return folder
