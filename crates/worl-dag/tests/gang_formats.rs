//! Gang tasks (`gpus`, `GangParams`) in every workload format that carries them: native JSON,
//! DOT and WfCommons WfFormat read and write them losslessly; bad values are parse errors
//! naming the file, the line and the task; workloads without gangs are written as before.

use proptest::prelude::*;
use worl_dag::formats::{dot, native, wfcommons};
use worl_dag::{DagError, GangParams, Span, TaskId, Workload, WorkloadBuilder};

/// Job `j`: `a` (1 GPU), `b` (8 GPUs, span cluster), `c` (3 GPUs, efficiency 0.5, sync
/// 1e8 bytes x 100 steps); `a -> b -> c`.
fn gangs() -> Workload {
    let mut b = WorkloadBuilder::new("g");
    let j = b.add_job("j").unwrap();
    let a = b.add_task(j, "a", 1.0, None).unwrap();
    let t = b.add_task(j, "b", 8.0 * 1800.0, Some(16.0)).unwrap();
    let c = b.add_task(j, "c", 2.0, None).unwrap();
    b.set_gang(
        t,
        8,
        GangParams {
            span: Span::Cluster,
            ..Default::default()
        },
    )
    .unwrap();
    b.set_gang(
        c,
        3,
        GangParams {
            efficiency: 0.5,
            sync_bytes: 1.0e8,
            sync_steps: 100.0,
            ..Default::default()
        },
    )
    .unwrap();
    b.add_edge(a, t, 4096.0).unwrap();
    b.add_edge(t, c, 0.0).unwrap();
    b.build().unwrap()
}

