"""Learned length predictors: features without look-ahead, metrics, baselines, torch models,
model files, the ``learned`` registry predictor and the ``predictor`` commands."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from geosched.cli import main
from geosched.reference_impl.model import Instance, Request, burst_instance
from geosched.reference_impl.predictors import (
    DEFAULT_FEATURES,
    BucketEmpirical,
    GlobalMedian,
    LengthDistribution,
    LengthModel,
    ModelFileError,
    PredictionSet,
    RequestLog,
    TrainingConfig,
    evaluate_predictions,
    feature_matrix,
    load_default_model,
    load_model,
    make_predictor,
    save_model,
    train_model,
)
from geosched.reference_impl.predictors.features import HISTORY_FEATURES, history_features
from geosched.reference_impl.predictors.metrics import cdf_grid, crps_from_grid, quantiles_from_grid

ROOT = Path(__file__).resolve().parent.parent
STEP = 0.025


# ----------------------------------------------------------------- features: no look-ahead
def random_log(rng: np.random.Generator, n: int = 300) -> RequestLog:
    arrival = np.sort(rng.uniform(0, 60, n))
    arrival[5:9] = arrival[5]  # simultaneous arrivals
    return RequestLog(arrival, rng.integers(0, 5000, n), rng.integers(1, 800, n))


def finished_before(log: RequestLog, i: int, step: float) -> np.ndarray:
    """Independent statement of the rule: j counts for i iff a_j + o_j * step <= a_i."""
    return log.arrival_seconds + log.output * step <= log.arrival_seconds[i]


def assert_no_lookahead(features, log: RequestLog, rng: np.random.Generator, trials: int = 25) -> None:
    """For random i: change everything about the requests that had not finished when i arrived
    (their outputs only grow, so they still have not; prompts change freely; later arrivals move
    later); i's own output changes too. The feature row of i must not change."""
    base = features(log)
    for _ in range(trials):
        i = int(rng.integers(log.n))
        unfinished = ~finished_before(log, i, STEP)
        others = unfinished.copy()
        others[i] = False  # i's own prompt is a feature; its output must not be
        output = log.output.copy()
        prompt = log.prompt.copy()
        arrival = log.arrival_seconds.copy()
        output[unfinished] += rng.integers(1, 500, unfinished.sum())
        prompt[others] = rng.integers(0, 5000, others.sum())
        later = arrival > arrival[i]
        arrival[later] += rng.uniform(0, 5, later.sum())
        moved = features(RequestLog(arrival, prompt, output))
        np.testing.assert_array_equal(moved[i], base[i], err_msg=f"features of request {i} used the future")


def test_features_use_no_request_that_had_not_finished():
    rng = np.random.default_rng(0)
    log = random_log(rng)
    assert_no_lookahead(lambda lg: feature_matrix(lg, HISTORY_FEATURES + ("log_prompt",), step_seconds=STEP),
                        log, rng)


def test_the_lookahead_check_catches_a_leaky_feature():
    # a feature that counts requests that *arrived* before (not finished before): it leaks the
    # outputs of requests still running, and the check must say so
    def leaky(lg: RequestLog) -> np.ndarray:
        order = np.argsort(lg.arrival_seconds, kind="stable")
        running_mean = np.empty(lg.n)
        total = 0.0
        for k, i in enumerate(order):
            running_mean[i] = total / k if k else 0.0
            total += lg.output[i]
        return running_mean[:, None]

    rng = np.random.default_rng(1)
    with pytest.raises(AssertionError, match="used the future"):
        assert_no_lookahead(leaky, random_log(rng), rng)


def test_history_counts_match_the_rule_computed_independently():
    rng = np.random.default_rng(2)
    log = random_log(rng, 200)
    x = history_features(log, STEP)
    counts = np.array([finished_before(log, i, STEP).sum() for i in range(log.n)])
    np.testing.assert_allclose(x[:, HISTORY_FEATURES.index("hist_log_count")], np.log1p(counts))
    means = [np.log(log.output[finished_before(log, i, STEP)]).sum() for i in range(log.n)]
    prior = np.log(100.0)
    np.testing.assert_allclose(x[:, HISTORY_FEATURES.index("hist_mean_log_output")],
                               (np.array(means) + prior) / (counts + 1))


