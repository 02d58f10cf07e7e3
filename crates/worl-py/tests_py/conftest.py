"""Shared fixtures of the worl Python tests."""

import os
from pathlib import Path

import pytest

import worl

REPO = Path(__file__).resolve().parents[3]


def data_dir() -> Path:
    """$WORL_DATA_DIR, else ../shared/data next to the repository."""
    return Path(os.environ.get("WORL_DATA_DIR", REPO.parent / "shared" / "data"))


@pytest.fixture
def two_v100() -> "worl.Cluster":
    """Two V100s (speed 1.0) on two machines over 25 GbE: 3.125e9 B/s, 50 us latency."""
    return worl.Cluster.parse("2x1:V100-16GB:25GbE")


@pytest.fixture
def diamond_nx():
    """A -> {B, C} -> D, work 2, 3, 4, 1 reference GPU-seconds, 3.125e9 bytes per edge."""
    nx = pytest.importorskip("networkx")
    g = nx.DiGraph(name="diamond")
    for n, w in [("A", 2.0), ("B", 3.0), ("C", 4.0), ("D", 1.0)]:
        g.add_node(n, work=w, memory=1.0)
    for u, v in [("A", "B"), ("A", "C"), ("B", "D"), ("C", "D")]:
        g.add_edge(u, v, bytes=3.125e9)
    return g
