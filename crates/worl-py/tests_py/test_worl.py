"""Tests of the worl Python package: real values, round trips, errors, the validator."""

import json
import os
import threading

import pytest

import worl
from conftest import data_dir

C = 1.0 + 50e-6  # one 3.125e9-byte transfer over 25 GbE: 50 us + 1 s


# ---------------------------------------------------------------- scheduling, real values


def test_heft_hand_computed(diamond_nx, two_v100):
    # Upward ranks order A, C, B, D. A on g0 [0, 2]; C on g0 [2, 6]; B on g1 [2+c, 5+c];
    # D on g1 [6+c, 7+c] (C's data arrives at 6+c; on g0 D would start at 5+2c).
    w = worl.Workload.from_networkx(diamond_nx)
    s = worl.schedule(w, two_v100, "heft")
    assert s.makespan == pytest.approx(7.0 + C, abs=1e-9)
    assert s.makespan == pytest.approx(8.00005, abs=1e-9)  # the Rust unit test's value
    got = {r["task"]: (r["gpu_id"], r["start"], r["finish"]) for r in s.rows()}
    want = {"A": (0, 0.0, 2.0), "C": (0, 2.0, 6.0), "B": (1, 2.0 + C, 5.0 + C), "D": (1, 6.0 + C, 7.0 + C)}
    for task, (gpu, start, finish) in want.items():
        assert got[task][0] == gpu
        assert got[task][1] == pytest.approx(start, abs=1e-9)
        assert got[task][2] == pytest.approx(finish, abs=1e-9)
    assert s.scheduler == "HEFT"
    assert s.validate() == []
    assert 0 < s.lower_bound <= s.makespan


def test_schedule_accepts_a_description_and_options(diamond_nx):
    w = worl.Workload.from_networkx(diamond_nx)
    s = worl.schedule(w, "2x1:V100-16GB:25GbE", "rtgs", seed=4, whales=5, iterations=3)
    assert s.spec == "rtgs[whales=5,iterations=3]"
    assert s.validate() == []
    assert s.makespan >= 7.0  # the critical path A, C, D on one GPU


def test_same_seed_same_makespan():
    w = worl.Workload.layered(200, seed=3)
    c = worl.Cluster.parse("pai-mix:8")
    a = worl.schedule(w, c, "rtgs[whales=6,iterations=4]", seed=11)
    b = worl.schedule(w, c, "rtgs[whales=6,iterations=4]", seed=11)
    assert a.makespan == b.makespan
    assert a.rows() == b.rows()


def test_exceptions_follow_the_rust_error_type(tmp_path):
    assert all(issubclass(e, worl.LoadError) for e in (worl.WorkloadError, worl.ClusterError, worl.FileError))
    assert issubclass(worl.SimulationError, worl.ScheduleError)
    assert all(issubclass(e, worl.WorlError) for e in (worl.LoadError, worl.ScheduleError, worl.ArgumentError))
    assert not issubclass(worl.ArgumentError, (worl.LoadError, worl.ScheduleError))
    missing = tmp_path / "no" / "such.json"
    with pytest.raises(worl.FileError, match="such.json"):
        worl.Workload.load(missing)
    cyclic = tmp_path / "cyclic.dot"
    cyclic.write_text("digraph g { a -> b; b -> a; }")
    with pytest.raises(worl.WorkloadError, match="cycl"):
        worl.Workload.load(cyclic)
    cluster = tmp_path / "cluster.json"
    cluster.write_text("{}")
    with pytest.raises(worl.ClusterError):
        worl.Cluster.load(cluster)
    w = worl.Workload.layered(10, seed=1)
    c = worl.Cluster.parse("pai-mix:2")
    with pytest.raises(worl.ArgumentError, match="seeds 0: must be at least 1"):
        worl.compare([w], c, ["heft"], seeds=0)
    with pytest.raises(worl.ArgumentError, match="time -1"):
        worl.schedule(w, c, "heft", time=-1.0)
    with pytest.raises(worl.ScheduleError, match="unknown scheduler"):
        worl.schedule(w, c, "hefty")


