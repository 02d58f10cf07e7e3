//! saga / dag-bench problem instances: the mapping to worl's cost model checked against hand
//! computations, the round trip, and the exact error messages.
//!
//! Fixture `fixtures/saga/diamond3.json` (hand-written in saga's `ProblemInstance` schema):
//! tasks A 8, B 4, C 12, D 8 (cost); dependencies A->B 4, A->C 8, B->D 8, C->D 4 (size);
//! nodes n0 1, n1 2, n2 4 (speed); links n0-n1 1, n0-n2 2 (listed one way only), n1-n2 4;
//! self links n0 5e8, n1 null (infinite), n2 absent.

use std::path::PathBuf;
use std::sync::Arc;
use worl_cluster::{
    ClusterBuilder, ClusterError, ClusterSpec, GpuId, GpuModel, Link, Network, Problem,
};
use worl_dag::{TaskId, WorkloadBuilder};
use worl_io::saga;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/saga/diamond3.json")
}

fn g(i: usize) -> GpuId {
    GpuId::new(i)
}

fn t(i: usize) -> TaskId {
    TaskId::new(i)
}

/// The error message of reading `text` as file `bad.json`.
fn read_err(text: &str) -> String {
    match saga::read(text.as_bytes(), "bad.json") {
        Ok(_) => panic!("`{text}` was read"),
        Err(e) => e.to_string(),
    }
}

/// An instance with the given task graph and network JSON bodies.
fn instance(task_graph: &str, network: &str) -> String {
    format!(r#"{{"name": "x", "task_graph": {task_graph}, "network": {network}}}"#)
}

const TWO_TASKS: &str = r#"{"tasks": [{"name": "a", "cost": 1}, {"name": "b", "cost": 2}],
    "dependencies": [{"source": "a", "target": "b", "size": 3}]}"#;
const TWO_NODES: &str = r#"{"nodes": [{"name": "n0", "speed": 1}, {"name": "n1", "speed": 2}],
    "edges": [{"source": "n0", "target": "n1", "speed": 3}]}"#;

#[test]
fn the_fixture_maps_to_one_job_and_one_gpu_per_node() {
    let (w, c) = saga::load(fixture()).unwrap();
    assert_eq!(w.name(), "diamond3");
    assert_eq!(w.n_jobs(), 1);
    assert_eq!(w.jobs()[0].name, "diamond3");
    let g_ = w.graph();
    let tasks: Vec<(&str, f64, Option<f64>)> = g_
        .tasks()
        .map(|(_, t)| (t.name.as_str(), t.work, t.mem_gib))
        .collect();
    assert_eq!(
        tasks,
        vec![
            ("A", 8.0, None),
            ("B", 4.0, None),
            ("C", 12.0, None),
            ("D", 8.0, None)
        ]
    );
    let edges: Vec<(usize, usize, f64)> = g_
        .edges()
        .map(|e| (e.from.index(), e.to.index(), e.bytes))
        .collect();
    assert_eq!(
        edges,
        vec![(0, 1, 4.0), (0, 2, 8.0), (1, 3, 8.0), (2, 3, 4.0)]
    );

    assert_eq!(c.name(), "diamond3");
    assert_eq!(c.machines(), ["n0", "n1", "n2"]);
    assert_eq!(c.n_gpus(), 3);
    let speeds: Vec<f64> = c.gpus().iter().map(|g| g.speed).collect();
    assert_eq!(speeds, vec![1.0, 2.0, 4.0]);
    for (i, gpu) in c.gpus().iter().enumerate() {
        assert_eq!(gpu.machine.index(), i);
        assert_eq!(gpu.model, c.machines()[i]);
        assert_eq!(gpu.mem_gib, saga::NODE_MEM_GIB);
    }
    let net = c.network();
    assert!(matches!(net, Network::PerMachinePair { .. }));
    let bw = |a, b| net.bandwidth(a, b);
    // n0-n2 is listed one way only: both directions get it.
    assert_eq!(
        [bw(0, 1), bw(1, 0), bw(0, 2), bw(2, 0), bw(1, 2), bw(2, 1)],
        [1.0, 1.0, 2.0, 2.0, 4.0, 4.0]
    );
    // Self links: as given, null and absent as SELF_LINK_SPEED.
    assert_eq!([bw(0, 0), bw(1, 1), bw(2, 2)], [5e8, 1e9, 1e9]);
    for a in 0..3 {
        for b in 0..3 {
            assert_eq!(net.latency(a, b), 0.0);
        }
    }
}

