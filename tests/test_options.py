"""The options objects of the searches and the hunt (geosched.adversary.options; issue 23, item 5).

* every bad value raises ValidationError, one line naming the field and the value, from the
  object and from the searches' and hunt's keywords (a hunt refused so writes nothing);
* ``to_dict``/``from_dict`` round-trip (also through JSON), unknown keys are refused;
* the searches and hunts give, for the same seeds, exactly what the code gave *before* the
  options objects (``options_data/golden_before.json``, recorded by ``options_data/record_before.py``
  at the commit before them), given as keywords or as options objects;
* a checkpoint written before the options objects still resumes (and gives the unbroken run's
  result), a new one records its options, a malformed record is refused naming the field;
* the review measure: no public function of ``adversary/`` takes more than
  :data:`MAX_PUBLIC_PARAMETERS` parameters (``benchmarks/review_measures.py``).
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from dataclasses import fields, replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geosched.adversary.hunt import hunt
from geosched.adversary.options import (
    ANNEAL_SETTINGS,
    DE_SETTINGS,
    HUNT_SEARCH_SETTINGS,
    STRUCTURED_SETTINGS,
    HuntOptions,
    SearchOptions,
)
from geosched.adversary.search import SearchSpace, anneal, differential_evolution_search
from geosched.adversary.structured import structured_search
from geosched.adversary.witness import read_witness, verify_witness
from geosched.errors import ValidationError, WorkloadFormatError

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "options_data"
GOLDEN = json.loads((DATA / "golden_before.json").read_text())

SEARCH_BAD = [
    ("time_limit", -1.0), ("time_limit", math.nan), ("time_limit", "10"), ("max_evals", 0), ("max_evals", 2.5),
    ("max_evals", True), ("target", 0.0), ("target", -1.0), ("target", math.inf), ("target", math.nan),
    ("callback_every", -0.5), ("callback_every", math.inf), ("t_start", 0.0), ("t_end", math.nan),
    ("t_end", -1e-3), ("cycle_seconds", 0.0), ("cycle_seconds", math.inf), ("cycle_evals", 0),
    ("max_groups", 0), ("max_groups", 2.0), ("ties", "sometimes"), ("popsize", 0),
]
HUNT_BAD = [
    ("method", "tabu"), ("time_limit", 0.0), ("time_limit", math.inf), ("time_limit", math.nan), ("seed", -1),
    ("seed", 1.5), ("seed", True), ("rounds", 0), ("restarts", 0), ("evals", -3), ("checkpoint_every", 0.0),
    ("certify_budget", -1.0), ("z3_bounds", [1, 2]), ("search", {"ties": "given"}),
    ("checkpoint_every", math.inf),
]


def _one_line_naming(exc: ValidationError, name: str, value) -> None:
    text = str(exc)
    assert exc.field == name and exc.value is value, (exc.field, exc.value)
    assert "\n" not in text and text.startswith(f"{name}: ") and repr(value) in text, text


@pytest.mark.parametrize(("name", "value"), SEARCH_BAD)
def test_a_bad_search_setting_is_refused_naming_it(name, value):
    with pytest.raises(ValidationError) as caught:
        SearchOptions(**{name: value})
    _one_line_naming(caught.value, name, value)
    with pytest.raises(ValidationError) as caught:  # a checked copy: replace() validates again
        replace(SearchOptions(), **{name: value})
    _one_line_naming(caught.value, name, value)


@pytest.mark.parametrize(("name", "value"), HUNT_BAD)
def test_a_bad_hunt_setting_is_refused_naming_it(name, value):
    with pytest.raises(ValidationError) as caught:
        HuntOptions(**{name: value})
    _one_line_naming(caught.value, name, value)


def test_the_searches_check_their_keywords_and_refuse_ones_they_do_not_read():
    space = SearchSpace("sjf", max_requests=4, memory=12)
    for search, name, value in ((anneal, "t_end", 0.0), (structured_search, "max_groups", 0),
                                (differential_evolution_search, "popsize", 0), (anneal, "max_evals", -1)):
        with pytest.raises(ValidationError) as caught:
            search(space, time_limit=0.1, **{name: value})
        _one_line_naming(caught.value, name, value)
    with pytest.raises(TypeError, match="anneal.*'ties'"):  # anneal has no tie rule to set
        anneal(space, time_limit=0.1, ties="robust")
    with pytest.raises(TypeError, match="'popsize'"):
        structured_search(space, time_limit=0.1, popsize=4)
    with pytest.raises(ValidationError, match="options"):
        anneal(space, {"time_limit": 0.1})


def test_each_search_reads_only_fields_of_search_options():
    names = {f.name for f in fields(SearchOptions)}
    for accepted in (ANNEAL_SETTINGS, STRUCTURED_SETTINGS, DE_SETTINGS, HUNT_SEARCH_SETTINGS):
        assert set(accepted) <= names
    assert "time_limit" not in HUNT_SEARCH_SETTINGS  # the hunt's own time_limit is its whole budget


def test_a_refused_hunt_writes_nothing(tmp_path):
    space = SearchSpace("sjf", max_requests=4, memory=12)
    out = tmp_path / "h"
    for keywords, name in (({"rounds": 0}, "rounds"), ({"ties": "always"}, "ties"),
                           ({"certify_budget": math.nan}, "certify_budget"), ({"method": "tabu"}, "method")):
        with pytest.raises(ValidationError) as caught:
            hunt(space, out=out, progress=False, **keywords)
        assert caught.value.field == name
    with pytest.raises(TypeError, match="'popsize_typo'"):
        hunt(space, out=out, progress=False, popsize_typo=3)
    assert not out.exists()


def test_hunt_keywords_build_the_options_and_override_an_options_object():
    base = HuntOptions(method="structured", seed=4, search=SearchOptions(max_groups=3, ties="robust"))
    built = HuntOptions.from_keywords(base, seed=5, target=2.0, popsize=7)
    assert (built.method, built.seed) == ("structured", 5)
    assert (built.search.max_groups, built.search.ties, built.search.target, built.search.popsize) == (3, "robust",
                                                                                                       2.0, 7)
    assert HuntOptions.from_keywords(base) is base
    assert HuntOptions().search.callback_every == 0.5  # the hunt's progress cadence, as before
    with pytest.raises(ValidationError) as caught:  # a checkpoint is strict JSON: no Infinity in it
        HuntOptions(search=SearchOptions(time_limit=math.inf))
    assert caught.value.field == "search.time_limit"


def test_hunt_passes_its_search_settings_to_every_search(tmp_path):
    """``max_evals`` stops each time-limited search long before its 30 s, ``max_groups=1`` keeps every
    structured description to one group, ``popsize`` sets de's population: they reached the searches."""
    space = SearchSpace("sjf", max_requests=6, memory=12)
    result = hunt(space, method="anneal", time_limit=30.0, max_evals=40, seed=2, out=tmp_path / "a", progress=False,
                  certify_budget=0.3)
    assert result.methods["anneal"]["status"] == "max_evaluations" and 40 <= result.nfev <= 41
    result = hunt(SearchSpace("sjf", max_requests=30, memory=20), method="structured", time_limit=30.0,
                  max_evals=150, max_groups=1, seed=2, out=tmp_path / "s", progress=False, certify_budget=0.3)
    assert result.methods["structured"]["status"] == "max_evaluations"
    found_by = [read_witness(path)["found_by"] for path in result.witnesses]
    assert found_by and all("[" in text and " + " not in text.split("[", 1)[1] for text in found_by), found_by
    result = hunt(space, method="de", time_limit=30.0, max_evals=1, popsize=2, seed=2, out=tmp_path / "d",
                  progress=False, certify_budget=0.3)
    assert result.methods["de"]["status"] == "max_evaluations"
    assert result.nfev == 2 * 2 * 6 * 2  # scipy's first population and one generation: popsize * dimension each


