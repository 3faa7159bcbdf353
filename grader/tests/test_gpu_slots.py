"""`batch --resource-spec`: ctest's resource spec read into GPU slots, one grading
worker per slot, and every way a spec can be wrong said in one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from grader.core.errors import GraderUsageError
from grader.core.gpu_slots import (
    GpuSlots,
    check_listed,
    describe,
    one_slot_each,
    parse_resource_spec,
    read_resource_spec,
    worker_gpus,
)


def _spec(gpus: Any, version: Any = None) -> dict[str, Any]:
    return {"version": version or {"major": 1, "minor": 0}, "local": [{"gpus": gpus}]}


def test_a_spec_gives_each_gpu_its_slots(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    doc = _spec([{"id": "0", "slots": 2}, {"id": "1"}, {"id": "3", "slots": 3}])
    doc["local"][0]["crypto_chips"] = [{"id": "card0"}]  # other resources are ctest's business
    path.write_text(json.dumps(doc))
    slots = read_resource_spec(path)
    assert slots == [GpuSlots("0", 2), GpuSlots("1", 1), GpuSlots("3", 3)]
    # Round the GPUs, so the first students spread over all of them.
    assert worker_gpus(slots) == ["0", "1", "3", "0", "3", "3"]
    assert describe(slots) == "GPU 0 (2 slots), GPU 1, GPU 3 (3 slots)"


def test_gpus_is_one_slot_each() -> None:
    assert worker_gpus(one_slot_each(["0", "1"])) == ["0", "1"]
    assert worker_gpus(parse_resource_spec(_spec([{"id": "0", "slots": 4}]))) == ["0"] * 4


@pytest.mark.parametrize(
    "text, message",
    [
        ("{", "not JSON"),
        ("[]", "expected a JSON object with version and local"),
        (json.dumps({"local": [{"gpus": [{"id": "0"}]}]}), "unknown version null"),
        (json.dumps(_spec([{"id": "0"}], {"major": 2, "minor": 0})), "unknown version"),
        (json.dumps(_spec([{"id": "0"}], {"major": 1, "minor": 1})), "unknown version"),
        (json.dumps(_spec([{"id": "0"}], {"major": True, "minor": 0})), "unknown version"),
        (json.dumps({"version": {"major": 1, "minor": 0}}), '"local" must be a list'),
        (json.dumps({"version": {"major": 1, "minor": 0}, "local": [{}, {}]}), "list of one"),
        (json.dumps({"version": {"major": 1, "minor": 0}, "local": []}), "no gpus"),
        (json.dumps({"version": {"major": 1, "minor": 0}, "local": [{}]}), "no gpus"),
        (json.dumps(_spec([])), "no gpus"),
        (json.dumps(_spec({"id": "0"})), "no gpus"),
        (json.dumps(_spec(["0"])), 'each GPU is an object, not "0"'),
        (json.dumps(_spec([{"slots": 2}])), "GPU id null: expected a GPU's index"),
        (json.dumps(_spec([{"id": 0}])), "GPU id 0: expected a GPU's index"),
        (json.dumps(_spec([{"id": "gpu_a"}])), 'GPU id "gpu_a"'),
        (json.dumps(_spec([{"id": "0", "slots": 0}])), "GPU 0: slots must be a whole number"),
        (json.dumps(_spec([{"id": "0", "slots": -1}])), "at least 1, not -1"),
        (json.dumps(_spec([{"id": "0", "slots": "2"}])), 'at least 1, not "2"'),
        (json.dumps(_spec([{"id": "0", "slots": 1.5}])), "at least 1, not 1.5"),
        (json.dumps(_spec([{"id": "0", "slots": True}])), "at least 1, not true"),
        (json.dumps(_spec([{"id": "1"}, {"id": "1", "slots": 2}])), "GPU 1 is listed twice"),
    ],
)
def test_a_bad_spec_is_a_usage_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "spec.json"
    path.write_text(text)
    with pytest.raises(GraderUsageError, match="--resource-spec .*spec.json: ") as caught:
        read_resource_spec(path)
    assert message in str(caught.value)


def test_a_missing_spec_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(GraderUsageError, match="spec.json: no such file"):
        read_resource_spec(tmp_path / "spec.json")
    with pytest.raises(GraderUsageError, match="cannot read it"):
        read_resource_spec(tmp_path)


def test_the_spec_names_only_gpus_nvidia_smi_lists() -> None:
    slots = [GpuSlots("0", 2), GpuSlots("2")]
    check_listed(slots, ["0", "1", "2"])
    check_listed(slots, [])  # nvidia-smi lists nothing: the spec is taken as given
    with pytest.raises(GraderUsageError, match="names GPU 2, but nvidia-smi -L lists only GPU 0"):
        check_listed(slots, ["0"])
