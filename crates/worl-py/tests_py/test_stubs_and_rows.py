"""The type stubs agree with the runtime (save formats, row keys), and schedule row dicts
follow the CSV schedule reader's rule for column names (issue 20)."""

import ast
import re
from pathlib import Path

import pytest

import worl

STUB = Path(worl.__file__).with_name("__init__.pyi")
if not STUB.exists():  # running against the source tree
    STUB = Path(__file__).resolve().parents[1] / "python" / "worl" / "__init__.pyi"


def stub_tree() -> ast.Module:
    return ast.parse(STUB.read_text())


def method_doc(cls: str, method: str) -> str:
    for node in stub_tree().body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for f in node.body:
                if isinstance(f, ast.FunctionDef) and f.name == method:
                    doc = ast.get_docstring(f)
                    assert doc, f"{cls}.{method} has no docstring in {STUB}"
                    return doc
    raise AssertionError(f"{cls}.{method} not in {STUB}")


def constant_doc(name: str) -> str:
    """The docstring that follows the annotated module constant `name` in the stub."""
    body = stub_tree().body
    for i, node in enumerate(body):
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == name:
            doc = body[i + 1]
            assert isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant), name
            return doc.value.value
    raise AssertionError(f"{name} not in {STUB}")


def extensions(doc: str) -> list:
    """The ``.ext`` literals of a docstring, in order, without repeats."""
    out = []
    for e in re.findall(r"``(\.[a-z][a-z.]*)``", doc):
        if e not in out:
            out.append(e)
    return out


def literals(doc: str) -> list:
    return re.findall(r"``([a-z_]+)``", doc)


def test_stub_lists_every_workload_save_format_of_the_runtime():
    runtime = list(worl.WORKLOAD_SAVE_EXTENSIONS)
    assert runtime == [".json", ".wf.json", ".wfformat.json", ".dot", ".gv", ".saga.json"]
    assert extensions(constant_doc("WORKLOAD_SAVE_EXTENSIONS")) == runtime
    assert sorted(extensions(method_doc("Workload", "save"))) == sorted(runtime)


def test_stub_lists_every_schedule_save_format_of_the_runtime():
    runtime = list(worl.SCHEDULE_SAVE_EXTENSIONS)
    assert runtime == [".json", ".csv", ".wf.json", ".wfformat.json"]
    assert extensions(constant_doc("SCHEDULE_SAVE_EXTENSIONS")) == runtime
    assert sorted(extensions(method_doc("Schedule", "save"))) == sorted(runtime)


def test_stub_lists_the_schedule_row_keys_of_the_runtime():
    keys_doc = constant_doc("SCHEDULE_ROW_KEYS").split("columns:")[1]
    assert literals(keys_doc) == list(worl.SCHEDULE_ROW_KEYS)
    aliases = literals(constant_doc("SCHEDULE_ROW_ALIASES"))
    assert dict(zip(aliases[::2], aliases[1::2])) == worl.SCHEDULE_ROW_ALIASES == {"gpu": "gpu_id"}


def test_every_listed_workload_format_writes_and_reads_back(tmp_path):
    w = worl.Workload.layered(30, seed=3)
    # saga links have no latency: a cluster whose links are free of it
    net = worl.Cluster.load(saga_network(tmp_path))
    for ext in worl.WORKLOAD_SAVE_EXTENSIONS:
        path = tmp_path / f"w{ext}"
        w.save(path, cluster=net if ext == ".saga.json" else None)
        back = worl.Workload.load(path)
        assert (back.n_tasks, back.n_edges) == (w.n_tasks, w.n_edges), ext
    with pytest.raises(worl.LoadError) as e:
        w.save(tmp_path / "w.xml")
    assert str(e.value).endswith(
        f"cannot write workloads as `.xml` (writable: {', '.join(worl.WORKLOAD_SAVE_EXTENSIONS)})"
    )


def saga_network(tmp_path: Path) -> Path:
    """A two-node cluster file with latency-free links (what a saga instance can hold)."""
    path = tmp_path / "net.toml"
    path.write_text(
        'name = "saga-net"\nmachines = ["n0", "n1"]\n\n'
        "[network]\nkind = \"uniform\"\n"
        "intra = { bandwidth = 1e12, latency = 0.0 }\n"
        "inter = { bandwidth = 1e9, latency = 0.0 }\n\n"
        '[[gpus]]\nmodel = "V100-16GB"\nmachine = 0\n\n'
        '[[gpus]]\nmodel = "V100-16GB"\nmachine = 1\n'
    )
    return path


