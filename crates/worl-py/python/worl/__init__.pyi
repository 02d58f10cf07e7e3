"""Type stubs of the ``worl`` package (the native module ``worl._worl``, re-exported)."""

import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

_Path = Union[str, "os.PathLike[str]"]
_ClusterArg = Union["Cluster", str, "os.PathLike[str]"]
_OptionValue = Union[int, float, str, bool]

__version__: str
HAS_WORL_RTGS: bool
"""True when the wheel was built with the ``ddqn`` feature (the ``worl-rtgs`` scheduler)."""
WORKLOAD_SAVE_EXTENSIONS: Tuple[str, ...]
"""The file-name endings ``Workload.save`` writes: ``.json``, ``.wf.json``,
``.wfformat.json``, ``.dot``, ``.gv``, ``.saga.json``."""
SCHEDULE_SAVE_EXTENSIONS: Tuple[str, ...]
"""The file-name endings ``Schedule.save`` writes: ``.json``, ``.csv``, ``.wf.json``,
``.wfformat.json``."""
SCHEDULE_ROW_KEYS: Tuple[str, ...]
"""The keys of a schedule row dict (``validate``), the CSV schedule file's columns:
``task_id``, ``task``, ``job``, ``gpu_id``, ``machine``, ``gpu_index``, ``model``, ``start``,
``finish``, ``gpus`` (last, optional: a gang task's GPU ids, lead first; the CSV column is
written only when some task runs on several GPUs, and a row has it only for such a task)."""
SCHEDULE_ROW_ALIASES: Dict[str, str]
"""Other names of row keys, as the schedule file readers take them: ``gpu`` for ``gpu_id``."""

class WorlError(Exception):
    """Base class of worl's errors; the message is the Rust library's, naming file, line and item."""

class LoadError(WorlError):
    """A workload, cluster or schedule file (or cluster description) that cannot be read or written."""

class ScheduleError(WorlError):
    """A scheduler that cannot be built (unknown name, bad option) or that failed."""

class WorkloadError(LoadError):
    """A workload that cannot be read, built or written (a malformed file, a cycle, a bad task or edge)."""

class ClusterError(LoadError):
    """A cluster, problem or schedule the cost model rejects (a malformed cluster file, a task that fits no GPU)."""

class FileError(LoadError):
    """A file that cannot be read or written (missing, unreadable, a directory)."""

class SimulationError(ScheduleError):
    """A simulation that cannot be set up (a bad arrival, noise, contention or failure spec) or whose run failed."""

class ArgumentError(WorlError):
    """An argument out of its range (seeds 0, a negative time)."""

class Workload:
    """A DAG workload: jobs of tasks (work in reference GPU-seconds, optional memory in GiB)
    and dependencies (bytes). Immutable."""

    @staticmethod
    def load(path: _Path) -> "Workload":
        """Read any format worl reads (Alibaba v2018 CSV, WfCommons JSON, Pegasus DAX, STG,
        DOT, worl JSON, saga problem instance). Raises LoadError."""
    @staticmethod
    def from_saga(path: _Path) -> "Workload":
        """Read a saga / dag-bench problem instance; its network becomes ``network``."""
    @staticmethod
    def from_networkx(
        graph: Any,
        work: str = "work",
        memory: Optional[str] = "memory",
        bytes: Optional[str] = "bytes",
        job: str = "job",
        name: str = "name",
        gpus: Optional[str] = "gpus",
        gang: Optional[str] = "gang",
    ) -> "Workload":
        """A workload from a ``networkx.DiGraph`` (node attributes ``work``, ``memory``,
        ``job``, ``name``, and for a gang task ``gpus`` (int, default 1) and ``gang`` (dict of
        ``span``, ``efficiency``, ``sync_bytes``, ``sync_steps``); edge attribute ``bytes``).
        Raises ValueError naming the node or edge for a missing or non-numeric attribute,
        TypeError for an undirected graph, LoadError for what worl refuses (cycle, negative
        work, repeated name, 0 GPUs, unknown span, efficiency outside (0, 1])."""
    @staticmethod
    def layered(n_tasks: int, seed: int = 1) -> "Workload":
        """A seeded random layered DAG of ``n_tasks`` tasks."""
    def save(self, path: _Path, cluster: Optional[_ClusterArg] = None) -> None:
        """Write by file name (``WORKLOAD_SAVE_EXTENSIONS``): ``.json`` (worl JSON),
        ``.wf.json`` / ``.wfformat.json`` (WfCommons WfFormat 1.5), ``.dot`` / ``.gv``
        (Graphviz), ``.saga.json`` (a saga problem instance whose network is ``cluster``,
        default the workload's ``network``). ``Workload.load`` reads each back. Raises
        LoadError for another extension (listing these), a saga file without network or
        with link latencies, or an unwritable path."""
    def to_json(self) -> str:
        """worl's workload JSON text."""
    def to_networkx(
        self,
        work: str = "work",
        memory: str = "memory",
        bytes: str = "bytes",
        job: str = "job",
        name: str = "name",
        gpus: str = "gpus",
        gang: str = "gang",
    ) -> Any:
        """A ``networkx.DiGraph`` (node = task id) that ``from_networkx`` reads back equal
        (``gpus`` and ``gang`` only on gang tasks)."""
    def tasks(self) -> List[Dict[str, Any]]:
        """Dicts ``id``, ``name``, ``job``, ``work``, ``memory``, ``gpus`` in id order."""
    def edges(self) -> List[Dict[str, Any]]:
        """Dicts ``source``, ``target`` (task ids), ``bytes``."""
    @property
    def name(self) -> str: ...
    @property
    def n_tasks(self) -> int: ...
    @property
    def n_edges(self) -> int: ...
    @property
    def n_jobs(self) -> int: ...
    @property
    def jobs(self) -> List[str]: ...
    @property
    def releases(self) -> List[float]:
        """The jobs' release (arrival) times, s, in the order of ``jobs``; 0 for a batch
        workload. ``simulate(arrivals="trace")`` releases each job then."""
    @property
    def total_work(self) -> float:
        """Total work, reference GPU-seconds."""
    @property
    def network(self) -> Optional["Cluster"]:
        """The network of a saga problem instance, else None."""
    @property
    def notes(self) -> str:
        """The loader's notes (dropped rows, repairs), empty if none."""
    def __len__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...

