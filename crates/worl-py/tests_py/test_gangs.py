"""Gang tasks from Python (issue 21): a networkx node with `gpus` (and a `gang` dict) is a
task needing several GPUs at once; HEFT places it on a GPU set; schedule rows list the set
as `gpus`, lead first, and `worl.validate` takes such rows back. Figures by hand."""

import json

import pytest

import worl


def two_four_gpu_machines(tmp_path):
    """Machines a (g0..g3) and b (g4..g7) of 4 V100s (speed 1); within a machine 1 GB/s
    and 0.25 s latency, between them 0.1 GB/s and 1 s (worl_cluster::testing's case)."""
    path = tmp_path / "two.toml"
    gpus = "".join(
        f'\n[[gpus]]\nmodel = "V100-16GB"\nmachine = {m}\n' for m in (0, 0, 0, 0, 1, 1, 1, 1)
    )
    path.write_text(
        'name = "uniform"\nmachines = ["a", "b"]\n\n'
        '[network]\nkind = "uniform"\n'
        "intra = { bandwidth = 1e9, latency = 0.25 }\n"
        "inter = { bandwidth = 1e8, latency = 1.0 }\n" + gpus
    )
    return worl.Cluster.load(path)


@pytest.fixture
def gang_nx():
    """a (2) -> G (8, 4 GPUs) -> c (1), and x (3) alone; 0-byte edges; job `j`."""
    nx = pytest.importorskip("networkx")
    g = nx.DiGraph(name="j")
    g.add_node("a", work=2.0)
    g.add_node("G", work=8.0, gpus=4)
    g.add_node("c", work=1.0)
    g.add_node("x", work=3.0)
    g.add_edge("a", "G", bytes=0.0)
    g.add_edge("G", "c", bytes=0.0)
    return g


def test_heft_places_a_4_gpu_task_and_rows_list_its_set(tmp_path, gang_nx):
    # By hand (worl-sched tests/gangs.rs): a on g0 [0, 2]; G on {g0..g3} [2.25, 4.25] (its
    # share 8 / 4 = 2 s, a's data over the 0.25 s link); x on g4 [0, 3]; c on g0
    # [4.25, 5.25]. Makespan 5.25.
    c = two_four_gpu_machines(tmp_path)
    w = worl.Workload.from_networkx(gang_nx)
    assert [t["gpus"] for t in w.tasks()] == [1, 4, 1, 1]
    s = worl.schedule(w, c, "heft")
    assert s.makespan == 5.25
    assert s.validate() == []
    rows = s.rows()
    got = [(r["task"], r["gpu_id"], r["start"], r["finish"], r.get("gpus")) for r in rows]
    assert got == [
        ("a", 0, 0.0, 2.0, None),
        ("G", 0, 2.25, 4.25, [0, 1, 2, 3]),
        ("c", 0, 4.25, 5.25, None),
        ("x", 4, 0.0, 3.0, None),
    ]
    # single-GPU rows keep exactly the keys they had before sets
    assert set(rows[0]) == set(worl.SCHEDULE_ROW_KEYS) - {"gpus"}
    # the rows given back validate; a set cut to 2 GPUs, or one not led by gpu_id, does not
    assert worl.validate(w, c, rows) == []
    short = [dict(r) for r in rows]
    short[1]["gpus"] = [0, 1]
    assert any("j/G" in v for v in worl.validate(w, c, short))
    moved = [dict(r) for r in rows]
    moved[1]["gpus"] = [1, 0, 2, 3]
    with pytest.raises(worl.LoadError) as e:
        worl.validate(w, c, moved)
    assert "its first GPU must be the row's GPU g0" in str(e.value)
    bad = [dict(r) for r in rows]
    bad[1]["gpus"] = "0;1;2;3"
    with pytest.raises(ValueError) as e:
        worl.validate(w, c, bad)
    assert "row 1: `gpus` is not a list of GPU ids" in str(e.value)


def test_gang_schedule_files_and_wfformat_plans_carry_the_set(tmp_path, gang_nx):
    c = two_four_gpu_machines(tmp_path)
    w = worl.Workload.from_networkx(gang_nx)
    s = worl.schedule(w, c, "heft")
    assert json.loads(s.to_json())["rows"][1]["gpus"] == [0, 1, 2, 3]
    for name in ("s.json", "s.csv", "plan.wf.json"):
        s.save(tmp_path / name)
        assert worl.validate(w, c, tmp_path / name) == [], name
    plan = json.loads((tmp_path / "plan.wf.json").read_text())
    g = plan["workflow"]["execution"]["tasks"][1]
    assert (g["id"], g["machines"], g["gpuId"], g["gpuCount"], g["gpuIds"]) == (
        "G",
        ["a"],
        0,
        4,
        [0, 1, 2, 3],
    )
    assert "gpuIds" not in plan["workflow"]["execution"]["tasks"][0]


