#!/usr/bin/env python3
"""Runs a `worl compare` grid as N Ray tasks, one shard each, then merges them.

Usage (with `worl` on PATH on every Ray node and OUT_DIR on a shared file system):

    python scripts/grid/ray_grid.py N OUT_DIR -- WORKLOAD... --cluster C [compare options]

e.g.

    ray start --head --num-cpus 8
    python scripts/grid/ray_grid.py 8 grid-out -- data/*.json --cluster pai-mix:64 \\
        --schedulers heft,rtgs --seeds 10 --evaluations 20000

Shard K runs `worl compare ... --shard K/N --results OUT_DIR/results/shard-K.jsonl` as a
Ray task (1 CPU; a failed task is retried by Ray up to 3 times and resumes from its file);
when all are done, `worl merge` writes OUT_DIR/{summary.md,normalised.csv,runs.csv,
results.json,cd.svg}, the outputs of a single `worl compare`. Env: RAY_ADDRESS (default
`auto`, a running cluster; `local` starts one in this process), WORL (default `worl`;
give an absolute path where the Ray workers' PATH lacks it: workers started by `ray start`
keep that shell's PATH).
"""

import os
import subprocess
import sys

import ray


@ray.remote(num_cpus=1, max_retries=3)
def shard(worl, args, k, n, results):
    cmd = [worl, "compare", *args, "--shard", f"{k}/{n}", "--results", results]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"shard {k}/{n} failed: {done.stderr.strip()}")
    return done.stderr.strip()


def main(argv):
    if len(argv) < 4 or argv[2] != "--":
        sys.exit(__doc__)
    n, out, args = int(argv[0]), os.path.abspath(argv[1]), argv[3:]
    worl = os.environ.get("WORL", "worl")
    os.makedirs(os.path.join(out, "results"), exist_ok=True)
    address = os.environ.get("RAY_ADDRESS", "auto")
    ray.init(address=None if address == "local" else address)
    files = [os.path.join(out, "results", f"shard-{k}.jsonl") for k in range(n)]
    for line in ray.get([shard.remote(worl, args, k, n, files[k]) for k in range(n)]):
        print(line)
    subprocess.run([worl, "merge", *files, "--out", out], check=True)


if __name__ == "__main__":
    main(sys.argv[1:])
