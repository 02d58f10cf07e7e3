//! The reader and writer dispatch of `worl-io`: the format by the file name and content, a
//! byte-order mark skipped by every reader, names refused before anything is written, and
//! the errors that name the file.

use std::path::Path;
use worl_cluster::{Evaluator, GpuId, Plan, Policy};
use worl_dag::{Workload, WorkloadBuilder};
use worl_io::{
    FileError, ScheduleFile, ScheduleMeta, WORKLOAD_SAVE_EXTENSIONS, load_cluster, load_problem,
    load_schedule_file, load_workload, save_cluster, save_schedule, save_workload,
};

/// A(2) -> {B(3), C(4)} -> D(1), 3.125 GB per edge, each task needing `mem` GiB.
fn diamond_with(mem: Option<f64>) -> Workload {
    let mut b = WorkloadBuilder::new("diamond");
    let j = b.add_job("diamond").unwrap();
    let a = b.add_task(j, "A", 2.0, mem).unwrap();
    let bb = b.add_task(j, "B", 3.0, mem).unwrap();
    let c = b.add_task(j, "C", 4.0, mem).unwrap();
    let d = b.add_task(j, "D", 1.0, mem).unwrap();
    for (f, t) in [(a, bb), (a, c), (bb, d), (c, d)] {
        b.add_edge(f, t, 3.125e9).unwrap();
    }
    b.build().unwrap()
}

/// [`diamond_with`] 1 GiB per task.
fn diamond() -> Workload {
    diamond_with(Some(1.0))
}

fn native(w: &Workload) -> String {
    worl_dag::formats::native::to_string(w).unwrap()
}