def test_gang_attributes_round_trip_through_networkx(gang_nx):
    gang_nx.add_node("e", work=4.0, gpus=2, gang={"span": "cluster", "efficiency": 0.5,
                                                  "sync_bytes": 1e6, "sync_steps": 10})
    w = worl.Workload.from_networkx(gang_nx)
    back = worl.Workload.from_networkx(w.to_networkx())
    assert back == w
    nodes = w.to_networkx().nodes
    assert nodes[1]["gpus"] == 4 and "gang" not in nodes[1]
    assert nodes[4]["gang"] == {"span": "cluster", "efficiency": 0.5, "sync_bytes": 1e6,
                                "sync_steps": 10.0}
    assert "gpus" not in nodes[0] and "gang" not in nodes[0]
    # gpus=None / gang=None ignore the attributes: every task on one GPU
    plain = worl.Workload.from_networkx(gang_nx, gpus=None, gang=None)
    assert [t["gpus"] for t in plain.tasks()] == [1] * 5
    # the doc's example: a cross-machine gang, HEFT's sets lead first
    c = "2x4:V100-16GB:25GbE"
    s = worl.schedule(w, c, "heft")
    assert s.validate() == []
    sets = {r["task"]: r.get("gpus") for r in s.rows()}
    assert len(sets["G"]) == 4 and sets["G"][0] == s.rows()[1]["gpu_id"]
    assert len(sets["e"]) == 2 and sets["a"] is None


def test_docs_gang_example_runs(tmp_path):
    nx = pytest.importorskip("networkx")
    g = nx.DiGraph(name="ddp")
    g.add_node("prep", work=2.0)
    g.add_node("train", work=8.0, gpus=4)
    g.add_node("eval", work=4.0, gpus=2, gang={"span": "cluster", "efficiency": 0.9})
    g.add_edge("prep", "train", bytes=0.0)
    g.add_edge("train", "eval", bytes=0.0)
    w = worl.Workload.from_networkx(g)
    s = worl.schedule(w, "2x4:V100-16GB:25GbE", "heft")
    assert [r.get("gpus") for r in s.rows()] == [None, [0, 1, 2, 3], [0, 1]]
    assert worl.validate(w, "2x4:V100-16GB:25GbE", s.rows()) == []
    s.save(tmp_path / "plan.wf.json")


def test_bad_gang_attributes_are_named(gang_nx):
    gang_nx.nodes["G"]["gpus"] = 0
    with pytest.raises(worl.LoadError) as e:
        worl.Workload.from_networkx(gang_nx)
    assert "j/G" in str(e.value)
    gang_nx.nodes["G"]["gpus"] = "four"
    with pytest.raises(ValueError) as e:
        worl.Workload.from_networkx(gang_nx)
    assert str(e.value) == "node `G`: attribute `gpus` is not a GPU count (an int >= 1)"
    gang_nx.nodes["G"]["gpus"] = 4
    gang_nx.nodes["G"]["gang"] = {"ring": 1}
    with pytest.raises(ValueError) as e:
        worl.Workload.from_networkx(gang_nx)
    assert "node `G`: attribute `gang`: unknown key `ring`" in str(e.value)
    gang_nx.nodes["G"]["gang"] = {"span": "ring"}
    with pytest.raises(worl.LoadError) as e:
        worl.Workload.from_networkx(gang_nx)
    assert str(e.value) == "node `G`: gang span `ring` is neither `machine` nor `cluster`"
    gang_nx.nodes["G"]["gang"] = {"efficiency": 1.5}
    with pytest.raises(worl.LoadError) as e:
        worl.Workload.from_networkx(gang_nx)
    assert "j/G" in str(e.value) and "efficiency" in str(e.value)
    # every scheduler of the default wheel places gangs; exact, optimal, is never worse than HEFT
    del gang_nx.nodes["G"]["gang"]
    w = worl.Workload.from_networkx(gang_nx)
    c = "2x4:V100-16GB:25GbE"
    s = worl.schedule(w, c, "exact")
    assert s.validate() == []
    assert [len(r.get("gpus", [r["gpu_id"]])) for r in s.rows()] == [1, 4, 1, 1]
    assert s.makespan <= worl.schedule(w, c, "heft").makespan
