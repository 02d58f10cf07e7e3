"""worl: schedule DAG-structured workloads on heterogeneous GPU clusters.

A Rust core (HEFT, CPOP, PEFT, Min-Min, RTGS, WORL-RTGS, WOA/PSO/GA, ...) with a Python
API: load a workload (``Workload.load``, ``Workload.from_networkx``), describe a cluster
(``Cluster.parse("4x8:A100-80GB:100GbE")``), schedule (``schedule``), check any schedule
(``validate``), compare schedulers (``compare``) and simulate execution under arrivals,
noise, contention and failures (``simulate``). See ``docs/python.md``.
"""

from ._worl import (
    HAS_WORL_RTGS,
    SCHEDULE_ROW_ALIASES,
    SCHEDULE_ROW_KEYS,
    SCHEDULE_SAVE_EXTENSIONS,
    WORKLOAD_SAVE_EXTENSIONS,
    ArgumentError,
    Cluster,
    ClusterError,
    Comparison,
    FileError,
    LoadError,
    Schedule,
    ScheduleError,
    Simulation,
    SimulationError,
    Workload,
    WorkloadError,
    WorlError,
    __version__,
    compare,
    gpu_models,
    links,
    schedule,
    scheduler_options,
    schedulers,
    simulate,
    validate,
)

__all__ = [
    "HAS_WORL_RTGS",
    "SCHEDULE_ROW_ALIASES",
    "SCHEDULE_ROW_KEYS",
    "SCHEDULE_SAVE_EXTENSIONS",
    "WORKLOAD_SAVE_EXTENSIONS",
    "ArgumentError",
    "Cluster",
    "ClusterError",
    "Comparison",
    "FileError",
    "LoadError",
    "Schedule",
    "ScheduleError",
    "Simulation",
    "SimulationError",
    "Workload",
    "WorkloadError",
    "WorlError",
    "__version__",
    "compare",
    "gpu_models",
    "links",
    "schedule",
    "scheduler_options",
    "schedulers",
    "simulate",
    "validate",
]