/// `text` written to `dir/name` after a UTF-8 byte-order mark.
fn with_bom(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    let mut bytes = worl_dag::formats::BOM.to_vec();
    bytes.extend_from_slice(text.as_bytes());
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn every_listed_workload_ending_writes_and_reads_back() {
    assert_eq!(
        WORKLOAD_SAVE_EXTENSIONS,
        [
            ".json",
            ".wf.json",
            ".wfformat.json",
            ".dot",
            ".gv",
            ".saga.json"
        ]
    );
    let dir = tempfile::tempdir().unwrap();
    let w = diamond();
    for ext in WORKLOAD_SAVE_EXTENSIONS
        .iter()
        .filter(|e| **e != ".saga.json")
    {
        let path = dir.path().join(format!("d{ext}"));
        save_workload(&w, None, &path).unwrap();
        let back = load_workload(&path).unwrap();
        assert_eq!(back.workload.graph().n_tasks(), 4, "{ext}");
        assert_eq!(back.workload.graph().n_edges(), 4, "{ext}");
        assert!(back.network.is_none(), "{ext}");
        assert_eq!(back.path, path);
    }
    // worl's JSON is lossless
    let back = load_workload(dir.path().join("d.json")).unwrap();
    assert_eq!(native(&back.workload), native(&w));
}

#[test]
fn a_saga_instance_writes_with_its_network_and_reads_back_as_a_problem() {
    let dir = tempfile::tempdir().unwrap();
    let w = diamond_with(None); // saga has no memory model
    let path = dir.path().join("d.saga.json");
    let e = save_workload(&w, None, &path).unwrap_err();
    assert!(matches!(e, FileError::NeedsNetwork { .. }), "{e:?}");
    assert!(
        e.to_string()
            .ends_with("d.saga.json: a saga problem instance needs a network: give a cluster"),
        "{e}"
    );
    // saga's links have no latency: 25 GbE's 50 us is refused, and nothing is written
    let lan = load_cluster("2x1:V100-16GB:25GbE").unwrap();
    assert!(save_workload(&w, Some(&lan), &path).is_err());
    assert!(!path.exists());
    let mut free = load_cluster("2x1:V100-16GB:25GbE").unwrap();
    free.set_network(worl_cluster::Network::uniform(
        worl_cluster::Link::new(1e9, 0.0).unwrap(),
        worl_cluster::Link::new(3.125e9, 0.0).unwrap(),
    ))
    .unwrap();
    save_workload(&w, Some(&free), &path).unwrap();
    let back = load_workload(&path).unwrap();
    assert_eq!(back.network.as_ref().map(|c| c.n_gpus()), Some(2));
    // its network makes the problem: no cluster needed
    let p = load_problem(&path, None).unwrap();
    assert_eq!((p.n_tasks(), p.n_gpus()), (4, 2));
    // a workload without a network needs one
    let plain = dir.path().join("d.json");
    save_workload(&w, None, &plain).unwrap();
    let e = load_problem(&plain, None).unwrap_err();
    assert!(matches!(e, FileError::NoCluster { .. }), "{e:?}");
    assert!(e.to_string().contains("d.json: no cluster given"), "{e}");
    assert_eq!(
        load_problem(&plain, Some("2x2:A100-80GB"))
            .unwrap()
            .n_gpus(),
        4
    );
}

#[test]
fn names_no_writer_knows_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let w = diamond();
    let path = dir.path().join("d.xml");
    let e = save_workload(&w, None, &path).unwrap_err().to_string();
    assert!(
        e.ends_with(
            "d.xml: cannot write workloads as `.xml` (writable: .json, .wf.json, \
             .wfformat.json, .dot, .gv, .saga.json)"
        ),
        "{e}"
    );
    let c = load_cluster("2x1:V100-16GB").unwrap();
    let e = save_cluster(&c, dir.path().join("c"))
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("cannot write clusters as a name without extension (writable: .toml, .json)"),
        "{e}"
    );
    let p = load_problem(
        {
            save_workload(&w, None, dir.path().join("d.json")).unwrap();
            dir.path().join("d.json")
        },
        Some("2x1:V100-16GB"),
    )
    .unwrap();
    let plan = Plan::in_topo_order(p.graph(), vec![GpuId::new(0); 4]);
    let s = Evaluator::new(&p).schedule(&plan, Policy::Append).unwrap();
    let e = save_schedule(&p, &s, ScheduleMeta::default(), dir.path().join("s.yaml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with(
            "cannot write schedules as `.yaml` (writable: .json, .csv, .wf.json, .wfformat.json)"
        ),
        "{e}"
    );
    let written: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(written, ["d.json"]);
    // each schedule ending reads back as the same schedule
    for name in ["s.json", "s.csv", "s.wf.json", "S.WFFORMAT.JSON"] {
        let path = dir.path().join(name);
        save_schedule(&p, &s, ScheduleMeta::default(), &path).unwrap();
        let back = load_schedule_file(&path).unwrap().to_schedule(&p).unwrap();
        assert_eq!(back.makespan(), s.makespan(), "{name}");
    }
}

#[test]
fn clusters_save_by_name_and_read_back_equal() {
    let dir = tempfile::tempdir().unwrap();
    let c = load_cluster("2x4:A100-80GB:100GbE").unwrap();
    for name in ["c.toml", "c.json"] {
        let path = dir.path().join(name);
        save_cluster(&c, &path).unwrap();
        let arg = path.to_str().unwrap();
        assert_eq!(load_cluster(arg).unwrap(), c, "{name}");
    }
}