#[test]
fn problem_times_are_sagas_cost_over_speed_and_size_over_link_speed() {
    let (w, c) = saga::load(fixture()).unwrap();
    let p = Problem::new(Arc::new(w), Arc::new(c)).unwrap();
    // exec = cost / speed: A 8/1, 8/2, 8/4; C 12/1, 12/2, 12/4.
    let exec: Vec<Vec<f64>> = (0..4)
        .map(|v| (0..3).map(|k| p.exec_time(t(v), g(k))).collect())
        .collect();
    assert_eq!(
        exec,
        vec![
            vec![8.0, 4.0, 2.0],
            vec![4.0, 2.0, 1.0],
            vec![12.0, 6.0, 3.0],
            vec![8.0, 4.0, 2.0]
        ]
    );
    // comm = size / link speed (latency 0), 0 on one node.
    assert_eq!(p.comm_time(8.0, g(0), g(1)), 8.0); // 8 / 1
    assert_eq!(p.comm_time(8.0, g(1), g(0)), 8.0);
    assert_eq!(p.comm_time(8.0, g(2), g(0)), 4.0); // 8 / 2
    assert_eq!(p.comm_time(4.0, g(2), g(1)), 1.0); // 4 / 4
    assert_eq!(p.comm_time(8.0, g(2), g(2)), 0.0);
    // HEFT's mean communication cost: bytes · mean(1 / B) over the 6 ordered pairs of
    // distinct nodes = bytes · (1 + 1/2 + 1/4) / 3 = bytes · 7/12.
    assert!((p.mean_comm_time(12.0) - 7.0).abs() < 1e-12);
}

#[test]
fn round_trip_read_write_read_is_identical() {
    let (w1, c1) = saga::load(fixture()).unwrap();
    let text1 = saga::to_string(&w1, &c1).unwrap();
    let (w2, c2) = saga::read(text1.as_bytes(), "<memory>").unwrap();
    assert_eq!(c2, c1);
    assert_eq!(w2.name(), w1.name());
    assert_eq!(w2.jobs()[0].name, w1.jobs()[0].name);
    let tasks = |w: &worl_dag::Workload| -> Vec<(String, f64, Option<f64>)> {
        w.graph()
            .tasks()
            .map(|(_, t)| (t.name.clone(), t.work, t.mem_gib))
            .collect()
    };
    let edges = |w: &worl_dag::Workload| -> Vec<(usize, usize, f64)> {
        w.graph()
            .edges()
            .map(|e| (e.from.index(), e.to.index(), e.bytes))
            .collect()
    };
    assert_eq!(tasks(&w2), tasks(&w1));
    assert_eq!(edges(&w2), edges(&w1));
    assert_eq!(saga::to_string(&w2, &c2).unwrap(), text1);

    // Through a file, and the self links written as read.
    let path = std::env::temp_dir().join(format!("worl-saga-{}.json", std::process::id()));
    saga::save(&w1, &c1, &path).unwrap();
    let (w3, c3) = saga::load(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(c3, c1);
    assert_eq!(tasks(&w3), tasks(&w1));
    let v: serde_json::Value = serde_json::from_str(&text1).unwrap();
    let edges_json = v["network"]["edges"].as_array().unwrap();
    assert_eq!(edges_json.len(), 9); // every ordered pair, self links included
    assert_eq!(edges_json[0]["source"], "n0");
    assert_eq!(edges_json[0]["target"], "n0");
    assert_eq!(edges_json[0]["speed"], 5e8);
    assert_eq!(edges_json[5]["source"], "n1");
    assert_eq!(edges_json[5]["target"], "n2");
    assert_eq!(edges_json[5]["speed"], 4.0);
    assert_eq!(v["task_graph"]["tasks"][2]["name"], "C");
    assert_eq!(v["task_graph"]["tasks"][2]["cost"], 12.0);
}

#[test]
fn a_minimal_instance_reads_with_its_defaults() {
    // No name: "saga"; an edge without speed: saga's default 1e-9.
    let text = r#"{"task_graph": {"tasks": [{"name": "a", "cost": 0}]},
        "network": {"nodes": [{"name": "n0", "speed": 1}, {"name": "n1", "speed": 1}],
                    "edges": [{"source": "n1", "target": "n0"}]}, "extra": [1, 2]}"#;
    let (w, c) = saga::read(text.as_bytes(), "<memory>").unwrap();
    assert_eq!(w.name(), "saga");
    assert_eq!(c.name(), "saga");
    assert_eq!(c.network().bandwidth(0, 1), saga::MISSING_EDGE_SPEED);
    assert_eq!(c.network().bandwidth(1, 0), 1e-9);
}