def test_features_do_not_depend_on_row_order():
    rng = np.random.default_rng(3)
    log = random_log(rng)
    perm = rng.permutation(log.n)
    x = feature_matrix(log, HISTORY_FEATURES + ("log_prompt",), step_seconds=STEP)
    y = feature_matrix(log.subset(perm), HISTORY_FEATURES + ("log_prompt",), step_seconds=STEP)
    np.testing.assert_allclose(y, x[perm])


def test_time_features_need_a_clock_and_text_hook_needs_texts():
    log = RequestLog([0.0, 3600.0], [1, 2], [1, 1])
    with pytest.raises(Exception, match="clock_origin"):
        feature_matrix(log, ("time_of_day_sin",))
    noon = RequestLog([0.0, 6 * 3600.0], [1, 2], [1, 1], clock_origin=12 * 3600.0)
    np.testing.assert_allclose(feature_matrix(noon, ("time_of_day_cos", "hours_since_start")),
                               [[-1.0, 0.0], [0.0, 6.0]], atol=1e-12)
    with pytest.raises(Exception, match="no texts"):
        feature_matrix(log, ("log_prompt",), text_hook=len)


# ----------------------------------------------------------------- metrics and baselines
def test_crps_of_a_point_mass_is_the_absolute_error():
    edges = np.arange(1, 52)  # one bin per length 1..50
    truth = np.array([1, 7, 50, 20])
    guess = np.array([5, 7, 1, 33])
    one_hot = np.eye(50)[guess - 1]
    crps = crps_from_grid(cdf_grid(one_hot, edges, 50), truth)
    np.testing.assert_allclose(crps, np.abs(truth - guess))


def test_grid_quantiles_agree_with_length_distribution():
    rng = np.random.default_rng(4)
    edges = [1, 2, 5, 9, 30, 101]
    for _ in range(30):
        p = rng.dirichlet(np.ones(5))
        p[rng.integers(5)] = 0.0
        p /= p.sum()
        dist = LengthDistribution.from_bins(edges, p)
        grid = cdf_grid(p[None, :], np.array(edges), 100)
        for q in (0.05, 0.25, 0.5, 0.75, 0.95):
            assert quantiles_from_grid(grid, q)[0] == dist.quantile(q)
        for x in (1, 4, 17, 100):
            assert grid[0, x - 1] == pytest.approx(dist.cdf(x))


def test_one_bit_metrics_by_hand():
    truth = np.array([10, 10, 10, 10, 500, 500])  # theta 100: four short, two long
    point = np.array([10, 200, 200, 10, 500, 10])  # two shorts called long, one long called short
    row = evaluate_predictions("x", truth, PredictionSet(point=point), theta=100)
    assert (row.accuracy, row.flip_short, row.flip_long) == (0.5, 0.5, 0.5)
    assert row.nll is None and row.coverage50 is None and row.crps == row.mean_ae


def test_baselines_by_hand():
    prompt = np.array([1, 1, 1, 1000, 1000, 1000])
    output = np.array([5, 6, 100, 200, 300, 400])
    bucket = BucketEmpirical.fit(prompt, output, edges=[1, 101, 1001], theta=150, min_count=3, smoothing=1.0)
    # bucket of prompt 1: bins [1,100] holds 3, [101,1000] holds 0; +1 each -> (4/5, 1/5)
    assert bucket.distribution(1).probabilities == pytest.approx((0.8, 0.2))
    predicted = bucket.predict(np.array([1, 1000, 100]))  # prompt 100: no bucket of its own -> all
    assert predicted.point.tolist() == [6, 300, 150]
    assert predicted.long_probability.tolist() == pytest.approx([0.0, 1.0, 0.5])
    assert GlobalMedian.fit(output).predict(prompt).point.tolist() == [150] * 6


