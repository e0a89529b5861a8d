"""Model files: a :class:`~geosched.reference_impl.predictors.learned.LengthModel` as JSON.

One JSON object (no pickle, so loading a file never runs code):

* ``format`` (``"geosched-length-model"``) and ``format_version`` (:data:`FORMAT_VERSION`);
* ``kind``, ``features``, ``feature_version``
  (:data:`~geosched.reference_impl.predictors.features.FEATURE_VERSION`), ``text_features``,
  ``step_seconds``, the standardisation, the architecture and the head's parameters;
* ``weights``: the float32 tensors, little-endian, base64, with their shapes, and
  ``weights_sha256``, the hash of those bytes;
* ``provenance``: the training data (file name, rows, ``data_sha256`` of the training rows,
  :func:`training_data_hash`), seed, hyper-parameters, versions of geosched, torch, numpy and
  Python, training seconds and the command; ``metrics``: the test metrics at training time.

Loading checks all of it and raises :class:`ModelFileError` (a
:class:`~geosched.errors.GeoschedError`: the CLI prints one line, exit 2) on an unknown format or
version, a feature version or name this code does not compute, another kind than asked for,
or weights whose hash or shapes do not match.

Example
-------
>>> import tempfile, pathlib
>>> model = load_model(default_model_path("point"), kind="point")
>>> path = pathlib.Path(tempfile.mkdtemp()) / "m.json"
>>> _ = save_model(model, path); load_model(path).weights[0].shape == model.weights[0].shape
True
>>> try:
...     load_model(path, kind="dist")
... except ModelFileError as exc:
...     print(str(exc).rsplit(": ", 1)[1])
a point model, not a dist model
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from geosched.errors import GeoschedError, ValidationError, WorkloadFormatError
from geosched.reference_impl.jsonfile import read_json
from geosched.reference_impl.predictors.features import FEATURE_VERSION, FEATURES, RequestLog
from geosched.reference_impl.predictors.learned import KINDS, LengthModel

__all__ = ["FORMAT", "FORMAT_VERSION", "ModelFileError", "save_model", "load_model", "model_to_dict", "model_text",
           "model_from_dict", "default_model_path", "load_default_model", "training_data_hash", "shipped_model_paths"]

FORMAT = "geosched-length-model"
FORMAT_VERSION = 1


class ModelFileError(GeoschedError, ValueError):
    """A model file cannot be used: unreadable, another format or version, or tampered with."""


def training_data_hash(log: RequestLog) -> str:
    """SHA-256 of the training rows: arrival seconds (float64), prompt and output (int64), little-endian.

    >>> import struct
    >>> rows = struct.pack("<d", 0.5) + struct.pack("<q", 1) + struct.pack("<q", 2)
    >>> training_data_hash(RequestLog([0.5], [1], [2])) == hashlib.sha256(rows).hexdigest()
    True
    """
    digest = hashlib.sha256()
    for array, dtype in ((log.arrival_seconds, "<f8"), (log.prompt, "<i8"), (log.output, "<i8")):
        digest.update(np.ascontiguousarray(array, dtype=dtype).tobytes())
    return digest.hexdigest()


def _pack(arrays: tuple[Any, ...]) -> tuple[dict[str, Any], str]:
    blob = b"".join(np.ascontiguousarray(a, dtype="<f4").tobytes() for a in arrays)
    packed = {"dtype": "float32-le", "shapes": [list(np.shape(a)) for a in arrays],
              "data": base64.b64encode(blob).decode("ascii")}
    return packed, hashlib.sha256(blob).hexdigest()


def model_to_dict(model: LengthModel) -> dict[str, Any]:
    """The JSON object of a model file."""
    weights, digest = _pack(model.weights)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "kind": model.kind,
        "features": list(model.features),
        "feature_version": FEATURE_VERSION,
        "text_features": model.text_features,
        "step_seconds": model.step_seconds,
        "standardize": {"mean": [float(v) for v in model.mean], "std": [float(v) for v in model.std]},
        "hidden": list(model.hidden),
        "head": {"theta": model.theta, "short_length": model.short_length, "long_length": model.long_length,
                 "max_output": model.max_output, "edges": list(model.edges)},
        "weights": weights,
        "weights_sha256": digest,
        "provenance": model.provenance,
        "metrics": model.metrics,
    }


def model_text(model: LengthModel) -> str:
    """The model file's text (:func:`model_to_dict` as indented JSON)."""
    return json.dumps(model_to_dict(model), indent=1) + "\n"