class Cluster:
    """A GPU cluster: machines of GPUs and the network between them. Immutable."""

    @staticmethod
    def parse(description: str) -> "Cluster":
        """A cluster file path or a description as ``worl --cluster`` takes it:
        ``pai-mix:M[:SEED]``, ``homogeneous:M:MODEL``, ``dgx:NODES:MODEL``,
        ``paper-pool:M:MBIT[:SEED]``, ``MxG:MODEL[:INTER[:INTRA]]``."""
    @staticmethod
    def load(path: _Path) -> "Cluster":
        """Read a TOML or JSON cluster file (compact or full form)."""
    @staticmethod
    def from_spec(
        machines: int,
        gpus_per_machine: int,
        model: str,
        inter: Optional[str] = None,
        intra: Optional[str] = None,
        name: Optional[str] = None,
    ) -> "Cluster":
        """``machines`` x ``gpus_per_machine`` GPUs of catalog model ``model`` with named
        links (see ``gpu_models()`` and ``links()``)."""
    def to_toml(self) -> str: ...
    def to_json(self) -> str: ...
    def save(self, path: _Path) -> None:
        """Write the cluster file by extension (``.toml`` or ``.json``)."""
    def gpus(self) -> List[Dict[str, Any]]:
        """Dicts ``id``, ``machine``, ``model``, ``speed`` (V100 = 1.0), ``memory`` (GiB)."""
    @property
    def name(self) -> str: ...
    @property
    def n_gpus(self) -> int: ...
    @property
    def n_machines(self) -> int: ...
    @property
    def machines(self) -> List[str]: ...
    def __eq__(self, other: object) -> bool: ...

class Schedule:
    """Where (GPU) and when (start, finish in s) every task runs, and who made it."""

    @property
    def makespan(self) -> float: ...
    @property
    def lower_bound(self) -> float: ...
    @property
    def scheduler(self) -> str: ...
    @property
    def spec(self) -> str: ...
    @property
    def seed(self) -> Optional[int]: ...
    @property
    def wall_time_s(self) -> float: ...
    @property
    def n_tasks(self) -> int: ...
    def validate(self) -> List[str]:
        """Every violated constraint, one line each; empty when valid."""
    def rows(self) -> List[Dict[str, Any]]:
        """Per task: ``task_id``, ``task``, ``job``, ``gpu_id``, ``machine``, ``gpu_index``,
        ``model``, ``start``, ``finish``, and ``gpus`` (GPU ids, lead first) for a gang task
        run on several GPUs only."""
    def to_pandas(self) -> Any:
        """The rows as a pandas DataFrame (ImportError without pandas)."""
    def to_json(self) -> str: ...
    def write_json(self, path: _Path) -> None: ...
    def write_csv(self, path: _Path) -> None: ...
    def save(self, path: _Path) -> None:
        """Write by file name (``SCHEDULE_SAVE_EXTENSIONS``): ``.json`` or ``.csv`` (schedule
        file, as ``worl schedule --out``), ``.wf.json`` / ``.wfformat.json`` (WfCommons
        WfFormat with an ``execution`` section). Raises LoadError for another extension
        (listing these) or an unwritable path."""

class Comparison:
    """The outcome of ``compare``."""

    @property
    def runs(self) -> List[Dict[str, Any]]: ...
    @property
    def table(self) -> List[Dict[str, Any]]: ...
    @property
    def schedulers(self) -> List[str]: ...
    @property
    def baseline(self) -> Optional[str]: ...
    @property
    def markdown(self) -> str: ...
    def to_pandas(self) -> Any: ...
    def runs_to_pandas(self) -> Any: ...

