"""The model: validation, derived quantities, JSON round trip."""

import json
import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from geosched.errors import ValidationError, WorkloadFormatError
from geosched.reference_impl.model import (
    Instance,
    Request,
    burst_instance,
    instance_from_columns,
    instance_from_dict,
    instance_to_dict,
    read_instance,
    volume,
    write_instance,
)


def test_volume_by_hand():
    # v = sum_{j=1..o} (s + j): s=0,o=1 -> 1; s=2,o=3 -> 3+4+5 = 12; s=6,o=3 -> 7+8+9 = 24
    assert volume(0, 1) == 1
    assert volume(2, 3) == 12
    assert volume(6, 3) == 24
    assert Request("a", 0, 1, 5).volume == 2 + 3 + 4 + 5 + 6


@given(st.integers(0, 10_000), st.integers(1, 300))
def test_volume_is_the_staircase_sum(s, o):
    assert volume(s, o) == sum(s + j for j in range(1, o + 1))


def test_peak_and_alpha():
    inst = burst_instance(12, [(6, 3), (1, 5)])
    assert [r.peak for r in inst.requests] == [9, 6]
    assert inst.alpha == Fraction(9, 12)
    assert inst.is_burst


@pytest.mark.parametrize(
    "kwargs, field, value",
    [
        (dict(arrival=-1), "arrival", -1),
        (dict(prompt=-3), "prompt", -3),
        (dict(output=0), "output", 0),
        (dict(output=2.5), "output", 2.5),
        (dict(output=3.0), "output", 3.0),
        (dict(prompt=float("nan")), "prompt", "nan"),
        (dict(arrival=True), "arrival", True),
        (dict(prompt="4"), "prompt", "4"),
    ],
)
def test_bad_request_fields_name_field_and_value(kwargs, field, value):
    base = dict(id="r7", arrival=0, prompt=1, output=1) | kwargs
    with pytest.raises(ValidationError) as info:
        Request(**base)
    message = str(info.value)
    assert field in message and "r7" in message
    assert str(value) in message


def test_peak_above_memory_names_the_request():
    with pytest.raises(ValidationError, match=r"request 'big': prompt \+ output.*must be <= memory 10.*got 11"):
        Instance(10, [Request("ok", 0, 1, 1), Request("big", 0, 6, 5)])


def test_duplicate_ids_and_bad_memory():
    with pytest.raises(ValidationError, match="unique"):
        Instance(10, [Request("a", 0, 1, 1), Request("a", 0, 1, 2)])
    with pytest.raises(ValidationError, match="memory"):
        Instance(0, [])
    with pytest.raises(ValidationError, match="memory"):
        Instance(float("nan"), [])


requests_strategy = st.lists(
    st.tuples(st.integers(0, 20), st.integers(0, 15), st.integers(1, 15)), min_size=0, max_size=8
)


@given(requests_strategy)
def test_json_round_trip(rows):
    inst = Instance(40, [Request(f"q{k}", a, s, o) for k, (a, s, o) in enumerate(rows)])
    data = json.loads(json.dumps(instance_to_dict(inst)))
    assert instance_from_dict(data) == inst


def test_file_round_trip(tmp_path):
    inst = burst_instance(12, [(6, 3), (1, 5)])
    path = tmp_path / "i.json"
    write_instance(inst, path)
    assert json.loads(path.read_text()) == {
        "memory": 12,
        "requests": [
            {"id": "r0", "arrival": 0, "prompt": 6, "output": 3},
            {"id": "r1", "arrival": 0, "prompt": 1, "output": 5},
        ],
    }
    assert read_instance(path) == inst


@pytest.mark.parametrize(
    "text, pattern",
    [
        ('{"memory": 4, "requests": [], "extra": 1}', "unexpected key.*'extra'"),
        ('{"memory": 4}', "missing key.*'requests'"),
        ('{"memory": 4, "requests": [{"id": "a", "arrival": 0, "prompt": 1}]}', "missing key.*'output'"),
        ('{"memory": 4, "requests": [{"id": "a", "arrival": 0, "prompt": 1, "output": 1, "x": 0}]}',
         r"requests\[0\].*unexpected key.*'x'"),
        ('{"memory": 4, "requests": [', "invalid JSON"),
        ('[1, 2]', "expected a JSON object"),
        ('{"memory": 4, "requests": {}}', "'requests' must be a list"),
    ],
)
def test_malformed_instance_files(tmp_path, text, pattern):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(WorkloadFormatError, match=pattern):
        read_instance(path)


def test_nan_in_file_names_the_field(tmp_path):
    path = tmp_path / "nan.json"
    path.write_text('{"memory": 9, "requests": [{"id": "a", "arrival": 0, "prompt": NaN, "output": 1}]}')
    with pytest.raises(WorkloadFormatError, match=r"requests\[0\]\.prompt: NaN is not a number"):
        read_instance(path)
    assert math.isnan(float("nan"))


def test_missing_file():
    with pytest.raises(WorkloadFormatError, match="cannot read"):
        read_instance("/nonexistent/x.json")


# -- the block size, carried by the instance (issue 31) ------------------------------------------------------------

@pytest.mark.parametrize("block, message", [(0, "must be >= 1"), (True, "must be an integer"),
                                            (2.0, "must be an integer"), (7, "must divide the memory M = 48")])
def test_bad_block_sizes_name_the_field(block, message):
    with pytest.raises(ValidationError, match=f"block_size.*{message}"):
        Instance(48, [Request("a", 0, 1, 2)], block)


def test_block_size_round_trips_and_is_written_only_when_not_one(tmp_path):
    token = Instance(48, [Request("a", 0, 1, 2)])
    block = token.with_block_size(16)
    assert token.block_size == 1 and block.block_size == 16 and block != token
    assert "block_size" not in instance_to_dict(token) and instance_to_dict(block)["block_size"] == 16
    assert repr(token).endswith("))") and repr(block).endswith("block_size=16)")
    for inst in (token, block):
        path = tmp_path / f"i{inst.block_size}.json"
        write_instance(inst, path)
        assert read_instance(path) == inst
    assert block.with_memory(64).block_size == 16 and block.with_requests([]).block_size == 16
    with pytest.raises(ValidationError, match="block_size"):
        block.with_memory(40)  # 40 is not a multiple of 16
    with pytest.raises(ValidationError, match="block_size"):
        instance_from_dict({"memory": 48, "block_size": "16", "requests": []})


# instance_from_columns: the column-checked constructor the generated workloads use, the same instance and the
# same refusals as the request-by-request one


@given(st.lists(st.tuples(st.integers(-2, 30), st.integers(-2, 30), st.integers(-1, 30)), max_size=12),
       st.integers(0, 60), st.booleans())
def test_columns_build_the_instance_the_requests_build(rows, memory, repeat_an_id):
    ids = [f"r{k}" for k in range(len(rows))]
    if repeat_an_id and len(ids) > 1:
        ids[-1] = ids[0]
    columns = (ids, *map(list, zip(*rows))) if rows else ([], [], [], [])
    try:
        expected = Instance(memory, map(Request, *columns))  # the order of refusals instance_from_columns keeps
    except ValidationError as error:
        with pytest.raises(ValidationError) as refused:
            instance_from_columns(memory, *columns)
        assert str(refused.value) == str(error)
    else:
        assert instance_from_columns(memory, *columns) == expected