def test_scheduler_options_are_the_declared_ones_and_build():
    opts = worl.scheduler_options("ga")
    keys = [o["key"] for o in opts]
    assert keys[:2] == ["population", "generations"] and keys[-2:] == ["time", "evaluations"]
    assert "gpu-choices" in keys and len(keys) == len(set(keys))
    population = next(o for o in opts if o["key"] == "population")
    assert population["default"] == "30" and population["doc"]
    # every literal default is accepted as a spec value
    w = worl.Workload.layered(20, seed=1)
    c = worl.Cluster.parse("pai-mix:3")
    for o in opts:
        if not o["default"].startswith("("):
            spec = "ga[population=4,generations=2,%s=%s]" % (o["key"], o["default"])
            if o["key"] in ("population", "generations"):
                spec = "ga[%s=%s]" % (o["key"], o["default"])
            assert worl.schedule(w, c, spec, seed=1).validate() == [], spec
    with pytest.raises(worl.ScheduleError, match="unknown scheduler `hefty`.*heft"):
        worl.scheduler_options("hefty")


def test_every_registered_scheduler_gives_a_valid_schedule():
    w = worl.Workload.layered(40, seed=2)
    c = worl.Cluster.parse("pai-mix:4")
    names = worl.schedulers()
    assert "heft" in names and "peft" in names and names["heft"]
    for name in names:
        if name == "worl-rtgs" and not worl.HAS_WORL_RTGS:
            continue
        s = worl.schedule(w, c, name, seed=1, max_evaluations=300)
        assert s.validate() == [], name
        assert s.makespan >= s.lower_bound * (1 - 1e-9), name


def test_wfcommons_file():
    path = data_dir() / "wfcommons-wfinstances" / "montage-chameleon-2mass-005d-001.json"
    if not path.exists():
        msg = f"{path} not found (set WORL_DATA_DIR to the data directory)"
        if os.environ.get("CI") == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    w = worl.Workload.load(path)
    assert (w.n_tasks, w.n_edges) == (58, 114)  # as listed in SOURCES.md
    s = worl.schedule(w, worl.Cluster.parse("homogeneous:4:V100-16GB"), "heft")
    assert s.validate() == []
    assert s.n_tasks == 58


def test_saga_instance_brings_its_network(tmp_path):
    inst = {
        "name": "synthetic.diamond",
        "task_graph": {
            "tasks": [{"name": "A", "cost": 2.0}, {"name": "B", "cost": 3.0}],
            "dependencies": [{"source": "A", "target": "B", "size": 4.0}],
        },
        "network": {
            "nodes": [{"name": "n0", "speed": 1.0}, {"name": "n1", "speed": 2.0}],
            "edges": [
                {"source": "n0", "target": "n1", "speed": 2.0},
                {"source": "n0", "target": "n0", "speed": None},
                {"source": "n1", "target": "n1", "speed": None},
            ],
        },
    }
    path = tmp_path / "diamond.json"
    path.write_text(json.dumps(inst))
    w = worl.Workload.load(path)
    assert w.network is not None and w.network.n_gpus == 2
    assert worl.Workload.from_saga(path) == w
    # both on n1 (speed 2): 1 + 1.5 = 2.5; any split costs more (A on n0 ends at 2)
    s = worl.schedule(w, None, "heft")
    assert s.makespan == pytest.approx(2.5)
    back = tmp_path / "back.saga.json"
    w.save(back)
    again = worl.Workload.load(back)
    assert again == w and again.network == w.network
    with pytest.raises(worl.LoadError, match="needs a network"):
        worl.Workload.layered(5).save(tmp_path / "x.saga.json")


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("ext", ["json", "dot"])
def test_workload_save_load_round_trip(tmp_path, ext):
    w = worl.Workload.layered(120, seed=5)
    path = tmp_path / f"w.{ext}"
    w.save(path)
    back = worl.Workload.load(path)
    assert back == w
    assert (back.n_tasks, back.n_edges) == (120, w.n_edges)


def test_wfformat_round_trip(tmp_path):
    # WfFormat keeps names and work exactly, file sizes as whole bytes; the job and the
    # workload are named after the file
    w = worl.Workload.layered(120, seed=5)
    path = tmp_path / "w.wf.json"
    w.save(path)
    back = worl.Workload.load(path)
    assert back.name == "w.wf"
    assert [(t["name"], t["work"]) for t in back.tasks()] == [(t["name"], t["work"]) for t in w.tasks()]
    edges = lambda x: sorted((e["source"], e["target"], round(e["bytes"])) for e in x.edges())
    assert edges(back) == edges(w)