class Simulation:
    """The outcome of ``simulate``."""

    @property
    def runs(self) -> List[Dict[str, Any]]:
        """One dict per run (problem, seed, policy order): ``problem``, ``policy``, ``seed``,
        ``planned_makespan`` (s; None for online policies), then every simulation measure:
        ``makespan``, ``mean_jct``, ``p50_jct``, ``p99_jct`` (s), ``mean_slowdown``,
        ``mean_wait`` (s), ``utilisation`` (0..1), ``load_imbalance``, ``bytes_moved``
        (bytes), ``contention_delay``, ``lost_time`` (s), ``replans``,
        ``decision_latency_p50``, ``decision_latency_p99`` (wall-clock s)."""
    @property
    def policies(self) -> List[str]:
        """The policies' labels, in the order run."""
    @property
    def markdown(self) -> str:
        """A row per policy, each measure the mean over workloads and seeds."""
    def jcts(self, policy: str) -> List[float]:
        """Job completion times (s, job order) of ``policy`` on the first workload with seed
        1. Raises ValueError for a policy that was not simulated."""
    def to_pandas(self) -> Any:
        """The runs as a pandas DataFrame (ImportError without pandas)."""

def schedule(
    workload: Workload,
    cluster: Optional[_ClusterArg] = None,
    scheduler: str = "heft",
    seed: int = 0,
    time: Optional[float] = None,
    max_evaluations: Optional[int] = None,
    **options: _OptionValue,
) -> Schedule:
    """Schedule ``workload`` on ``cluster`` with the scheduler spec ``scheduler``; keyword
    options join the spec. Raises ScheduleError (unknown scheduler lists the names) or
    LoadError."""

def validate(
    workload: Workload,
    cluster: Optional[_ClusterArg],
    schedule: Union[Schedule, _Path, Iterable[Mapping[str, Any]]],
) -> List[str]:
    """Every violation of a schedule (a Schedule, a schedule file, or row dicts whose keys
    are those of the CSV schedule file, ``SCHEDULE_ROW_KEYS`` and ``SCHEDULE_ROW_ALIASES``:
    ``task`` (name or int id), ``job``, ``gpu_id`` or ``gpu`` (or ``machine`` and
    ``gpu_index``), ``start``, ``finish``, and ``gpus`` for a gang task's GPU set), one line
    each; empty when valid. Raises
    LoadError for a row with an unknown key or one key given twice, or one that does not
    belong to the problem, naming the row."""

def compare(
    workloads: Sequence[Union[Workload, _Path]],
    cluster: Union[Cluster, str],
    schedulers: Optional[Sequence[str]] = None,
    seeds: int = 3,
    time: Optional[float] = None,
    parallel: bool = False,
) -> Comparison:
    """Run several schedulers on several workloads, as ``worl compare`` does."""

def simulate(
    workloads: Sequence[Union[Workload, _Path]],
    cluster: Union[Cluster, str],
    policies: Optional[Union[str, Sequence[str]]] = None,
    arrivals: str = "trace",
    noise: str = "none",
    contention: str = "fair",
    failures: str = "none",
    seeds: int = 3,
    time: Optional[float] = None,
    max_evaluations: Optional[int] = None,
) -> Simulation:
    """Execute workloads on a cluster with the discrete-event simulator, as ``worl simulate``
    does. ``policies``: specs (``plan:SCHEDULER``, ``replan:SCHEDULER``, ``eft``,
    ``least-connection``, ``round-robin``) as a list or one comma-separated string; None:
    ``plan:heft,plan:ils,replan:heft,eft,least-connection,round-robin``. ``arrivals``:
    ``trace``, ``batch``, ``poisson:R`` (jobs per hour); ``noise``: ``none``,
    ``lognormal:CV``, ``uniform:LO..HI``; ``contention``: ``fair``, ``none``; ``failures``:
    ``none``, ``mtbf:HOURS[:REPAIR_S]``, scripted outages
    ``outages:GPU@FROM+DURATION[;GPU@FROM+DURATION...]`` (GPU index such as ``0`` or
    ``g0``, times in seconds) or ``script:FILE`` (a CSV file with the header
    ``gpu,from,to``); seeds 1..=``seeds``; ``time`` (s) and
    ``max_evaluations`` bound each planning call. Raises ScheduleError for a bad spec
    (naming it) or a failed run, LoadError for bad inputs."""

def schedulers() -> Dict[str, str]:
    """Registered scheduler names -> one-line descriptions."""

def scheduler_options(name: str) -> List[Dict[str, str]]:
    """The declared options of scheduler ``name``: dicts ``key``, ``values``, ``default``
    (a spec value, or a phrase in parentheses), ``doc``; its own options, then ``time`` and
    ``evaluations``. Raises ScheduleError for an unregistered name."""

def gpu_models() -> List[Dict[str, Any]]:
    """Catalog GPU models: ``name``, ``speed``, ``memory``."""

def links() -> List[Dict[str, Any]]:
    """Named links: ``name``, ``bandwidth`` (B/s), ``latency`` (s)."""