def test_rounds_pass_the_search_settings_to_every_restart_and_record_the_changed_ones():
    from geosched.adversary.rounds import run_rounds

    space = SearchSpace("sjf", max_requests=30, memory=20)
    run = run_rounds(space, "structured", rounds=1, restarts=2, evals=40, seed=1, max_groups=1)
    assert run.state["elite"] and all(len(point) == 1 for _, point in run.state["elite"])
    assert run.state["config"]["search"] == {"max_groups": 1}
    default = run_rounds(space, "structured", rounds=1, restarts=2, evals=40, seed=1)
    assert "search" not in default.state["config"]  # the config of a checkpoint written before the options
    assert any(len(point) > 1 for _, point in default.state["elite"])
    with pytest.raises(ValidationError, match="--resume"):  # a resume must keep the restarts' settings
        run_rounds(space, "structured", rounds=1, restarts=2, evals=40, seed=1, state=run.state)


# ---------------------------------------------------------------- to_dict / from_dict


def _search_options(time_limits):
    return st.builds(
        SearchOptions,
        time_limit=time_limits, max_evals=st.none() | st.integers(1, 10**9),
        target=st.none() | st.floats(1e-3, 1e3), callback_every=st.floats(0, 100), t_start=st.floats(1e-6, 10),
        t_end=st.floats(1e-9, 1), cycle_seconds=st.floats(1e-3, 1e4), cycle_evals=st.none() | st.integers(1, 10**6),
        max_groups=st.integers(1, 50), ties=st.sampled_from(("given", "robust")), popsize=st.integers(1, 100))


