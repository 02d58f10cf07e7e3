"""Python overhead of worl: HEFT on an already-loaded workload, and loading a file, timed
through the Python API and, in the same process, through the same Rust code without Python
(`worl._worl._rust_timing`, the function `examples/heft_timing.rs` also calls).

    python bench/overhead.py [N_TASKS] [CLUSTER] [REPEATS]

Defaults: 10,000 tasks (seeded layered DAG, written as worl JSON to a temporary file),
`pai-mix:64`, 7 repeats; best-of-repeats wall times.
"""

import sys
import tempfile
import time
from pathlib import Path

import worl
from worl import _worl


def best(f, repeats):
    """The smallest wall time of `repeats` calls of `f`, s."""
    out = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        out = min(out, time.perf_counter() - t)
    return out


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    cluster = worl.Cluster.parse(sys.argv[2] if len(sys.argv) > 2 else "pai-mix:64")
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    path = Path(tempfile.mkdtemp(prefix="worl-bench-")) / f"layered-{n}.json"
    worl.Workload.layered(n, seed=1).save(path)
    w = worl.Workload.load(path)
    print(f"{w} on {cluster}, best of {repeats}")

    py_load = best(lambda: worl.Workload.load(path), repeats)
    py_heft = best(lambda: worl.schedule(w, cluster, "heft"), repeats)
    rs_load, rs_heft = _worl._rust_timing(path, cluster, repeats)
    print(f"{'':22}{'Python':>10}{'Rust':>10}{'overhead':>10}")
    for what, p, r in [("load (worl JSON)", py_load, rs_load), ("problem + HEFT", py_heft, rs_heft)]:
        print(f"{what:22}{p * 1e3:>8.2f}ms{r * 1e3:>8.2f}ms{(p / r - 1) * 100:>9.1f}%")


if __name__ == "__main__":
    main()