def save_model(model: LengthModel, path: str | Path, *, force: bool = True) -> Path:
    """Write ``model`` to ``path`` atomically with :func:`geosched.output.write_text_atomic`
    (``force=False`` refuses an existing file); returns the path."""
    from geosched.output import write_text_atomic

    return write_text_atomic(path, model_text(model), force=force)


def _require(data: dict[str, Any], key: str, where: str) -> Any:
    if key not in data:
        raise ModelFileError(f"{where}: missing key {key!r}; not a geosched model file")
    return data[key]


def _integer(value: Any, field: str, where: str, minimum: int = 0) -> int:
    """A JSON integer (not a bool, a float or a string) ``>= minimum``: checked, never coerced."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ModelFileError(f"{where}: {field} must be an integer >= {minimum}, got {value!r}")
    return value


def _integers(value: Any, field: str, where: str, minimum: int = 0) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise ModelFileError(f"{where}: {field} must be a list of integers, got {value!r}")
    return tuple(_integer(v, f"{field}[{k}]", where, minimum) for k, v in enumerate(value))


def _numbers(value: Any, field: str, where: str) -> np.ndarray:
    """A list of finite JSON numbers (the strict reader already refuses NaN/Infinity literals)."""
    if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in value):
        raise ModelFileError(f"{where}: {field} must be a list of numbers")
    out = np.asarray(value, dtype=np.float64)
    if not np.isfinite(out).all():
        raise ModelFileError(f"{where}: {field} holds a number past float64")
    return out


def _mapping(value: Any, field: str, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ModelFileError(f"{where}: {field} must be an object, got {type(value).__name__}")
    return value


def _unpack(packed: Any, digest: Any, where: str) -> tuple[np.ndarray, ...]:
    packed = _mapping(packed, "weights", where)
    if not isinstance(packed.get("data"), str) or not isinstance(digest, str):
        raise ModelFileError(f"{where}: weights are unreadable (data and weights_sha256 must be strings)")
    try:
        blob = base64.b64decode(packed["data"], validate=True)
    except ValueError as exc:
        raise ModelFileError(f"{where}: weights are unreadable ({exc})") from None
    if not isinstance(packed.get("shapes"), list):
        raise ModelFileError(f"{where}: weights.shapes must be a list of shapes")
    shapes = [_integers(shape, f"weights.shapes[{k}]", where) for k, shape in enumerate(packed["shapes"])]
    if packed.get("dtype") != "float32-le":
        raise ModelFileError(f"{where}: weights dtype {packed.get('dtype')!r}, expected 'float32-le'")
    if hashlib.sha256(blob).hexdigest() != digest:
        raise ModelFileError(f"{where}: weights do not match weights_sha256 (file corrupted or edited)")
    sizes = [math.prod(shape) for shape in shapes]  # exact: np.prod would wrap at 2^63
    if 4 * sum(sizes) != len(blob):
        raise ModelFileError(f"{where}: weights hold {len(blob)} bytes, the shapes need {4 * sum(sizes)}")
    flat = np.frombuffer(blob, dtype="<f4")
    out, offset = [], 0
    for shape, size in zip(shapes, sizes):
        out.append(flat[offset:offset + size].reshape(shape).copy())
        offset += size
    return tuple(out)


def model_from_dict(data: Any, where: str = "model", kind: str | None = None) -> LengthModel:
    """Check a model file's JSON object and build the model (see the module docstring)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ModelFileError(f"{where}: not a geosched model file (format {FORMAT!r} expected)")
    version = _require(data, "format_version", where)
    if isinstance(version, bool) or version != FORMAT_VERSION or not isinstance(version, int):
        raise ModelFileError(f"{where}: format_version {version!r}; this geosched reads {FORMAT_VERSION}")
    feature_version = _require(data, "feature_version", where)
    if isinstance(feature_version, bool) or feature_version != FEATURE_VERSION or not isinstance(feature_version, int):
        raise ModelFileError(f"{where}: trained on feature version {feature_version!r}, this geosched computes "
                             f"version {FEATURE_VERSION}: retrain it")
    features = _require(data, "features", where)
    if not isinstance(features, list) or not all(isinstance(name, str) for name in features):
        raise ModelFileError(f"{where}: features must be a list of names, got {features!r}")
    unknown = [name for name in features if name not in FEATURES]
    if unknown:
        raise ModelFileError(f"{where}: unknown feature(s) {', '.join(map(str, unknown))}")
    file_kind = _require(data, "kind", where)
    if not isinstance(file_kind, str) or file_kind not in KINDS:
        raise ModelFileError(f"{where}: kind {file_kind!r} is not one of {', '.join(KINDS)}")
    if kind is not None and kind != file_kind:
        raise ModelFileError(f"{where}: a {file_kind} model, not a {kind} model")
    weights = _unpack(_require(data, "weights", where), _require(data, "weights_sha256", where), where)
    model = _build(data, file_kind, tuple(features), weights, where)
    _check_shapes(model, where)
    return model


