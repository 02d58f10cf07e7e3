"""worl.simulate (issue 24): the discrete-event simulator from Python.

The two-job workload: job `a` is a1 (2 reference GPU-seconds) -> a2 (3), the edge carrying
3.125e9 bytes; job `b` is b1 (4). On two V100s (speed 1.0) on two machines over 25 GbE a
transfer between the machines takes c = 50e-6 + 3.125e9 / 3.125e9 = 1.00005 s.

HEFT by hand: upward ranks a1 = 2 + (mean transfer) + 3 > b1 = 4 > a2 = 3, so the order is
a1, b1, a2. a1 on g0 [0, 2]; b1 on g1 [0, 4] (on g0 it would end at 6); a2 on g0 [2, 5]
(on g1 it would start at max(4, 2 + c) and end at 7). Makespan 5 s; JCTs a = 5, b = 4. The
problem's lower bound is also 5 (the chain a1 -> a2), so no policy can finish earlier.
"""

import json

import pytest

import worl

RUN_KEYS = [
    "problem", "policy", "seed", "planned_makespan", "makespan", "mean_jct", "p50_jct",
    "p99_jct", "mean_slowdown", "mean_wait", "utilisation", "load_imbalance", "bytes_moved",
    "contention_delay", "lost_time", "replans", "decision_latency_p50", "decision_latency_p99",
]


@pytest.fixture
def two_jobs():
    nx = pytest.importorskip("networkx")
    g = nx.DiGraph(name="two-jobs")
    g.add_node("a1", work=2.0, job="a")
    g.add_node("a2", work=3.0, job="a")
    g.add_node("b1", work=4.0, job="b")
    g.add_edge("a1", "a2", bytes=3.125e9)
    return worl.Workload.from_networkx(g)


def test_plan_heft_realises_the_heft_makespan(two_jobs, two_v100):
    heft = worl.schedule(two_jobs, two_v100, scheduler="heft")
    assert heft.makespan == pytest.approx(5.0, abs=1e-9)
    sim = worl.simulate([two_jobs], two_v100, policies=["plan:heft"], contention="none", seeds=2)
    assert sim.policies == ["plan:heft"]
    assert len(sim.runs) == 2
    for run, seed in zip(sim.runs, (1, 2)):
        assert list(run) == RUN_KEYS
        assert (run["problem"], run["policy"], run["seed"]) == ("two-jobs", "plan:heft", seed)
        assert run["makespan"] == pytest.approx(heft.makespan, abs=1e-9)
        assert run["planned_makespan"] == pytest.approx(heft.makespan, abs=1e-9)
        assert run["mean_jct"] == pytest.approx(4.5, abs=1e-9)
        assert run["p99_jct"] == pytest.approx(5.0, abs=1e-9)
        assert (run["lost_time"], run["contention_delay"]) == (0.0, 0.0)
        # a1 and a2 share g0: nothing crosses machines
        assert run["bytes_moved"] == 0.0
        # busy 9 s of 2 GPUs x 5 s
        assert run["utilisation"] == pytest.approx(0.9, abs=1e-9)
    # the JCTs are the last finishes of each job's rows in HEFT's schedule (all released at 0)
    last = {}
    for r in heft.rows():
        last[r["job"]] = max(last.get(r["job"], 0.0), r["finish"])
    want = [last[j] for j in two_jobs.jobs]
    assert want == pytest.approx([5.0, 4.0], abs=1e-9)
    assert sim.jcts("plan:heft") == pytest.approx(want, abs=1e-9)
    assert sim.jcts("PLAN:HEFT") == sim.jcts("plan:heft")
    assert "plan:heft" in sim.markdown
    assert repr(sim) == "Simulation(1 problems x 1 policies x 2 seeds, 2 runs)"


def test_online_policies_complete(two_jobs, two_v100):
    # one comma-separated string, as the command line's --policy takes it
    sim = worl.simulate([two_jobs], two_v100, policies="eft, round-robin", seeds=1)
    assert sim.policies == ["eft", "round-robin"]
    assert [r["policy"] for r in sim.runs] == ["eft", "round-robin"]
    for run in sim.runs:
        assert run["planned_makespan"] is None
        # every task ran: no schedule beats the chain a1 -> a2
        assert run["makespan"] >= 5.0 - 1e-9
        assert 0.0 < run["utilisation"] <= 1.0
        jcts = sim.jcts(run["policy"])
        assert len(jcts) == 2 and min(jcts) > 0.0
        assert max(jcts) == pytest.approx(run["makespan"], abs=1e-9)  # all released at 0


