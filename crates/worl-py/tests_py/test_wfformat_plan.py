"""A plan written as WfFormat (`worl schedule --out plan.wf.json`, `Schedule.save`) is read
by WfCommons' own reader with every task's machine and start time (issue 20, item 11), and
by `worl.validate` back as a schedule.

Needs the `wfcommons` package: skipped without it, but under CI=true its absence fails.
WfCommons validates against the WfFormat schema it fetches from GitHub; offline, the test
hands it the part of the WfFormat 1.5 schema that the execution section must satisfy.
"""

import json
import os
import pathlib
from datetime import datetime, timedelta, timezone

import pytest

import worl

try:
    import wfcommons
except ImportError:  # pragma: no cover - depends on the environment
    if os.environ.get("CI") == "true":
        raise
    pytest.skip("wfcommons is not installed", allow_module_level=True)

# The instance reader: `Instance` in wfcommons >= 1.6, `WfInstance` before.
WfInstance = getattr(wfcommons, "Instance", None) or getattr(wfcommons, "WfInstance")
import dateutil.parser  # noqa: E402 - a dependency of wfcommons

# The WfFormat 1.5 schema (wfcommons/WfFormat, wfcommons-schema.json), cut to what a plan
# uses; the execution task fields are the schema's own: `executedAt` a string (timestamp),
# `machines` a list of machine names, `runtimeInSeconds` a number.
SCHEMA_1_5 = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "required": ["name", "schemaVersion", "workflow"],
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "schemaVersion": {"type": "string", "enum": ["1.5"]},
        "workflow": {
            "type": "object",
            "required": ["specification"],
            "properties": {
                "specification": {
                    "type": "object",
                    "required": ["tasks"],
                    "properties": {
                        "tasks": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "required": ["name", "id", "parents", "children"],
                            },
                        },
                        "files": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "required": ["id", "sizeInBytes"],
                                "properties": {"sizeInBytes": {"type": "integer"}},
                            },
                        },
                    },
                },
                "execution": {
                    "type": "object",
                    "required": ["makespanInSeconds", "executedAt", "tasks"],
                    "properties": {
                        "makespanInSeconds": {"type": "number"},
                        "executedAt": {"type": "string", "minLength": 1},
                        "tasks": {
                            "type": "array",
                            "minItems": 1,
                            "items": {
                                "type": "object",
                                "required": ["id", "runtimeInSeconds"],
                                "properties": {
                                    "id": {"type": "string", "minLength": 1},
                                    "runtimeInSeconds": {"type": "number"},
                                    "executedAt": {"type": "string", "minLength": 1},
                                    "machines": {
                                        "type": "array",
                                        "items": {"type": "string", "minLength": 1},
                                    },
                                },
                            },
                        },
                        "machines": {
                            "type": "array",
                            "minItems": 1,
                            "items": {
                                "type": "object",
                                "required": ["nodeName"],
                                "properties": {"nodeName": {"type": "string", "minLength": 1}},
                            },
                        },
                    },
                },
            },
        },
    },
}


def read_with_wfcommons(tmp_path, s):
    """Saves the schedule `s` as `plan.wf.json` and reads it with WfCommons' reader, which
    validates it against the (cut) WfFormat 1.5 schema: the path and the instance."""
    plan = tmp_path / "plan.wf.json"
    s.save(plan)
    schema = tmp_path / "wfformat-1.5.json"
    schema.write_text(json.dumps(SCHEMA_1_5))
    return plan, WfInstance(pathlib.Path(plan), schema_file=str(schema))


def test_wfcommons_reads_every_task_machine_and_start(tmp_path, diamond_nx):
    w = worl.Workload.from_networkx(diamond_nx)
    s = worl.schedule(w, "2x2:V100-16GB:25GbE", "heft")
    _, inst = read_with_wfcommons(tmp_path, s)
    rows = {r["task"]: r for r in json.loads(s.to_json())["rows"]}
    tasks = [inst.workflow.nodes[n]["task"] for n in inst.workflow.nodes]
    assert sorted(t.name for t in tasks) == sorted(rows)
    epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
    for t in tasks:
        row = rows[t.name]
        assert [m.name for m in t.machines] == [row["machine"]], t.name
        assert t.start_time is not None, t.name
        start = dateutil.parser.parse(t.start_time)  # WfCommons' own timestamp parser
        assert abs(start - (epoch + timedelta(seconds=row["start"]))) <= timedelta(microseconds=1)
        assert t.runtime == pytest.approx(row["finish"] - row["start"], abs=1e-12)
    assert inst.makespan == pytest.approx(s.makespan)
    # the execution section lists every machine of the cluster, used or not
    assert sorted(inst.machines) == ["node-0", "node-1"]
    assert {r["machine"] for r in rows.values()} <= set(inst.machines)


def test_worl_validate_reads_the_plan_back(tmp_path, diamond_nx):
    w = worl.Workload.from_networkx(diamond_nx)
    s = worl.schedule(w, "2x2:V100-16GB:25GbE", "heft")
    plan = tmp_path / "plan.wf.json"
    s.save(plan)
    assert worl.validate(w, "2x2:V100-16GB:25GbE", plan) == []


def test_wfcommons_reads_a_gang_plan_with_every_machine_of_its_set(tmp_path):
    """A gang's record lists each machine of its GPU set in `machines` (schema-valid: a list
    of machine names) and its set as the extra property `gpuIds`; WfCommons reads it."""
    nx = pytest.importorskip("networkx")
    g = nx.DiGraph(name="ddp")
    g.add_node("prep", work=2.0)
    g.add_node("train", work=8.0, gpus=4)
    # 6 GPUs across machines of 4: the set must span both
    g.add_node("eval", work=6.0, gpus=6, gang={"span": "cluster"})
    g.add_edge("prep", "train", bytes=0.0)
    g.add_edge("train", "eval", bytes=0.0)
    w = worl.Workload.from_networkx(g)
    s = worl.schedule(w, "2x4:V100-16GB:25GbE", "heft")
    plan, inst = read_with_wfcommons(tmp_path, s)
    rows = {r["task"]: r for r in s.rows()}
    tasks = {inst.workflow.nodes[n]["task"].name: inst.workflow.nodes[n]["task"] for n in inst.workflow.nodes}
    assert [m.name for m in tasks["prep"].machines] == [rows["prep"]["machine"]]
    assert [m.name for m in tasks["train"].machines] == [rows["train"]["machine"]]
    assert sorted(m.name for m in tasks["eval"].machines) == ["node-0", "node-1"]
    doc = json.loads(plan.read_text())
    by_id = {t["id"]: t for t in doc["workflow"]["execution"]["tasks"]}
    assert by_id["train"]["gpuIds"] == rows["train"]["gpus"]
    assert by_id["eval"]["gpuIds"] == rows["eval"]["gpus"] and len(rows["eval"]["gpus"]) == 6
    assert by_id["eval"]["machines"][0] == rows["eval"]["machine"]
    assert "gpuIds" not in by_id["prep"]
    assert worl.validate(w, "2x4:V100-16GB:25GbE", plan) == []