def _build(data: dict[str, Any], kind: str, features: tuple[str, ...], weights: tuple[np.ndarray, ...],
           where: str) -> LengthModel:
    """The model from the checked fields: every number is checked for its type, none is coerced."""
    head = _mapping(_require(data, "head", where), "head", where)
    standardize = _mapping(_require(data, "standardize", where), "standardize", where)
    step_seconds = _require(data, "step_seconds", where)
    if isinstance(step_seconds, bool) or not isinstance(step_seconds, (int, float)) or not step_seconds > 0:
        raise ModelFileError(f"{where}: step_seconds must be a positive number, got {step_seconds!r}")
    for key in ("theta", "short_length", "long_length", "max_output", "mean", "std"):
        if key not in (head if key not in ("mean", "std") else standardize):
            raise ModelFileError(f"{where}: missing key {key!r}; not a geosched model file")
    edges = _integers(head.get("edges", []), "head.edges", where, 1)
    if any(b <= a for a, b in zip(edges, edges[1:])):
        raise ModelFileError(f"{where}: head.edges must increase strictly, got {list(edges)}")
    try:
        return LengthModel(
            kind=kind, features=features, text_features=_integer(data.get("text_features", 0), "text_features", where),
            step_seconds=float(step_seconds),
            mean=_numbers(standardize["mean"], "standardize.mean", where),
            std=_numbers(standardize["std"], "standardize.std", where),
            hidden=_integers(_require(data, "hidden", where), "hidden", where, 1), weights=weights,
            theta=_integer(head["theta"], "head.theta", where),
            short_length=_integer(head["short_length"], "head.short_length", where, 1),
            long_length=_integer(head["long_length"], "head.long_length", where, 1),
            max_output=_integer(head["max_output"], "head.max_output", where, 1),
            edges=edges,
            provenance=dict(_mapping(data.get("provenance", {}), "provenance", where)),
            metrics=dict(_mapping(data.get("metrics", {}), "metrics", where)),
        )
    except ValidationError as exc:
        raise ModelFileError(f"{where}: malformed model ({exc})") from None


def _check_shapes(model: LengthModel, where: str) -> None:
    widths = [model.inputs, *model.hidden, model.outputs]
    expected = []
    for fan_in, fan_out in zip(widths[:-1], widths[1:]):
        expected += [(fan_out, fan_in), (fan_out,)]
    found = [tuple(w.shape) for w in model.weights]
    if found != expected:
        raise ModelFileError(f"{where}: weight shapes {found} do not fit {len(model.features)} features + "
                             f"{model.text_features} text columns, hidden {list(model.hidden)}, "
                             f"{model.outputs} outputs")
    if len(model.mean) != model.inputs or len(model.std) != model.inputs:
        raise ModelFileError(f"{where}: standardisation has {len(model.mean)} columns, the model {model.inputs}")


def load_model(path: str | Path, kind: str | None = None) -> LengthModel:
    """Read and check a model file; ``kind`` (when given) must match the file's."""
    path = Path(path)
    try:  # strictly: no duplicate keys, NaN or Infinity, invalid UTF-8 (every JSON input does)
        data = read_json(path)
    except WorkloadFormatError as exc:
        raise ModelFileError(str(exc)) from None
    return model_from_dict(data, str(path), kind)


def default_model_path(kind: str) -> Path:
    """Where the shipped model of ``kind`` lives (package data ``models/<kind>.json``)."""
    if kind not in KINDS:
        raise ModelFileError(f"no shipped model of kind {kind!r}; kinds: {', '.join(KINDS)}")
    return Path(str(resources.files("geosched.reference_impl.predictors").joinpath("models", f"{kind}.json")))


def load_default_model(kind: str) -> LengthModel:
    """The shipped model of ``kind`` (package data, trained by the command in ``docs/predictions.md``)."""
    return load_model(default_model_path(kind), kind=kind)


def shipped_model_paths() -> tuple[Path, ...]:
    """Every shipped model file: ``models/<kind>.json`` (trained on the Azure conversation trace) and
    ``models/<trace>/<kind>.json`` (trained on that trace; ``docs/predictions.md`` gives the commands)."""
    root = Path(str(resources.files("geosched.reference_impl.predictors").joinpath("models")))
    return tuple(sorted(root.glob("*.json"))) + tuple(sorted(root.glob("*/*.json")))