/// The message of a parse error, with its file and line.
fn parse_error(
    r: Result<(Workload, worl_dag::formats::LoadReport), DagError>,
) -> (String, usize, String) {
    match r {
        Err(DagError::Parse {
            file,
            line,
            message,
        }) => (file, line, message),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

// --- native JSON ---------------------------------------------------------------------------

const NATIVE: &str = r#"{"format": "worl-workload", "version": 1, "name": "g",
 "jobs": [ { "name": "j", "tasks": [
   { "name": "a", "work": 1.0 },
   { "name": "b", "work": 8.0, "gpus": 8,
     "gang": { "span": "cluster" } },
   { "name": "c", "work": 2.0, "gpus": 2,
     "gang": { "efficiency": 0.5 } } ] } ] }"#;

#[test]
fn native_reads_gpus_and_partial_gang_objects() {
    let (w, report) = native::read(NATIVE.as_bytes(), "g.json").unwrap();
    assert!(report.is_clean());
    let g = w.graph();
    let t = |i: usize| g.task(TaskId::new(i));
    assert_eq!((t(0).gpus, t(0).gang), (1, GangParams::default()));
    assert_eq!(t(1).gpus, 8);
    assert_eq!(
        t(1).gang,
        GangParams {
            span: Span::Cluster,
            efficiency: 1.0,
            sync_bytes: 0.0,
            sync_steps: 0.0
        }
    );
    assert_eq!(t(2).gpus, 2);
    assert_eq!(t(2).gang.efficiency, 0.5);
    assert_eq!(t(2).gang.span, Span::Machine);
    assert!(w.has_gangs());
}

#[test]
fn native_writes_only_what_differs_and_round_trips() {
    let w = gangs();
    let text = native::to_string(&w).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let tasks = &doc["jobs"][0]["tasks"];
    let keys =
        |i: usize| -> Vec<String> { tasks[i].as_object().unwrap().keys().cloned().collect() };
    // (serde_json's map lists keys sorted)
    assert_eq!(keys(0), ["id", "name", "work"]);
    assert_eq!(keys(1), ["gang", "gpus", "id", "mem_gib", "name", "work"]);
    assert!(
        text.contains("\"mem_gib\": 16.0,\n          \"gpus\": 8,\n          \"gang\": {"),
        "{text}"
    );
    assert_eq!(tasks[1]["gpus"], 8);
    assert_eq!(tasks[1]["gang"], serde_json::json!({"span": "cluster"}));
    assert_eq!(
        tasks[2]["gang"],
        serde_json::json!({"efficiency": 0.5, "sync_bytes": 1.0e8, "sync_steps": 100.0})
    );
    let (back, _) = native::read(text.as_bytes(), "g.json").unwrap();
    assert_eq!(back, w);
    // Without gangs nothing new is written: the text is that of the tasks' old fields.
    let plain = worl_dag::generators::shapes::fork_join(3, 2.5, 10.0).unwrap();
    let text = native::to_string(&plain).unwrap();
    assert!(!text.contains("gpus") && !text.contains("gang"), "{text}");
}

#[test]
fn native_bad_gang_values_name_file_line_and_task() {
    let cases = [
        (
            r#""gpus": 2,"#,
            r#""gpus": 0,"#,
            6,
            "task `j/c`: invalid gang: gpus = 0; a task needs at least 1 GPU",
        ),
        (
            r#""gpus": 2,"#,
            r#""gpus": "abc","#,
            6,
            "task `j/c`: invalid gang: gpus \"abc\" is not a whole number of GPUs",
        ),
        (
            r#""gpus": 2,"#,
            r#""gpus": 2.5,"#,
            6,
            "task `j/c`: invalid gang: gpus 2.5 is not a whole number of GPUs",
        ),
        (
            r#""efficiency": 0.5"#,
            r#""efficiency": 2"#,
            7,
            "task `j/c`: invalid gang: efficiency 2 is not in (0, 1]",
        ),
        (
            r#""span": "cluster""#,
            r#""span": "rack""#,
            5,
            "task `j/b`: invalid gang: span `rack` is neither `machine` nor `cluster`",
        ),
        (
            r#""efficiency": 0.5"#,
            r#""efficiency": 0.5, "sync_steps": -3"#,
            7,
            "task `j/c`: invalid gang: sync_steps -3 is not a finite number >= 0",
        ),
    ];
    for (from, to, line, message) in cases {
        let text = NATIVE.replace(from, to);
        let (file, l, m) = parse_error(native::read(text.as_bytes(), "g.json"));
        assert_eq!(
            (file.as_str(), l, m.as_str()),
            ("g.json", line, message),
            "{to}"
        );
    }
    // An unknown field of `gang` is refused by serde, at its line.
    let text = NATIVE.replace(r#""span": "cluster""#, r#""spam": 1"#);
    let (_, l, m) = parse_error(native::read(text.as_bytes(), "g.json"));
    assert_eq!(l, 5);
    assert!(m.contains("unknown field `spam`"), "{m}");
    // The Display form: file, line, task.
    let text = NATIVE.replace(r#""gpus": 2,"#, r#""gpus": 0,"#);
    let e = native::read(text.as_bytes(), "g.json").unwrap_err();
    assert_eq!(
        e.to_string(),
        "g.json:6: task `j/c`: invalid gang: gpus = 0; a task needs at least 1 GPU"
    );
}

// --- DOT -----------------------------------------------------------------------------------

#[test]
fn dot_writes_gang_attributes_on_the_node_and_round_trips() {
    let w = gangs();
    let text = dot::to_dot(&w);
    assert!(text.contains("    t0 [label=\"a\\n1.000 s\"];\n"), "{text}");
    assert!(
        text.contains("    t1 [label=\"b\\n14400.000 s\", gpus=\"8\", span=\"cluster\"];\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "    t2 [label=\"c\\n2.000 s\", gpus=\"3\", efficiency=\"0.5\", \
             sync_bytes=\"100000000\", sync_steps=\"100\"];\n"
        ),
        "{text}"
    );
    let (back, _) = dot::read(text.as_bytes(), "g.dot", &Default::default()).unwrap();
    assert_eq!(back, w);
    let plain = worl_dag::generators::shapes::fork_join(3, 2.5, 10.0).unwrap();
    let text = dot::to_dot(&plain);
    for key in ["gpus", "span", "efficiency", "sync_"] {
        assert!(!text.contains(key), "{text}");
    }
}

#[test]
fn dot_reads_gang_attributes_from_defaults_and_nodes() {
    let text = "digraph g {\n  node [gpus=4, span=CLUSTER];\n  a [work=1];\n  \
                b [work=2, gpus=1, span=machine, efficiency=0.25];\n  a -> b;\n}\n";
    let (w, _) = dot::read(text.as_bytes(), "g.dot", &Default::default()).unwrap();
    let g = w.graph();
    let (a, b) = (g.task(TaskId::new(0)), g.task(TaskId::new(1)));
    assert_eq!((a.gpus, a.gang.span), (4, Span::Cluster));
    assert_eq!(
        (b.gpus, b.gang.span, b.gang.efficiency),
        (1, Span::Machine, 0.25)
    );
    assert!(w.has_gangs());
}

#[test]
fn dot_bad_gang_values_name_file_line_node_and_task() {
    let cases = [
        (
            "a [work=1, gpus=0];",
            "node `a`: task `g/a`: invalid gang: gpus = 0; a task needs at least 1 GPU",
        ),
        (
            "a [work=1, gpus=abc];",
            "node `a`: task `g/a`: invalid gang: gpus `abc` is not a whole number of GPUs",
        ),
        (
            "a [work=1, gpus=9000];",
            "node `a`: task `g/a`: invalid gang: gpus = 9000 is more than 4096, the most one \
             task may demand",
        ),
        (
            "a [task=x, work=1, efficiency=\"2\"];",
            "node `a`: task `g/x`: invalid gang: efficiency 2 is not in (0, 1]",
        ),
        (
            "a [work=1, span=rack];",
            "node `a`: task `g/a`: invalid gang: span `rack` is neither `machine` nor `cluster`",
        ),
        (
            "a [work=1, sync_bytes=\"-1\"];",
            "node `a`: task `g/a`: invalid gang: sync_bytes -1 is not a finite number >= 0",
        ),
        (
            "a [work=1, sync_steps=many];",
            "node `a`: task `g/a`: invalid gang: sync_steps `many` is not a number",
        ),
    ];
    for (node, message) in cases {
        let text = format!("digraph g {{\n  b [work=1];\n  {node}\n}}\n");
        let (file, line, m) = parse_error(dot::read(text.as_bytes(), "g.dot", &Default::default()));
        assert_eq!(
            (file.as_str(), line, m.as_str()),
            ("g.dot", 3, message),
            "{node}"
        );
    }
}

// --- WfFormat ------------------------------------------------------------------------------

#[test]
fn wfformat_writes_gang_properties_and_reads_them_back() {
    let w = gangs();
    let text = wfcommons::to_string(&w, None).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let exec = &doc["workflow"]["execution"]["tasks"];
    let keys = |i: usize| -> Vec<String> { exec[i].as_object().unwrap().keys().cloned().collect() };
    assert_eq!(keys(0), ["id", "runtimeInSeconds"]);
    assert_eq!(exec[1]["gpuCount"], 8);
    assert_eq!(exec[1]["gangSpan"], "cluster");
    assert_eq!(exec[1]["runtimeInSeconds"], 1800.0);
    assert_eq!(exec[2]["gpuCount"], 3);
    assert_eq!(exec[2]["gangEfficiency"], 0.5);
    assert_eq!(exec[2]["gangSyncBytes"], 1.0e8);
    assert_eq!(exec[2]["gangSyncSteps"], 100.0);
    assert!(exec[2].get("gangSpan").is_none());
    // Critical path with wall times: 1 + 14400/8 + 2/3.
    let cp = doc["workflow"]["execution"]["makespanInSeconds"]
        .as_f64()
        .unwrap();
    assert!((cp - (1.0 + 1800.0 + 2.0 / 3.0)).abs() < 1e-9, "{cp}");
    let (back, _) = wfcommons::read(text.as_bytes(), "g.json", &Default::default()).unwrap();
    for (v, t) in w.graph().tasks() {
        let b = back.graph().task(v);
        assert_eq!((b.gpus, b.gang), (t.gpus, t.gang), "{}", t.name);
        assert_eq!(b.work, t.work, "{}", t.name);
    }
    // Without gangs, no new property is written.
    let plain = worl_dag::generators::shapes::fork_join(3, 2.5, 10.0).unwrap();
    let text = wfcommons::to_string(&plain, None).unwrap();
    assert!(
        !text.contains("gpuCount") && !text.contains("gang"),
        "{text}"
    );
}

const WF: &str = r#"{"name": "w", "schemaVersion": "1.5",
 "workflow": {
  "specification": {"tasks": [
    {"name": "a", "id": "a", "parents": [], "children": ["b"]},
    {"name": "b", "id": "b", "parents": ["a"], "children": []}]},
  "execution": {"makespanInSeconds": 30, "executedAt": "2020-01-01T00:00:00Z", "tasks": [
    {"id": "a", "runtimeInSeconds": 10, "coreCount": 4},
    {"id": "b", "runtimeInSeconds": 20,
     "gpuCount": 4, "gangSpan": "cluster"}]}}}"#;

#[test]
fn wfformat_reads_gpu_count_as_a_wall_time_on_that_many_gpus() {
    let (w, _) = wfcommons::read(WF.as_bytes(), "w.json", &Default::default()).unwrap();
    let g = w.graph();
    let (a, b) = (g.task(TaskId::new(0)), g.task(TaskId::new(1)));
    // coreCount counts CPU cores: not GPUs.
    assert_eq!((a.gpus, a.work), (1, 10.0));
    // 20 s on 4 GPUs: 80 reference GPU-seconds.
    assert_eq!((b.gpus, b.work, b.gang.span), (4, 80.0, Span::Cluster));
    let bad = WF.replace(r#""gpuCount": 4"#, r#""gpuCount": 0"#);
    let (file, line, m) = parse_error(wfcommons::read(
        bad.as_bytes(),
        "w.json",
        &Default::default(),
    ));
    assert_eq!(
        (file.as_str(), line, m.as_str()),
        (
            "w.json",
            9,
            "task `w/b`: invalid gang: gpuCount = 0; a task needs at least 1 GPU"
        )
    );
    let bad = WF.replace(r#""gangSpan": "cluster""#, r#""gangEfficiency": "x""#);
    let (_, line, m) = parse_error(wfcommons::read(
        bad.as_bytes(),
        "w.json",
        &Default::default(),
    ));
    assert_eq!(line, 9);
    assert_eq!(
        m,
        "task `w/b`: invalid gang: gangEfficiency \"x\" is not a number"
    );
    // The same property elsewhere in the document (extra properties are allowed anywhere)
    // makes the line unknowable: none is given rather than a wrong one.
    let bad = WF
        .replace(r#""gpuCount": 4"#, r#""gpuCount": 0"#)
        .replace(r#""name": "w","#, r#""name": "w", "gpuCount": 1,"#);
    let (_, line, _) = parse_error(wfcommons::read(
        bad.as_bytes(),
        "w.json",
        &Default::default(),
    ));
    assert_eq!(line, 0);
}

// --- round trips of random workloads ---------------------------------------------------------

/// A random gang demand: mostly 1 GPU, some gangs up to 4096, any valid parameters.
fn demand() -> impl Strategy<Value = (u32, GangParams)> {
    let params = (
        any::<bool>(),
        prop_oneof![Just(1.0), 1e-9..=1.0f64],
        prop_oneof![Just(0.0), 0.0..1e12f64],
        prop_oneof![Just(0.0), 0.0..1e6f64],
    )
        .prop_map(|(cluster, efficiency, sync_bytes, sync_steps)| GangParams {
            span: if cluster {
                Span::Cluster
            } else {
                Span::Machine
            },
            efficiency,
            sync_bytes,
            sync_steps,
        });
    (
        prop_oneof![3 => Just(1u32), 2 => 2u32..=8, 1 => 1u32..=4096],
        prop_oneof![Just(GangParams::default()), params],
    )
}

/// A random workload of 1 to 3 jobs with forward edges and random gang demands.
fn workload() -> impl Strategy<Value = Workload> {
    (1usize..4, 1usize..12).prop_flat_map(|(jobs, n)| {
        (
            proptest::collection::vec(
                (
                    0..jobs,
                    0.0..1e6f64,
                    proptest::option::of(0.5..80.0f64),
                    demand(),
                ),
                n,
            ),
            proptest::collection::vec((0..n, 0..n, 0.0..1e9f64), 0..2 * n),
        )
            .prop_map(move |(tasks, edges)| {
                let mut b = WorkloadBuilder::new("rand");
                let js: Vec<_> = (0..jobs)
                    .map(|j| b.add_job(format!("job \"{j}\"")).unwrap())
                    .collect();
                for (i, (j, work, mem, (gpus, p))) in tasks.into_iter().enumerate() {
                    let t = b.add_task(js[j], format!("t{i}"), work, mem).unwrap();
                    b.set_gang(t, gpus, p).unwrap();
                }
                let mut seen = std::collections::HashSet::new();
                for (u, v, bytes) in edges {
                    let (u, v) = (u.min(v), u.max(v));
                    if u != v && seen.insert((u, v)) {
                        b.add_edge(TaskId::new(u), TaskId::new(v), bytes).unwrap();
                    }
                }
                b.build().unwrap()
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_gangs_round_trip_through_native_and_dot(w in workload()) {
        let text = native::to_string(&w).unwrap();
        let (back, _) = native::read(text.as_bytes(), "rand.json").unwrap();
        prop_assert_eq!(&back, &w);
        let text = dot::to_dot(&w);
        let (back, _) = dot::read(text.as_bytes(), "rand.dot", &Default::default()).unwrap();
        prop_assert_eq!(&back, &w);
    }

    #[test]
    fn random_gangs_keep_their_demand_through_wfformat(w in workload()) {
        let text = wfcommons::to_string(&w, None).unwrap();
        let (back, _) = wfcommons::read(text.as_bytes(), "rand.json", &Default::default()).unwrap();
        for (v, t) in w.graph().tasks() {
            let b = back.graph().task(v);
            prop_assert_eq!((b.gpus, b.gang), (t.gpus, t.gang));
            // Exact for 1 GPU and powers of two; otherwise within one rounding of r * g.
            if t.gpus.is_power_of_two() {
                prop_assert_eq!(b.work, t.work);
            } else {
                prop_assert!((b.work - t.work).abs() <= 2.0 * f64::EPSILON * t.work, "{} vs {}", b.work, t.work);
            }
        }
    }
}