search_options = _search_options(st.floats(0, 1e6) | st.just(math.inf))
hunt_options = st.builds(
    HuntOptions,
    method=st.sampled_from(("anneal", "de", "z3", "structured", "all")), time_limit=st.floats(1e-3, 1e6),
    seed=st.none() | st.integers(0, 2**63), rounds=st.none() | st.integers(1, 100), restarts=st.integers(1, 64),
    evals=st.integers(1, 10**6), checkpoint_every=st.floats(1e-3, 1e3), certify_budget=st.floats(1e-3, 1e3),
    z3_bounds=st.none() | st.just({"n": 3}), search=_search_options(st.floats(0, 1e6)))


@settings(deadline=None, max_examples=60)
@given(search_options, hunt_options)
def test_options_round_trip_through_dicts_and_json(search, hunt_opts):
    assert SearchOptions.from_dict(search.to_dict()) == search
    assert HuntOptions.from_dict(hunt_opts.to_dict()) == hunt_opts
    if math.isfinite(search.time_limit):  # JSON has no infinity (the hunt's checkpoint never holds one)
        assert SearchOptions.from_dict(json.loads(json.dumps(search.to_dict()))) == search
    assert HuntOptions.from_dict(json.loads(json.dumps(hunt_opts.to_dict(), allow_nan=False))) == hunt_opts


def test_from_dict_takes_defaults_for_missing_keys_and_refuses_unknown_ones():
    assert SearchOptions.from_dict({}) == SearchOptions()
    assert HuntOptions.from_dict({"method": "de", "search": {"popsize": 5}}) == HuntOptions(
        method="de", search=SearchOptions(popsize=5))
    with pytest.raises(ValidationError) as caught:
        HuntOptions.from_dict({"method": "de", "bogus": 1})
    assert caught.value.field == "options.bogus"
    with pytest.raises(ValidationError) as caught:
        HuntOptions.from_dict({"search": {"t_startt": 1.0}})
    assert caught.value.field == "options.search.t_startt"
    with pytest.raises(ValidationError) as caught:
        HuntOptions.from_dict({"search": {"ties": "never"}})
    assert caught.value.field == "ties"
    with pytest.raises(ValidationError):
        SearchOptions.from_dict([1, 2])


json_values = st.recursive(st.none() | st.booleans() | st.integers(-2**80, 2**1400) | st.floats() | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                         max_size=3), max_leaves=8)
option_names = st.sampled_from([f.name for f in fields(HuntOptions)] + [f.name for f in fields(SearchOptions)])


@settings(deadline=None, max_examples=300)
@given(st.dictionaries(option_names, json_values, max_size=4), st.dictionaries(option_names, json_values, max_size=3))
def test_any_saved_options_are_read_or_refused_with_a_validation_error(data, search):
    """A checkpoint's options record is input: whatever it holds, from_dict returns options or raises
    ValidationError (one line), never another exception (a huge integer, a list, a nested object)."""
    for record in (data, {**data, "search": search}):
        try:
            options = HuntOptions.from_dict(record)
        except ValidationError as exc:
            assert "\n" not in str(exc)
        else:
            assert HuntOptions.from_dict(options.to_dict()) == options
            assert math.isfinite(options.time_limit * 0.45)  # the hunt splits its budget in float shares