def test_every_listed_schedule_format_writes(tmp_path, diamond_nx, two_v100):
    w = worl.Workload.from_networkx(diamond_nx)
    s = worl.schedule(w, two_v100, "heft")
    for ext in worl.SCHEDULE_SAVE_EXTENSIONS:
        path = tmp_path / f"s{ext}"
        s.save(path)
        assert path.stat().st_size > 0, ext
        if ext in (".json", ".csv"):
            assert worl.validate(w, two_v100, path) == [], ext
    with pytest.raises(worl.LoadError) as e:
        s.save(tmp_path / "s.yaml")
    assert str(e.value).endswith(
        f"cannot write schedules as `.yaml` (writable: {', '.join(worl.SCHEDULE_SAVE_EXTENSIONS)})"
    )


def test_row_keys_are_the_csv_columns(tmp_path, diamond_nx, two_v100):
    # the CSV columns, then `gpus`, the column a schedule with a gang task adds
    assert worl.SCHEDULE_ROW_KEYS[-1] == "gpus"
    w = worl.Workload.from_networkx(diamond_nx)
    s = worl.schedule(w, two_v100, "heft")
    path = tmp_path / "s.csv"
    s.save(path)
    header = next(l for l in path.read_text().splitlines() if not l.startswith("#"))
    assert header.split(",") == list(worl.SCHEDULE_ROW_KEYS[:-1])
    assert set(s.rows()[0]) == set(worl.SCHEDULE_ROW_KEYS[:-1])
    # with a gang task: every column, and the gang's row has every key
    diamond_nx.nodes["C"]["gpus"] = 2
    g = worl.Workload.from_networkx(diamond_nx)
    s = worl.schedule(g, "1x2:V100-16GB:25GbE", "heft")
    s.save(path)
    header = next(l for l in path.read_text().splitlines() if not l.startswith("#"))
    assert header.split(",") == list(worl.SCHEDULE_ROW_KEYS)
    rows = {r["task"]: r for r in s.rows()}
    assert set(rows["C"]) == set(worl.SCHEDULE_ROW_KEYS)
    assert set(rows["A"]) == set(worl.SCHEDULE_ROW_KEYS[:-1])
    assert worl.validate(g, "1x2:V100-16GB:25GbE", path) == []


def test_row_keys_follow_the_csv_readers_rule(tmp_path, diamond_nx, two_v100):
    w = worl.Workload.from_networkx(diamond_nx)
    s = worl.schedule(w, two_v100, "heft")
    rows = [{"task": r["task"], "gpu_id": r["gpu_id"], "start": r["start"], "finish": r["finish"]}
            for r in s.rows()]
    assert worl.validate(w, two_v100, rows) == []
    # `gpu` is another name of `gpu_id`, in rows as in a CSV file's column row
    alias = [dict(r) for r in rows]
    alias[1]["gpu"] = alias[1].pop("gpu_id")
    assert worl.validate(w, two_v100, alias) == []
    path = tmp_path / "s.csv"
    s.save(path)
    text = path.read_text().replace(",gpu_id,", ",gpu,", 1)
    assert ",gpu," in text
    path.write_text(text)
    assert worl.validate(w, two_v100, path) == []
    # both names at once: refused by both
    both = [dict(r) for r in rows]
    both[2]["gpu"] = both[2]["gpu_id"]
    with pytest.raises(worl.LoadError, match=r"^row 2: `gpu_id` given twice"):
        worl.validate(w, two_v100, both)
    path.write_text(path.read_text().replace(",gpu,", ",gpu,gpu_id,", 1))
    with pytest.raises(worl.LoadError):
        worl.validate(w, two_v100, path)
    # an unknown key names the row and the known keys, like an unknown CSV column
    bad = [dict(r) for r in rows]
    bad[0]["Start"] = bad[0].pop("start")
    with pytest.raises(worl.LoadError, match=r"^row 0: unknown key `Start` \(known: task_id, task, "
                       r"job, gpu_id, machine, gpu_index, model, start, finish, gpus; gpu for gpu_id\)$"):
        worl.validate(w, two_v100, bad)
    # an int task and task_id at once
    twice = [dict(r) for r in rows]
    twice[0]["task_id"] = 0
    twice[0]["task"] = 0
    with pytest.raises(worl.LoadError, match=r"^row 0: `task_id` given twice"):
        worl.validate(w, two_v100, twice)