#[test]
fn read_errors_name_the_file_and_item() {
    let cases: Vec<(String, &str)> = vec![
        (
            instance(
                TWO_TASKS,
                r#"{"nodes": [{"name": "n0", "speed": 1}, {"name": "n1", "speed": 2}],
                "edges": [{"source": "n0", "target": "n1", "speed": null}]}"#,
            ),
            "bad.json:0: link `n0` -> `n1`: speed null (infinite) cannot be represented \
             (worl needs a finite bandwidth > 0 between distinct nodes)",
        ),
        (
            instance(
                TWO_TASKS,
                r#"{"nodes": [{"name": "n0", "speed": 1}, {"name": "n1", "speed": 2}],
                "edges": [{"source": "n0", "target": "n1", "speed": 0}]}"#,
            ),
            "bad.json:0: link `n0` -> `n1`: speed 0 cannot be represented \
             (worl needs a finite bandwidth > 0 between distinct nodes)",
        ),
        (
            instance(
                TWO_TASKS,
                r#"{"nodes": [{"name": "n0", "speed": 1}, {"name": "n1", "speed": 2}],
                "edges": [{"source": "n0", "target": "n1", "speed": 3},
                          {"source": "n1", "target": "n0", "speed": 4}]}"#,
            ),
            "bad.json:0: link `n1` -> `n0`: speeds 3 and 4 given for one node pair \
             (saga's network is undirected: one speed per pair)",
        ),
        (
            instance(
                TWO_TASKS,
                r#"{"nodes": [{"name": "n0", "speed": 1}, {"name": "n1", "speed": 2}],
                "edges": [{"source": "n0", "target": "n0", "speed": 3}]}"#,
            ),
            "bad.json:0: no link between nodes `n0` and `n1` (saga needs one between every \
             pair of distinct nodes)",
        ),
        (
            instance(
                TWO_TASKS,
                r#"{"nodes": [{"name": "n0", "speed": 1}],
                "edges": [{"source": "n0", "target": "n9", "speed": 3}]}"#,
            ),
            "bad.json:0: link `n0` -> `n9`: unknown node `n9`",
        ),
        (
            instance(
                TWO_TASKS,
                r#"{"nodes": [{"name": "n0", "speed": 0}], "edges": []}"#,
            ),
            "bad.json:0: node `n0`: speed 0 is not a finite number > 0",
        ),
        (
            instance(
                TWO_TASKS,
                r#"{"nodes": [{"name": "n0", "speed": null}], "edges": []}"#,
            ),
            "bad.json:0: node `n0`: speed null (infinite) is not a finite number > 0",
        ),
        (
            instance(
                TWO_TASKS,
                r#"{"nodes": [{"name": "n0", "speed": 1}, {"name": "n0", "speed": 1}]}"#,
            ),
            "bad.json:0: node `n0` is listed twice",
        ),
        (
            instance(TWO_TASKS, r#"{"nodes": []}"#),
            "bad.json:0: the network has no node",
        ),
        (
            instance(
                r#"{"tasks": [{"name": "a", "cost": -1}]}"#,
                TWO_NODES,
            ),
            "bad.json:0: task `a`: cost -1 is not a finite number >= 0",
        ),
        (
            instance(
                r#"{"tasks": [{"name": "a", "cost": 1}, {"name": "a", "cost": 2}]}"#,
                TWO_NODES,
            ),
            "bad.json:0: task `a` is listed twice",
        ),
        (
            instance(
                r#"{"tasks": [{"name": "a", "cost": 1}],
                "dependencies": [{"source": "a", "target": "z", "size": 1}]}"#,
                TWO_NODES,
            ),
            "bad.json:0: dependency `a` -> `z`: unknown task `z`",
        ),
        (
            instance(
                r#"{"tasks": [{"name": "a", "cost": 1}, {"name": "b", "cost": 1}],
                "dependencies": [{"source": "a", "target": "b", "size": -2}]}"#,
                TWO_NODES,
            ),
            "bad.json:0: dependency `a` -> `b`: size -2 is not a finite number >= 0",
        ),
        (
            instance(
                r#"{"tasks": [{"name": "a", "cost": 1}, {"name": "b", "cost": 1}],
                "dependencies": [{"source": "a", "target": "b", "size": 1},
                                 {"source": "b", "target": "a", "size": 1}]}"#,
                TWO_NODES,
            ),
            "bad.json:0: dependency cycle: x/b -> x/a -> x/b",
        ),
        (
            "{\n  \"name\": \"x\",\n  \"task_graph\": {\"tasks\": []},\n  \"network\": 3\n}"
                .to_owned(),
            "bad.json:4: invalid type: integer `3`, expected a saga Network object at line 4 column 14",
        ),
        (
            "{\"name\": \"x\",\n \"task_graph\": {\"tasks\": [{\"name\": \"a\", \"cost\": Infinity}]}}"
                .to_owned(),
            "bad.json:2: expected value at line 2 column 49",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(read_err(&text), expected, "{text}");
    }
}