# ---------------------------------------------------------------- same results as before the options objects


def _summary(res) -> dict:
    return {"fun": repr(res.fun), "nfev": res.nfev, "nit": res.nit, "status": res.status,
            "x": res.x.to_dict() if res.x is not None else None,
            "elite": [[c.a.tolist(), c.s.tolist(), c.o.tolist(), repr(c.score)] for c in res.elite]}


def test_the_searches_give_what_they_gave_before_the_options_objects():
    space = SearchSpace("sjf", max_requests=6, memory=12)
    structured_space = SearchSpace("svf", max_requests=30, memory=20)
    anneal_keywords = {"time_limit": math.inf, "max_evals": 300, "cycle_evals": 40}
    assert _summary(anneal(space, rng=3, **anneal_keywords)) == GOLDEN["anneal"]
    assert _summary(anneal(space, SearchOptions(**anneal_keywords), rng=3)) == GOLDEN["anneal"]
    de_keywords = {"time_limit": math.inf, "max_evals": 200, "popsize": 5}
    assert _summary(differential_evolution_search(space, rng=1, **de_keywords)) == GOLDEN["de"]
    assert _summary(differential_evolution_search(space, SearchOptions(**de_keywords), rng=1)) == GOLDEN["de"]
    structured_keywords = {"time_limit": math.inf, "max_evals": 300, "cycle_evals": 50, "ties": "robust",
                           "max_groups": 3}
    assert _summary(structured_search(structured_space, rng=2, **structured_keywords)) == GOLDEN["structured"]
    options = SearchOptions(**structured_keywords)
    assert _summary(structured_search(structured_space, options, rng=2)) == GOLDEN["structured"]


KEPT = ("search_best", "certified", "nfev", "nit", "message", "status")


def _hunt_summary(result) -> dict:
    return {"fun": repr(result.fun), "nfev": result.nfev, "status": result.status, "message": result.message,
            "x": result.x.to_dict(),
            "methods": {m: {k: v for k, v in info.items() if k in KEPT} for m, info in result.methods.items()}}


HUNTS = {
    "hunt_anneal_rounds": (SearchSpace("sjf", max_requests=5, memory=12),
                           {"method": "anneal", "rounds": 2, "restarts": 2, "evals": 60, "seed": 1}),
    "hunt_structured_rounds": (SearchSpace("svf", max_requests=8, memory=12),
                               {"method": "structured", "rounds": 2, "restarts": 2, "evals": 60, "seed": 4,
                                "ties": "robust"}),
}


@pytest.mark.parametrize("name", sorted(HUNTS))
def test_a_hunt_gives_what_it_gave_before_the_options_objects(name, tmp_path):
    space, keywords = HUNTS[name]
    by_keywords = hunt(space, out=tmp_path / "k", progress=False, certify_budget=60.0, **keywords)
    assert _hunt_summary(by_keywords) == GOLDEN[name]
    options = HuntOptions.from_keywords(certify_budget=60.0, **keywords)
    by_options = hunt(space, options, out=tmp_path / "o", progress=False)
    assert _hunt_summary(by_options) == GOLDEN[name]
    report = verify_witness(read_witness(tmp_path / "o" / "best_witness.json"))  # the independent checker
    assert report.ok and float(report.certified_ratio) == by_options.fun
    saved = json.loads((tmp_path / "o" / "checkpoint.json").read_text())
    assert HuntOptions.from_dict(saved["options"]) == options


# ---------------------------------------------------------------- checkpoints written before the options objects


def test_a_rounds_checkpoint_written_before_the_options_objects_resumes_to_the_unbroken_result(tmp_path):
    """The checkpoint was written by the earlier code after round 1 of 2 of ``hunt_anneal_rounds``."""
    space, keywords = HUNTS["hunt_anneal_rounds"]
    out = tmp_path / "h"
    out.mkdir()
    shutil.copy(DATA / "rounds_checkpoint_round1.json", out / "checkpoint.json")
    assert "options" not in json.loads((out / "checkpoint.json").read_text())
    resumed = hunt(space, out=out, resume=True, progress=False, certify_budget=60.0, **keywords)
    assert _hunt_summary(resumed) == GOLDEN["hunt_anneal_rounds"]
    assert json.loads((out / "checkpoint.json").read_text())["options"]["rounds"] == 2