def test_networkx_round_trip(diamond_nx):
    w = worl.Workload.from_networkx(diamond_nx)
    assert (w.n_tasks, w.n_edges, w.n_jobs, w.name) == (4, 4, 1, "diamond")
    assert w.total_work == 10.0
    g = w.to_networkx()
    assert g.nodes[0] == {"name": "A", "job": "diamond", "work": 2.0, "memory": 1.0}
    assert g.edges[0, 2]["bytes"] == 3.125e9
    assert worl.Workload.from_networkx(g) == w
    big = worl.Workload.layered(300, seed=9)
    assert worl.Workload.from_networkx(big.to_networkx()) == big


@pytest.mark.parametrize("ext", ["toml", "json"])
def test_cluster_file_round_trip(tmp_path, ext):
    c = worl.Cluster.parse("4x8:A100-80GB:100GbE")
    assert (c.n_machines, c.n_gpus) == (4, 32)
    path = tmp_path / f"c.{ext}"
    c.save(path)
    assert worl.Cluster.load(path) == c
    assert worl.Cluster.parse(str(path)) == c
    assert "A100-80GB" in c.to_toml()
    assert worl.Cluster.from_spec(4, 8, "A100-80GB", inter="100GbE") == c


@pytest.mark.parametrize("ext", ["json", "csv"])
def test_schedule_file_round_trip(tmp_path, diamond_nx, two_v100, ext):
    w = worl.Workload.from_networkx(diamond_nx)
    s = worl.schedule(w, two_v100, "heft")
    path = tmp_path / f"s.{ext}"
    (s.write_json if ext == "json" else s.write_csv)(path)
    assert worl.validate(w, two_v100, path) == []
    assert worl.validate(w, two_v100, str(path)) == []
    assert worl.validate(w, two_v100, s.rows()) == []
    assert worl.validate(w, two_v100, s) == []
    if ext == "json":
        doc = json.loads(path.read_text())
        assert doc["format"] == "worl-schedule" and doc["makespan"] == pytest.approx(8.00005)


# ---------------------------------------------------------------- the validator


def test_validate_catches_a_hand_broken_schedule(diamond_nx, two_v100):
    w = worl.Workload.from_networkx(diamond_nx)
    rows = [
        {"task": "A", "gpu": 0, "start": 0.0, "finish": 2.0},
        {"task": "B", "gpu": 1, "start": 2.0, "finish": 5.0},  # A's data arrives at 2 + c
        {"task": "C", "gpu": 0, "start": 2.0, "finish": 6.0},
        {"task": "D", "gpu": 1, "start": 6.0 + C, "finish": 7.0 + C},
    ]
    v = worl.validate(w, two_v100, rows)
    assert len(v) == 1 and "A" in v[0] and "B" in v[0], v
    rows[1]["start"], rows[1]["finish"] = 2.0 + C, 5.0 + C
    assert worl.validate(w, two_v100, rows) == []
    # two tasks at once on g0
    rows[2]["gpu"] = 0
    rows[3] = {"task": 3, "gpu": 0, "start": 5.5, "finish": 6.5}
    v = worl.validate(w, two_v100, rows)
    assert v and any("C" in x and "D" in x for x in v), v
    # a missing task
    v = worl.validate(w, two_v100, rows[:3])
    assert any("D" in x for x in v), v


def test_validate_names_an_unknown_task(diamond_nx, two_v100):
    w = worl.Workload.from_networkx(diamond_nx)
    with pytest.raises(worl.LoadError, match=r"\(row 1\): task `diamond/Z` is not in workload `diamond`"):
        worl.validate(w, two_v100, [{"task": "Z", "gpu": 0, "start": 0.0, "finish": 1.0}])


# ---------------------------------------------------------------- errors


def test_missing_file_is_named(tmp_path):
    path = tmp_path / "nowhere" / "w.json"
    with pytest.raises(worl.LoadError) as e:
        worl.Workload.load(path)
    assert str(path) in str(e.value)
    assert isinstance(e.value, worl.WorlError)


def test_unknown_scheduler_lists_the_names(diamond_nx, two_v100):
    w = worl.Workload.from_networkx(diamond_nx)
    with pytest.raises(worl.ScheduleError) as e:
        worl.schedule(w, two_v100, "nosuch")
    msg = str(e.value)
    assert "nosuch" in msg and "heft" in msg and "peft" in msg