#[test]
fn a_missing_file_is_an_io_error_naming_it() {
    let err = saga::load("/nonexistent/saga.json").unwrap_err();
    assert!(matches!(err, ClusterError::Io { .. }));
    assert!(
        err.to_string()
            .starts_with("cannot access `/nonexistent/saga.json`: "),
        "{err}"
    );
}

#[test]
fn write_errors_say_what_saga_cannot_express() {
    let (w, c) = saga::load(fixture()).unwrap();
    let model = GpuModel::custom("m", 1.0, 16.0).unwrap();

    // Two GPUs in one machine.
    let mut cb = ClusterBuilder::new("two");
    let m = cb.add_machine("box");
    cb.add_gpu(m, &model).unwrap();
    cb.add_gpu(m, &model).unwrap();
    let two = cb.build().unwrap();
    assert_eq!(
        saga::to_string(&w, &two).unwrap_err().to_string(),
        "invalid parameter `cluster`: machine `box` has 2 GPUs; a saga node is one \
         processor, so each machine needs exactly one GPU"
    );

    // A link with latency.
    let mut cb = ClusterBuilder::new("lat");
    for name in ["p", "q"] {
        let m = cb.add_machine(name);
        cb.add_gpu(m, &model).unwrap();
    }
    cb.network(Network::uniform(Link::PCIE3_X16, Link::ETHERNET_10G));
    let lat = cb.build().unwrap();
    assert_eq!(
        saga::to_string(&w, &lat).unwrap_err().to_string(),
        "invalid parameter `cluster`: link `p` -> `q` has latency 0.00005 s; saga's links \
         have none"
    );

    // Asymmetric bandwidths.
    let mut cb = ClusterBuilder::new("asym");
    for name in ["p", "q"] {
        let m = cb.add_machine(name);
        cb.add_gpu(m, &model).unwrap();
    }
    cb.network(Network::from_fn(2, |a, b| Link {
        bandwidth: 1.0 + (2 * a + b) as f64,
        latency: 0.0,
    }));
    let asym = cb.build().unwrap();
    assert_eq!(
        saga::to_string(&w, &asym).unwrap_err().to_string(),
        "invalid parameter `cluster`: link `p` -> `q` has bandwidth 2 B/s but 3 B/s the \
         other way; saga's network is undirected"
    );

    // A ready time.
    let mut busy = c.clone();
    busy.set_ready_time(GpuId::new(1), 2.5).unwrap();
    assert_eq!(
        saga::to_string(&w, &busy).unwrap_err().to_string(),
        "invalid parameter `cluster`: the GPU of machine `n1` has ready time 2.5 s and \
         background utilisation 0; saga has neither"
    );

    // Two jobs; a memory need.
    let mut wb = WorkloadBuilder::new("two-jobs");
    for j in ["j1", "j2"] {
        let job = wb.add_job(j).unwrap();
        wb.add_task(job, "a", 1.0, None).unwrap();
    }
    assert_eq!(
        saga::to_string(&wb.build().unwrap(), &c)
            .unwrap_err()
            .to_string(),
        "invalid parameter `workload`: workload `two-jobs` has 2 jobs; a saga instance holds \
         one task graph"
    );
    let mut wb = WorkloadBuilder::new("mem");
    let job = wb.add_job("j").unwrap();
    wb.add_task(job, "a", 1.0, Some(8.0)).unwrap();
    assert_eq!(
        saga::to_string(&wb.build().unwrap(), &c)
            .unwrap_err()
            .to_string(),
        "invalid parameter `workload`: task `j/a` needs 8 GiB of GPU memory; saga has no \
         memory model"
    );
}