def test_trace_releases_are_honoured(two_jobs, two_v100, tmp_path):
    doc = json.loads(two_jobs.to_json())
    doc["jobs"][1]["release"] = 100.0
    path = tmp_path / "released.json"
    path.write_text(json.dumps(doc))
    w = worl.Workload.load(path)
    assert w.releases == [0.0, 100.0]
    assert two_jobs.releases == [0.0, 0.0]
    # HEFT plans with every job at 0; replayed, b1 waits for its release on g1: [100, 104]
    sim = worl.simulate([path], two_v100, policies="plan:heft", contention="none", seeds=1)
    (run,) = sim.runs
    assert run["problem"] == "released.json"
    assert run["planned_makespan"] == pytest.approx(5.0, abs=1e-9)
    assert run["makespan"] == pytest.approx(104.0, abs=1e-9)
    assert sim.jcts("plan:heft") == pytest.approx([5.0, 4.0], abs=1e-9)
    # batch arrivals ignore the file's release times
    batch = worl.simulate([w], two_v100, "plan:heft", arrivals="batch", contention="none", seeds=1)
    assert batch.runs[0]["makespan"] == pytest.approx(5.0, abs=1e-9)


def test_bad_specs_raise_naming_the_spec(two_jobs, two_v100):
    with pytest.raises(worl.SimulationError, match="lognormal:abc"):
        worl.simulate([two_jobs], two_v100, policies="plan:heft", noise="lognormal:abc")
    with pytest.raises(worl.ScheduleError, match="`fastest`"):
        worl.simulate([two_jobs], two_v100, policies=["plan:heft", "fastest"])
    with pytest.raises(worl.ScheduleError, match="`mtbf:-1`"):
        worl.simulate([two_jobs], two_v100, policies="plan:heft", failures="mtbf:-1")
    with pytest.raises(worl.ArgumentError, match="seeds 0: must be in 1..=10000"):
        worl.simulate([two_jobs], two_v100, policies="plan:heft", seeds=0)
    # a scheduler the registry lacks is refused before any run, naming the spec and the
    # schedulers known
    with pytest.raises(worl.ScheduleError, match="plan:nosuch") as e:
        worl.simulate([two_jobs], two_v100, policies="plan:nosuch", seeds=1)
    assert "unknown scheduler `nosuch`" in str(e.value) and "heft" in str(e.value)
    # a failing run names the problem, policy and seed: an outage of a GPU the cluster lacks
    with pytest.raises(worl.ScheduleError, match="outages:5@0\\+1|g5") as e:
        worl.simulate([two_jobs], two_v100, policies="eft", failures="outages:5@0+1", seeds=1)
    assert "two-jobs" in str(e.value) and "seed 1" in str(e.value)
    with pytest.raises(worl.LoadError):
        worl.simulate([two_jobs], "2x1:NoSuchGPU", policies="plan:heft")


def test_scripted_outages_lose_the_running_task(two_jobs, two_v100, tmp_path):
    # HEFT's plan: a1 on g0 [0, 2], b1 on g1 [0, 4], a2 on g0 after a1. g0 is down on [1, 3):
    # a1 is lost after 1 s, sent back to g0 and runs [3, 5], a2 [5, 8]; b1 is untouched.
    sim = worl.simulate([two_jobs], two_v100, policies="plan:heft", contention="none",
                        failures="outages:0@1+2", seeds=1)
    (run,) = sim.runs
    assert run["lost_time"] == 1.0
    assert run["makespan"] == pytest.approx(8.0, abs=1e-9)
    assert sim.jcts("plan:heft") == pytest.approx([8.0, 4.0], abs=1e-9)
    # the same outage from a CSV script file
    script = tmp_path / "outages.csv"
    script.write_text("gpu,from,to\ng0,1,3\n")
    again = worl.simulate([two_jobs], two_v100, policies="plan:heft", contention="none",
                          failures=f"script:{script}", seeds=1)
    keys = ["makespan", "mean_jct", "lost_time", "replans"]
    assert [again.runs[0][k] for k in keys] == [run[k] for k in keys]
    with pytest.raises(worl.ScheduleError, match="outage 1 `0@1\\+inf`"):
        worl.simulate([two_jobs], two_v100, policies="plan:heft", failures="outages:0@1+inf")
    script.write_text("gpu,from,to\n0,1,x\n")
    with pytest.raises(worl.ScheduleError, match="line 2"):
        worl.simulate([two_jobs], two_v100, policies="plan:heft", failures=f"script:{script}")


def test_jcts_of_an_unsimulated_policy_raise(two_jobs, two_v100):
    sim = worl.simulate([two_jobs], two_v100, policies="plan:heft", seeds=1)
    with pytest.raises(ValueError, match=r"no policy `eft` in this simulation \(policies: plan:heft\)"):
        sim.jcts("eft")


def test_simulation_to_pandas(two_jobs, two_v100):
    pd = pytest.importorskip("pandas")
    sim = worl.simulate([two_jobs, two_jobs], two_v100, policies="plan:heft", seeds=2)
    df = sim.to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == RUN_KEYS
    # the repeated workload name becomes `name (2)`, as in compare
    assert sorted(set(df["problem"])) == ["two-jobs", "two-jobs (2)"]
    assert len(df) == 2 * 2
