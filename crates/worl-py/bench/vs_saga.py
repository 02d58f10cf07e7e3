"""worl's HEFT against saga's HEFT (the `anrg.saga` package, Python) on the same instances.

    python bench/vs_saga.py [SIZES...]          # default sizes: 100 500 1000 2000

Needs `pip install anrg.saga` in the benchmark's environment only (saga is called, never
copied). Each instance: a seeded layered DAG of N tasks (worl's generator; cost = work,
size = bytes) on 8 nodes with the speeds of a PAI-mix cluster's GPUs and 25 GbE
(3.125e9 B/s) between different nodes. worl reads the instance as a saga problem instance
(`Workload.from_saga`: the same cost model, no latency), so both schedule the same problem;
the makespans are printed beside the times. Times are best of 3 (saga: 1 run above 30 s).
"""

import json
import sys
import tempfile
import time
from pathlib import Path

import worl

try:
    from saga import Network, TaskGraph
    from saga.schedulers import HeftScheduler
except ImportError as e:  # pragma: no cover
    sys.exit(f"saga is not installed ({e}): pip install anrg.saga")

NODES = 8
LINK = 3.125e9  # 25 GbE, bytes/s


def instance(n):
    """The saga problem instance JSON (dict) of size n."""
    w = worl.Workload.layered(n, seed=1)
    speeds = [g["speed"] for g in worl.Cluster.parse(f"pai-mix:{NODES}").gpus()]
    tasks = [{"name": f"t{t['id']}", "cost": t["work"]} for t in w.tasks()]
    deps = [{"source": f"t{e['source']}", "target": f"t{e['target']}", "size": e["bytes"]} for e in w.edges()]
    nodes = [{"name": f"n{i}", "speed": s} for i, s in enumerate(speeds)]
    edges = [
        {"source": f"n{i}", "target": f"n{j}", "speed": (None if i == j else LINK)}
        for i in range(NODES)
        for j in range(NODES)
    ]
    return {
        "name": f"layered-{n}",
        "task_graph": {"tasks": tasks, "dependencies": deps},
        "network": {"nodes": nodes, "edges": edges},
    }


def saga_objects(inst):
    """saga's Network and TaskGraph of the instance."""
    net = inst["network"]
    network = Network.create(
        nodes=[(x["name"], x["speed"]) for x in net["nodes"]],
        edges=[(e["source"], e["target"], float("inf") if e["speed"] is None else e["speed"]) for e in net["edges"]],
    )
    tg = inst["task_graph"]
    graph = TaskGraph.create(
        tasks=[(t["name"], t["cost"]) for t in tg["tasks"]],
        dependencies=[(d["source"], d["target"], d["size"]) for d in tg["dependencies"]],
    )
    return network, graph


def timed(f, repeats=3):
    """(best wall time, last result) of up to `repeats` calls; one call if it took > 30 s."""
    out, res = float("inf"), None
    for _ in range(repeats):
        t = time.perf_counter()
        res = f()
        dt = time.perf_counter() - t
        out = min(out, dt)
        if dt > 30:
            break
    return out, res


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [100, 500, 1000, 2000]
    tmp = Path(tempfile.mkdtemp(prefix="worl-vs-saga-"))
    print(f"{'tasks':>6} {'worl HEFT':>11} {'saga HEFT':>11} {'saga/worl':>10} {'worl makespan':>14} {'saga makespan':>14}")
    for n in sizes:
        inst = instance(n)
        path = tmp / f"layered-{n}.json"
        path.write_text(json.dumps(inst))
        w = worl.Workload.from_saga(path)
        network, graph = saga_objects(inst)
        tw, s = timed(lambda: worl.schedule(w, None, "heft"))
        ts, ss = timed(lambda: HeftScheduler().schedule(network, graph))
        saga_makespan = ss.makespan
        print(f"{n:>6} {tw * 1e3:>9.2f}ms {ts * 1e3:>9.1f}ms {ts / tw:>9.0f}x {s.makespan:>14.4f} {saga_makespan:>14.4f}")


if __name__ == "__main__":
    main()