/// A small file must not expand into gigabytes: a saga network of 65,536 nodes (2 MB of
/// JSON) asked for two 65,536² matrices (68 GB); it is refused before allocating.
#[test]
fn a_saga_network_that_would_expand_to_gigabytes_is_refused_before_allocating() {
    use worl_cluster::MAX_PAIR_MACHINES;
    let nodes: Vec<String> = (0..65_536)
        .map(|i| format!(r#"{{"name": "n{i}", "speed": 1}}"#))
        .collect();
    let saga = format!(
        r#"{{"name": "x", "task_graph": {{"tasks": [{{"name": "a", "cost": 1}}]}}, "network": {{"nodes": [{}], "edges": []}}}}"#,
        nodes.join(",")
    );
    assert!(saga.len() < 3_000_000, "{}", saga.len());
    match saga::read(saga.as_bytes(), "big.json") {
        Err(ClusterError::TooManyGpus { count, limit, item }) => {
            assert_eq!((count, limit), (65_536, MAX_PAIR_MACHINES));
            assert!(item.contains("big.json"), "{item}");
        }
        other => panic!("expected TooManyGpus, got {other:?}"),
    }
}

#[test]
fn saga_refuses_a_cluster_with_windows() {
    let mut w = WorkloadBuilder::new("w");
    let j = w.add_job("j").unwrap();
    w.add_task(j, "a", 1.0, None).unwrap();
    let w = w.build().unwrap();
    let spec = ClusterSpec::new(2, 1, &GpuModel::a100_80gb())
        .with_inter(worl_cluster::Link::new(1e9, 0.0).unwrap());
    let plain = spec.build().unwrap();
    assert!(saga::to_string(&w, &plain).is_ok());
    let mut c = plain.clone();
    c.set_busy(g(1), vec![(10.0, 20.0)]).unwrap();
    let e = saga::to_string(&w, &c).unwrap_err();
    assert!(matches!(e, ClusterError::InvalidParameter { .. }), "{e:?}");
    let e = e.to_string();
    assert!(
        e.contains("node-1/g1")
            && e.contains("[10, 20)")
            && e.contains("saga cannot express busy windows"),
        "{e}"
    );
}