# ----------------------------------------------------------------- torch models
def synthetic_log(n: int = 600, seed: int = 0) -> RequestLog:
    rng = np.random.default_rng(seed)
    prompt = rng.integers(1, 4000, n)
    output = np.maximum(1, (prompt // 8 + rng.integers(0, 20, n))).astype(np.int64)
    return RequestLog(np.sort(rng.uniform(0, 600, n)), prompt, output)


@pytest.fixture(scope="module")
def synthetic_models():
    log = synthetic_log()
    return log, {kind: train_model(log, TrainingConfig(kind, features=("log_prompt",), epochs=100, batch_size=64))
                 for kind in ("point", "onebit", "dist")}


def test_models_learn_a_relation_the_baselines_cannot(synthetic_models):
    # output ~ prompt / 8: one feature determines it; the bucket baseline sees only log2 buckets
    log, results = synthetic_models
    from geosched.reference_impl.predictors.training import accuracy_table

    table = {r.name: r for r in accuracy_table(log, {k: r.model for k, r in results.items()}).rows}
    assert table["point"].spearman > 0.95 and table["point"].mean_ae < 0.5 * table["bucket empirical"].mean_ae
    assert table["onebit"].accuracy > 0.95
    assert table["dist"].nll < table["bucket empirical"].nll
    assert table["dist"].crps < table["bucket empirical"].crps


def test_training_is_deterministic_and_seeded():
    log = synthetic_log(300, seed=5)
    config = TrainingConfig("dist", features=("log_prompt",), epochs=5, seed=7)
    first, second = train_model(log, config).model, train_model(log, config).model
    for a, b in zip(first.weights, second.weights):
        np.testing.assert_array_equal(a, b)
    other = train_model(log, TrainingConfig("dist", features=("log_prompt",), epochs=5, seed=8)).model
    assert any(not np.array_equal(a, b) for a, b in zip(first.weights, other.weights))


def test_dist_model_gives_length_distributions(synthetic_models):
    log, results = synthetic_models
    model = results["dist"].model
    x = feature_matrix(log, model.features)
    dists = model.distributions(x[:3])
    masses = model.probabilities(x[:3])
    for dist, row in zip(dists, masses):
        assert isinstance(dist, LengthDistribution)
        assert dist.probabilities == pytest.approx(tuple(row / row.sum()))
        lows, highs = np.array(dist.lows, float), np.array(dist.highs, float)
        mean = float(np.dot(row, (lows + highs) / 2))  # uniform inside each bin
        assert dist.mean() == pytest.approx(mean)


def test_onebit_predictions_are_the_proxies(synthetic_models):
    log, results = synthetic_models
    model = results["onebit"].model
    short = log.output[log.output <= model.theta]
    assert model.short_length == round(short[: int(0.7 * log.n)].mean()) or model.short_length >= 1
    lengths = model.predict_lengths(feature_matrix(log, model.features))
    assert set(lengths.tolist()) <= {model.short_length, model.long_length}


# ----------------------------------------------------------------- model files
def test_model_file_round_trip_and_mismatches(tmp_path, synthetic_models):
    log, results = synthetic_models
    model = results["point"].model
    path = tmp_path / "m.json"
    save_model(model, path)
    loaded = load_model(path, kind="point")
    x = feature_matrix(log, model.features)
    np.testing.assert_array_equal(loaded.predict_lengths(x), model.predict_lengths(x))
    data = json.loads(path.read_text())
    cases = {
        "kind": (lambda d: d, {"kind": "onebit"}, "a point model, not a onebit model"),
        "feature_version": (lambda d: d.update(feature_version=99), {}, "feature version 99"),
        "format_version": (lambda d: d.update(format_version=2), {}, "format_version 2"),
        "features": (lambda d: d.update(features=["log_prompt", "colour"]), {}, "unknown feature"),
        "weights": (lambda d: d["weights"].update(data=d["weights"]["data"][:-8] + "AAAAAAA="), {}, "weights_sha256"),
        "shapes": (lambda d: d.update(hidden=[16, 16]), {}, "weight shapes"),
        "format": (lambda d: d.update(format="other"), {}, "not a geosched model file"),
    }
    for name, (edit, kwargs, message) in cases.items():
        broken = json.loads(json.dumps(data))
        edit(broken)
        target = tmp_path / f"{name}.json"
        target.write_text(json.dumps(broken))
        with pytest.raises(ModelFileError, match=message):
            load_model(target, **kwargs)


def test_cli_mismatched_model_is_one_line_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    data = json.loads((ROOT / "reference_impl/predictors/models/point.json").read_text())
    data["feature_version"] = 0
    bad.write_text(json.dumps(data))
    assert main(["simulate", "example", "--predictor", f"learned:model={bad}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "feature version 0" in err[0]


def test_shipped_models_load_and_are_small():
    for kind in ("point", "onebit", "dist"):
        path = ROOT / "reference_impl/predictors/models" / f"{kind}.json"
        assert path.stat().st_size < 100_000
        model = load_default_model(kind)
        assert model.kind == kind and model.features == DEFAULT_FEATURES
        assert model.provenance["source"] == "azure_llm_2023_conv.csv"


# ----------------------------------------------------------------- the registry predictor
def test_learned_predictor_in_the_registry_and_simulator():
    import geosched as gs

    inst = Instance(40000, [Request(f"r{k}", 40 * k, 100 * k + 1, 30 + k) for k in range(12)])
    for spec in ("learned", "learned:kind=onebit", "learned:kind=dist,point=volume", "learned:kind=dist,point=mean"):
        lengths = make_predictor(spec).predict(inst)
        assert lengths.shape == (12,) and lengths.min() >= 1
        result = gs.compare(inst, ["fcfs", "sjf", "svf", "svf1"], predictor=spec)  # the checker re-checks each
        assert len(result.rows) == 4
    onebit = make_predictor("learned:kind=onebit")
    model = onebit.length_model
    assert set(onebit.predict(inst).tolist()) <= {model.short_length, model.long_length}
    assert onebit.one_bit_policy() == (f"svf1:theta={model.theta},short_length={model.short_length},"
                                       f"long_length={model.long_length}")


def test_learned_history_in_an_instance_uses_only_nominally_finished_requests():
    # r1 arrives at step 10: r0 (arrival 0, output 5) finished nominally at 5, r2 has not started
    predictor = make_predictor("learned:kind=point")
    base = Instance(5000, [Request("r0", 0, 10, 5), Request("r1", 10, 10, 7), Request("r2", 11, 10, 9)])
    changed = Instance(5000, [Request("r0", 0, 10, 5), Request("r1", 10, 10, 900), Request("r2", 11, 99, 2000)])
    assert predictor.predict(base)[:2].tolist() == predictor.predict(changed)[:2].tolist()
    earlier = Instance(5000, [Request("r0", 0, 10, 500), Request("r1", 10, 10, 7), Request("r2", 11, 10, 9)])
    log = predictor.log(earlier)
    assert feature_matrix(log, ("hist_log_count",))[1, 0] == 0.0  # r0 not finished at step 10 any more


def test_importing_predictors_does_not_import_torch():
    code = ("import sys, geosched.reference_impl.predictors, geosched.reference_impl.simulation, geosched.cli;"
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_missing_torch_is_one_line_naming_the_extra(tmp_path):
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(
        "import sys\n"
        "class _NoTorch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'torch' or name.startswith('torch.'):\n"
        "            raise ImportError('no torch here')\n"
        "sys.meta_path.insert(0, _NoTorch())\n"
    )
    env = {"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-m", "geosched", "simulate", "example", "--predictor", "learned"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "geosched[predict]" in lines[0], proc.stderr


# ----------------------------------------------------------------- commands
def write_trace(path: Path, n: int = 400, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    lines = ["TIMESTAMP,ContextTokens,GeneratedTokens"]
    for k in range(n):
        prompt = int(rng.integers(1, 3000))
        output = max(1, prompt // 10 + int(rng.integers(0, 10)))
        lines.append(f"2023-11-16 18:{10 + k // 60:02d}:{k % 60:02d}.{k:07d},{prompt},{output}")
    path.write_text("\n".join(lines) + "\n")


def test_train_and_eval_commands(tmp_path, capsys):
    trace = tmp_path / "t.csv"
    write_trace(trace)
    out = tmp_path / "m.json"
    assert main(["predictor", "train", "--trace", str(trace), "--kind", "onebit", "--out", str(out),
                 "--epochs", "10", "--features", "log_prompt", "--json", "--seed", "3"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == "completed" and report["provenance"]["config"]["seed"] == 3
    assert report["train_rows"] == 280 and report["test_rows"] == 120
    assert main(["predictor", "eval", "--trace", str(trace), "--model", str(out), "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in table["rows"]] == ["global median", "bucket empirical", "onebit (m.json)"]
    assert table["held_out"] == {"onebit (m.json)": True}
    assert main(["predictor", "train", "--trace", str(trace), "--kind", "dist", "--out",
                 str(tmp_path / "no" / "m.json")]) == 2
    assert main(["predictor", "train", "--trace", str(trace), "--kind", "dist", "--out", str(out),
                 "--features", "log_prompt,colour", "--force"]) == 2
    assert "colour" in capsys.readouterr().err
    before = out.read_bytes()  # an existing --out without --force: refused before training, kept
    assert main(["predictor", "train", "--trace", str(trace), "--kind", "dist", "--out", str(out)]) == 2
    assert "exists (use --force)" in capsys.readouterr().err and out.read_bytes() == before


# ----------------------------------------------------------------- the shipped models, re-trained
@pytest.mark.trace
@pytest.mark.slow
@pytest.mark.parametrize("kind", ["point", "onebit", "dist"])
def test_retraining_reproduces_the_shipped_model(trace_path, kind):
    """Re-train with the recorded configuration: same data hash; metrics equal within tolerance
    (exactly equal on the machine that trained them; other CPUs may round differently)."""
    from geosched.reference_impl.predictors.artifact import training_data_hash
    from geosched.reference_impl.predictors.tracelog import read_trace_log
    from geosched.reference_impl.predictors.training import time_split

    shipped = load_default_model(kind)
    config = dict(shipped.provenance["config"])
    config["features"] = tuple(config["features"])
    config["hidden"] = tuple(config["hidden"])
    log = read_trace_log(trace_path)
    train, _ = time_split(log, config["train_fraction"])
    assert training_data_hash(log.subset(train)) == shipped.provenance["data_sha256"]
    result = train_model(log, TrainingConfig(**config))
    fresh, recorded = result.metrics.to_dict(), shipped.metrics
    for key in ("mean_ae", "crps"):
        assert fresh[key] == pytest.approx(recorded[key], rel=0.03), key
    for key in ("accuracy", "spearman", "flip_short", "flip_long", "coverage50", "coverage90"):
        if recorded[key] is not None:
            assert fresh[key] == pytest.approx(recorded[key], abs=0.02), key
    if recorded["nll"] is not None:
        assert fresh["nll"] == pytest.approx(recorded["nll"], abs=0.05)


def test_burst_history_is_empty():
    predictor = make_predictor("learned:kind=point")
    inst = burst_instance(5000, [(10, 5), (10, 500), (10, 7)])
    assert len(set(predictor.predict(inst).tolist())) == 1  # same prompt, no history: same prediction


def test_length_model_rejects_wrong_shapes(synthetic_models):
    _, results = synthetic_models
    with pytest.raises(Exception, match="feature rows"):
        results["point"].model.raw(np.zeros((2, 5)))
    assert isinstance(results["point"].model, LengthModel)


def test_online_worker_equals_the_batch_features():
    """BackgroundPredictor fed arrivals and completions in time order (completions at their nominal
    time) predicts exactly what the model predicts from feature_matrix."""
    from geosched.reference_impl.predictors.background import BackgroundPredictor

    rng = np.random.default_rng(9)
    log = RequestLog(np.sort(rng.uniform(0, 30, 150)), rng.integers(1, 3000, 150), rng.integers(1, 600, 150))
    model = load_default_model("point")
    assert "hist_recent_log_output" in model.features  # the history matters in this check
    expected = model.predict_lengths(feature_matrix(log, model.features, step_seconds=model.step_seconds))
    completion = log.arrival_seconds + log.output * model.step_seconds
    events = [(a, 1, i) for i, a in enumerate(log.arrival_seconds)] + [(c, 0, i) for i, c in enumerate(completion)]
    worker = BackgroundPredictor(model, start=False)
    for _, kind, i in sorted(events, key=lambda e: (e[0], e[1], log.arrival_seconds[e[2]], e[2])):
        if kind == 0:
            worker.finished(int(log.prompt[i]), int(log.output[i]))
        else:
            worker.submit(f"q{i}", int(log.prompt[i]), float(log.arrival_seconds[i]))
    worker.drain()
    assert [worker.get(f"q{i}") for i in range(log.n)] == expected.tolist()
    assert worker.stats().predicted == log.n