def test_a_timed_checkpoint_written_before_the_options_objects_resumes(tmp_path):
    space = SearchSpace("sjf", max_requests=5, memory=12)
    out = tmp_path / "h"
    out.mkdir()
    old = json.loads((DATA / "timed_checkpoint.json").read_text())
    shutil.copy(DATA / "timed_checkpoint.json", out / "checkpoint.json")
    resumed = hunt(space, method="all", time_limit=0.6, seed=7, out=out, resume=True, progress=False,
                   certify_budget=0.3)
    saved = json.loads((out / "checkpoint.json").read_text())
    for method in ("anneal", "de"):
        assert resumed.methods[method]["nfev"] > old["methods"][method]["state"]["nfev"]
    assert HuntOptions.from_dict(saved["options"]) == HuntOptions(method="all", time_limit=0.6, seed=7,
                                                                   certify_budget=0.3)


def test_a_malformed_options_record_in_a_checkpoint_is_refused_naming_the_field(tmp_path):
    space = SearchSpace("sjf", max_requests=5, memory=12)
    out = tmp_path / "h"
    out.mkdir()
    checkpoint = json.loads((DATA / "rounds_checkpoint_round1.json").read_text())
    checkpoint["options"] = {**HuntOptions().to_dict(), "search": {"ties": "sideways"}}
    (out / "checkpoint.json").write_text(json.dumps(checkpoint))
    with pytest.raises(WorkloadFormatError, match="checkpoint.json: ties: .*'sideways'"):
        hunt(space, out=out, resume=True, progress=False, **HUNTS["hunt_anneal_rounds"][1])
    argv = ["hunt", "--policy", "sjf", "--requests", "5", "--memory", "12", "--method", "anneal", "--rounds", "2",
            "--restarts", "2", "--evals", "60", "--seed", "1", "--resume", "--quiet", "--out", str(out)]
    proc = subprocess.run([sys.executable, "-m", "geosched", *argv], capture_output=True, text=True)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "sideways" in proc.stderr
    assert json.loads((out / "checkpoint.json").read_text()) == checkpoint  # nothing overwritten


# ---------------------------------------------------------------- the review measure

MAX_PUBLIC_PARAMETERS = 9  # hunt had 17 and structured_search 15 before the options objects (issue 23)
OWN_MODULES_MAX = 8  # the modules of the searches and the hunt: hunt (8), certify (8), run_rounds (7), ...
SEARCH_MODULES = ("hunt.py", "search.py", "structured.py", "rounds.py", "options.py")


def _measured():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from review_measures import parameter_counts
    finally:
        sys.path.pop(0)
    return parameter_counts(ROOT / "adversary")


def _public(where: str) -> bool:
    return not any(part.startswith("_") for part in where.split(" ", 1)[1].split("."))


def test_no_public_function_of_the_adversary_takes_a_long_parameter_list():
    rows = [(params, where) for params, _, where in _measured() if _public(where)]
    long = [f"{where}: {params}" for params, where in rows if params > MAX_PUBLIC_PARAMETERS]
    assert not long, "bundle these parameters into an options object (adversary/options.py):\n" + "\n".join(long)
    own = [f"{where}: {params}" for params, where in rows
           if where.split(":")[0].rsplit("/", 1)[-1] in SEARCH_MODULES and params > OWN_MODULES_MAX]
    assert not own, "\n".join(own)


def test_the_measure_counts_every_kind_of_parameter(tmp_path):
    import ast

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from review_measures import body_lines, parameter_count
    finally:
        sys.path.pop(0)
    node = ast.parse("def f(a, /, b, *c, d, e=1, **f):\n    '''doc'''\n    x = 1\n    return x\n").body[0]
    method = ast.parse("class K:\n    def m(self, a, *, b):\n        pass\n").body[0].body[0]
    assert parameter_count(node) == 6 and body_lines(node) == 2 and parameter_count(method) == 2
