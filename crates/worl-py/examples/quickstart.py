# %% [markdown]
# # worl from Python: a quick start
#
# Run it as a script (`python examples/quickstart.py`) or cell by cell in an editor that
# understands `# %%` cells (VS Code, Jupyter via jupytext). It needs the `worl` package
# (`pip install ./crates/worl-py`), and uses networkx and pandas when installed.

# %%
import tempfile
from pathlib import Path

import worl

out = Path(tempfile.mkdtemp(prefix="worl-quickstart-"))
print("worl", worl.__version__, "- WORL-RTGS built in:", worl.HAS_WORL_RTGS)

# %% [markdown]
# ## A workload
#
# A workload is a DAG of tasks: each task has its *work* in reference GPU-seconds (seconds
# on a V100) and optionally a memory need in GiB; each dependency carries *bytes* of data.
# `Workload.load` reads every format worl reads (WfCommons JSON, Pegasus DAX, STG, DOT,
# Alibaba v2018 CSV, saga problem instances, worl's own JSON). Here we make one: a seeded
# random layered DAG of 500 tasks.

# %%
w = worl.Workload.layered(500, seed=1)
print(w, "total work", round(w.total_work, 1), "GPU-s")

# %% [markdown]
# From networkx: node attribute `work` (and optionally `memory`, `job`, `name`), edge
# attribute `bytes`. Other attribute names are keyword arguments.

# %%
try:
    import networkx as nx

    g = nx.DiGraph(name="diamond")
    g.add_node("load", work=2.0)
    g.add_node("train-a", work=3.0)
    g.add_node("train-b", work=4.0)
    g.add_node("merge", work=1.0)
    for u, v in [("load", "train-a"), ("load", "train-b"), ("train-a", "merge"), ("train-b", "merge")]:
        g.add_edge(u, v, bytes=3.125e9)  # 1 s over 25 GbE
    diamond = worl.Workload.from_networkx(g)
    print(diamond, [t["name"] for t in diamond.tasks()])
except ImportError:
    diamond = None
    print("networkx is not installed: skipping from_networkx")

# %% [markdown]
# ## A cluster
#
# `Cluster.parse` takes exactly what the command line's `--cluster` takes: a cluster file,
# or a description such as `4x8:A100-80GB:100GbE` (4 machines of 8 A100s, 100 GbE between
# machines), `pai-mix:16` (16 GPUs drawn from Alibaba's PAI fleet), `homogeneous:8:T4`,
# `dgx:2:H100`.

# %%
c = worl.Cluster.parse("4x8:A100-80GB:100GbE")
print(c)
print(c.to_toml())
mixed = worl.Cluster.parse("pai-mix:16")
print(mixed, sorted({g["model"] for g in mixed.gpus()}))

# %% [markdown]
# ## Scheduling
#
# `worl.schedule(workload, cluster, spec)` runs any registered scheduler; keyword options
# become spec options (`whales=10` is `rtgs[whales=10]`).

# %%
for name, what in worl.schedulers().items():
    print(f"{name:12} {what}")

# %%
s = worl.schedule(w, mixed, "heft")
print(s)
print("gap to the lower bound:", round(s.makespan / s.lower_bound, 3))
print("violations:", s.validate())  # [] when valid
print(s.rows()[:2])

# %%
r = worl.schedule(w, mixed, "rtgs", seed=7, whales=10, iterations=20)
print(r.spec, r.makespan, "vs HEFT", s.makespan)

# %% [markdown]
# Schedule files are the ones `worl schedule` writes and `worl validate` reads.

# %%
s.write_json(out / "heft.json")
s.write_csv(out / "heft.csv")
print(worl.validate(w, mixed, out / "heft.csv"))

# %% [markdown]
# ## Your own scheduler, checked by worl's validator
#
# A toy: every task on GPU 0, one after another in topological order. Rows are dicts with
# `task` (name or id), `gpu` (id), `start` and `finish` in seconds.

# %%
if diamond is not None:
    two = worl.Cluster.parse("2x1:V100-16GB:25GbE")
    t, rows = 0.0, []
    for task in diamond.tasks():  # the ids of from_networkx follow node order: topological here
        rows.append({"task": task["id"], "gpu": 0, "start": t, "finish": t + task["work"]})
        t += task["work"]
    print("serial on g0:", worl.validate(diamond, two, rows) or "valid", "makespan", t)
    rows[1]["gpu"] = 1  # train-a on the other GPU without waiting for the data
    print("broken:", worl.validate(diamond, two, rows))
    print("HEFT:", worl.schedule(diamond, two, "heft").makespan)

# %% [markdown]
# ## Comparing schedulers
#
# `worl.compare` runs several schedulers (seeds 1..N for the stochastic ones) and gives the
# table `worl compare` prints, normalised to HEFT.

# %%
ws = [worl.Workload.layered(200, seed=s) for s in (1, 2, 3)]
cmp = worl.compare(ws, mixed, ["heft", "peft", "cpop", "rtgs[whales=10,iterations=20]"], seeds=2)
print(cmp.markdown)
try:
    print(cmp.to_pandas())
except ImportError as e:
    print(e)

# %% [markdown]
# ## Simulating execution
#
# `worl.simulate` executes the workloads with the discrete-event simulator: HEFT's static
# plan replayed (`plan:heft`) and online policies, under runtime noise (actual time =
# estimate x a log-normal factor of mean 1), max-min fair link sharing and seeded arrivals.

# %%
sim = worl.simulate(ws, mixed, policies="plan:heft,eft,round-robin", arrivals="batch",
                    noise="lognormal:0.2", contention="fair", seeds=2)
print(sim.markdown)
print("JCTs under plan:heft (first workload, seed 1):", sim.jcts("plan:heft")[:5])

# %% [markdown]
# ## Saving
#
# Workloads save as worl JSON or DOT (both read back equal); clusters as TOML or JSON.

# %%
w.save(out / "w.json")
assert worl.Workload.load(out / "w.json") == w
c.save(out / "cluster.toml")
assert worl.Cluster.load(out / "cluster.toml") == c
print("files in", out, sorted(p.name for p in out.iterdir()))