#[test]
fn every_reader_skips_a_byte_order_mark() {
    let dir = tempfile::tempdir().unwrap();
    let w = diamond();
    // workload JSON (detected by content past the mark), DOT and WfFormat
    for (name, text) in [
        ("w.json", native(&w)),
        ("w.dot", worl_dag::formats::dot::to_dot(&w)),
        (
            "w.wf.json",
            worl_dag::formats::wfcommons::to_string(&w, None).unwrap(),
        ),
    ] {
        let p = with_bom(dir.path(), name, &text);
        let back = load_workload(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back.workload.graph().n_tasks(), 4, "{name}");
    }
    // a saga instance
    let saga = r#"{"name": "pair", "task_graph": {"tasks": [{"name": "a", "cost": 2.0}],
        "dependencies": []}, "network": {"nodes": [{"name": "n0", "speed": 1.0}],
        "edges": [{"source": "n0", "target": "n0", "speed": null}]}}"#;
    let p = with_bom(dir.path(), "pair.json", saga);
    assert!(load_workload(&p).unwrap().network.is_some());
    assert_eq!(worl_io::saga::load(&p).unwrap().1.n_gpus(), 1);
    // a cluster file, TOML and JSON
    let c = load_cluster("2x1:V100-16GB").unwrap();
    for (name, text) in [
        ("c.toml", c.to_compact_toml_string().unwrap()),
        ("c.json", c.to_compact_json_string()),
    ] {
        let p = with_bom(dir.path(), name, &text);
        assert_eq!(load_cluster(p.to_str().unwrap()).unwrap(), c, "{name}");
    }
    // a schedule file
    let p = load_problem(
        with_bom(dir.path(), "d.json", &native(&w)),
        Some("2x1:V100-16GB"),
    )
    .unwrap();
    let plan = Plan::in_topo_order(p.graph(), vec![GpuId::new(1); 4]);
    let s = Evaluator::new(&p).schedule(&plan, Policy::Append).unwrap();
    let csv = ScheduleFile::new(&p, &s, ScheduleMeta::default())
        .unwrap()
        .to_csv_string();
    let f = with_bom(dir.path(), "s.csv", &csv);
    assert_eq!(load_schedule_file(&f).unwrap().to_schedule(&p).unwrap(), s);
}

#[test]
fn errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    // a workload without tasks: the reader's error does not name the file, the dispatch does
    let empty = dir.path().join("empty.stg");
    std::fs::write(&empty, "0\n").unwrap();
    let e = load_workload(&empty).unwrap_err().to_string();
    assert!(e.contains("empty.stg"), "{e}");
    let e = load_workload(dir.path().join("missing.json"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing.json"), "{e}");
    let e = load_cluster("nowhere.toml").unwrap_err().to_string();
    assert!(e.starts_with("cluster `nowhere.toml`: no such file"), "{e}");
}

#[test]
fn a_json_workload_that_is_not_utf8_is_a_parse_error_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.json");
    // the third line holds a byte that is not UTF-8
    std::fs::write(
        &p,
        b"{\n  \"format\": \"worl-workload\",\n  \"name\": \"x\xff\"\n}\n",
    )
    .unwrap();
    match load_workload(&p).unwrap_err() {
        FileError::Workload(worl_dag::DagError::Parse {
            file,
            line,
            message,
        }) => {
            assert!(file.ends_with("bad.json"), "{file}");
            assert_eq!(line, 3);
            assert_eq!(message, "invalid UTF-8");
        }
        e => panic!("expected a parse error at line 3, got {e:?}"),
    }
}

#[test]
fn a_json_workload_is_read_as_native_or_wfformat_by_its_format_key() {
    let dir = tempfile::tempdir().unwrap();
    let w = diamond();
    let native_path = dir.path().join("n.json");
    std::fs::write(&native_path, native(&w)).unwrap();
    let wf_path = dir.path().join("wf.json");
    std::fs::write(
        &wf_path,
        worl_dag::formats::wfcommons::to_string(&w, None).unwrap(),
    )
    .unwrap();
    let n = load_workload(&native_path).unwrap();
    let f = load_workload(&wf_path).unwrap();
    // the same choice as the dag crate's dispatch by path
    for (loaded, path) in [(&n, &native_path), (&f, &wf_path)] {
        let (by_path, report) = worl_dag::formats::load_path(path).unwrap();
        assert_eq!(loaded.report.format, report.format, "{}", path.display());
        assert_eq!(loaded.workload.graph().n_edges(), by_path.graph().n_edges());
    }
    assert_ne!(n.report.format, f.report.format);
    assert_eq!(n.workload.graph().n_tasks(), 4);
    assert_eq!(f.workload.graph().n_tasks(), 4);
}