def test_bad_cluster_description_as_the_cli_says():
    with pytest.raises(worl.LoadError) as e:
        worl.Cluster.parse("homogeneous:ten:T4")
    assert str(e.value).startswith("cluster `homogeneous:ten:T4`: GPU count `ten` is not a whole number")
    with pytest.raises(worl.LoadError, match="unknown GPU model `Z80`"):
        worl.Cluster.parse("2x4:Z80")


def test_networkx_errors_name_the_node_or_edge(diamond_nx):
    g = diamond_nx.copy()
    del g.nodes["C"]["work"]
    with pytest.raises(ValueError, match="node `C` has no `work` attribute"):
        worl.Workload.from_networkx(g)
    g = diamond_nx.copy()
    g.nodes["B"]["work"] = "lots"
    with pytest.raises(ValueError, match="node `B`: attribute `work`: `lots` is not a number"):
        worl.Workload.from_networkx(g)
    g = diamond_nx.copy()
    del g.edges["B", "D"]["bytes"]
    with pytest.raises(ValueError, match="edge `B` -> `D` has no `bytes` attribute"):
        worl.Workload.from_networkx(g)
    assert worl.Workload.from_networkx(g, bytes=None).n_edges == 4
    g = diamond_nx.copy()
    g.nodes["A"]["work"] = -1.0
    with pytest.raises(worl.LoadError, match="A"):
        worl.Workload.from_networkx(g)
    g = diamond_nx.copy()
    g.add_edge("D", "A", bytes=1.0)
    with pytest.raises(worl.LoadError):
        worl.Workload.from_networkx(g)
    with pytest.raises(TypeError, match="undirected"):
        worl.Workload.from_networkx(diamond_nx.to_undirected())


def test_bad_option_value_and_repeated_option(diamond_nx, two_v100):
    w = worl.Workload.from_networkx(diamond_nx)
    with pytest.raises(worl.ScheduleError):
        worl.schedule(w, two_v100, "rtgs[whales=4]", whales=5)
    with pytest.raises(worl.ScheduleError):
        worl.schedule(w, two_v100, "rtgs", whales="many")


def test_no_cluster_for_a_plain_workload(diamond_nx):
    w = worl.Workload.from_networkx(diamond_nx)
    with pytest.raises(worl.LoadError, match="no cluster given"):
        worl.schedule(w)


# ---------------------------------------------------------------- compare, pandas, threads


def test_compare_table_shape():
    ws = [worl.Workload.layered(60, seed=s) for s in (1, 2)]
    c = worl.Cluster.parse("pai-mix:6")
    r = worl.compare(ws, c, ["heft", "peft", "rtgs[whales=4,iterations=3]"], seeds=2)
    rtgs = "rtgs[whales=4,iterations=3]"  # a spec with options is labelled by the spec
    assert r.schedulers == ["HEFT", "PEFT", rtgs]
    assert r.baseline == "HEFT"
    # the two workloads share a name: the second is renamed
    assert [row["problem"] for row in r.table] == [ws[0].name, ws[0].name + " (2)"]
    assert list(r.table[0]) == ["problem", "best", "baseline", "HEFT", "PEFT", rtgs,
                                "HEFT/baseline", "PEFT/baseline", rtgs + "/baseline"]
    for row in r.table:
        assert row["HEFT/baseline"] == 1.0
        assert row["best"] == min(row["HEFT"], row["PEFT"], row[rtgs])
        assert row[rtgs + "/baseline"] == pytest.approx(row[rtgs] / row["HEFT"])
    # deterministic schedulers run once per problem, RTGS once per seed
    assert len(r.runs) == 2 * (1 + 1 + 2)
    assert "HEFT" in r.markdown and "PEFT" in r.markdown


def test_to_pandas(diamond_nx, two_v100):
    pd = pytest.importorskip("pandas")
    s = worl.schedule(worl.Workload.from_networkx(diamond_nx), two_v100, "heft")
    df = s.to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert df.shape == (4, 9)
    assert df["finish"].max() == pytest.approx(s.makespan)


def test_threads_schedule_concurrently():
    w = worl.Workload.layered(3000, seed=7)
    c = worl.Cluster.parse("pai-mix:32")
    want = worl.schedule(w, c, "heft").makespan
    got = []

    def run():
        got.append(worl.schedule(w, c, "heft").makespan)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert got == [want, want]
