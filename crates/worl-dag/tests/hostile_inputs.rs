//! Hostile and oversized inputs: every loader's memory and work stay linear in its input
//! (counted quantities: report bytes, tasks, edges, bytes on edges; no timing), duplicate
//! declarations are typed errors, and control characters in names are refused by the one
//! builder all loaders pass through.

use worl_dag::formats::{Reason, alibaba, dax, dot, native, stg, wfcommons};
use worl_dag::{DagError, LoadReport, WorkloadBuilder};

/// Bytes held by a report's items: what a report copies from its input.
fn report_bytes(r: &LoadReport) -> usize {
    r.entries
        .iter()
        .flat_map(|e| &e.items)
        .map(|i| i.len())
        .sum()
}

fn ali(rows: &str) -> worl_dag::Result<(worl_dag::Workload, LoadReport)> {
    alibaba::read(
        rows.as_bytes(),
        "t.csv",
        &alibaba::AlibabaOptions::default().ccr(0.0),
    )
}

fn wf(doc: &serde_json::Value) -> worl_dag::Result<(worl_dag::Workload, LoadReport)> {
    wfcommons::read(
        doc.to_string().as_bytes(),
        "w.json",
        &wfcommons::WfOptions::default(),
    )
}

/// A WfFormat 1.5 document of `tasks` (each `{id, parents, children, inputFiles,
/// outputFiles}`), `files` and execution `exec`.
fn wf15(
    tasks: serde_json::Value,
    files: serde_json::Value,
    exec: serde_json::Value,
) -> serde_json::Value {
    serde_json::json!({
        "name": "w", "schemaVersion": "1.5",
        "workflow": {
            "specification": {"tasks": tasks, "files": files},
            "execution": {"tasks": exec}
        }
    })
}

// --- Alibaba ---------------------------------------------------------------------------

#[test]
fn alibaba_long_task_name_memory_is_linear() {
    // A 200 KB name of 100,000 pseudo-task tokens (the issue's case): each ignored token
    // used to be one report item copying the whole name (20 GB). Now one item per task and
    // reason lists the tokens and counts them.
    let name = format!("M1{}", "_x".repeat(100_000));
    let rows = format!("{name},1,j_1,1,Terminated,100,160,100,0.3\n");
    let (w, r) = ali(&rows).unwrap();
    assert_eq!(w.graph().task(worl_dag::TaskId::new(0)).name, name);
    // The name is longer than the trace's 50 characters: its last token counts as cut.
    assert_eq!(r.count(Reason::TruncatedName), 1);
    assert_eq!(r.count(Reason::PseudoTaskDependency), 99_999);
    assert_eq!(r.items(Reason::PseudoTaskDependency).len(), 1);
    assert!(
        r.items(Reason::PseudoTaskDependency)[0]
            .starts_with(&format!("j_1/{name} (line 1): `x`, `x`")),
    );
    let bytes = report_bytes(&r);
    assert!(
        bytes < 6 * rows.len(),
        "report holds {bytes} bytes for {} input bytes",
        rows.len()
    );
    // The report's text shows items shortened.
    assert!(r.to_string().len() < 2_000, "{}", r.to_string().len());
}

#[test]
fn alibaba_many_missing_and_repeated_dependencies_are_one_item_per_task() {
    // Task 7 does not exist (missing, 50,000 times); task 1 exists (kept once, then
    // repeated 49,999 times).
    let missing = format!("M2{}", "_7".repeat(50_000));
    let repeated = format!("M3{}", "_1".repeat(50_000));
    let rows = format!(
        "M1,1,j_1,1,Terminated,100,160,100,0.3\n\
         {missing},1,j_1,1,Terminated,100,160,100,0.3\n\
         {repeated},1,j_1,1,Terminated,100,160,100,0.3\n"
    );
    let (w, r) = ali(&rows).unwrap();
    assert_eq!((w.graph().n_tasks(), w.graph().n_edges()), (3, 1));
    // Each long name's last token counts as cut by the trace.
    assert_eq!(r.count(Reason::TruncatedName), 2);
    assert_eq!(r.count(Reason::MissingDependency), 49_999);
    assert_eq!(r.count(Reason::DuplicateDependency), 49_998);
    assert_eq!(r.items(Reason::MissingDependency).len(), 1);
    assert!(r.items(Reason::MissingDependency)[0].contains("(line 2): tasks 7, 7, 7"));
    assert!(r.items(Reason::DuplicateDependency)[0].contains("(line 3): tasks 1, 1"));
    let bytes = report_bytes(&r);
    assert!(bytes < 6 * rows.len(), "{bytes} report bytes");
}

#[test]
fn alibaba_single_repairs_read_as_before() {
    let rows = "M1,1,j_1,1,Terminated,100,160,100,0.3\n\
                J2_1_1_Stg3_9,1,j_1,1,Terminated,100,160,100,0.3\n";
    let (_, r) = ali(rows).unwrap();
    assert_eq!(
        r.items(Reason::PseudoTaskDependency),
        ["j_1/J2_1_1_Stg3_9 (line 2): `Stg3`"]
    );
    assert_eq!(
        r.items(Reason::MissingDependency),
        ["j_1/J2_1_1_Stg3_9 (line 2): task 9"]
    );
    assert_eq!(
        r.items(Reason::DuplicateDependency),
        ["j_1/J2_1_1_Stg3_9 (line 2): task 1"]
    );
    assert_eq!(r.count(Reason::DuplicateDependency), 1);
}

#[test]
fn alibaba_task_depending_on_many_tasks_loads() {
    // One name lists 20,000 distinct parents (the repeated-dependency check was a scan of
    // the name's edges per token).
    let k = 20_000;
    let mut rows: String = (1..=k)
        .map(|i| format!("M{i},1,j_1,1,Terminated,100,160,1,1\n"))
        .collect();
    let deps: Vec<String> = (1..=k).map(|i| i.to_string()).collect();
    rows.push_str(&format!(
        "R0_{}_1,1,j_1,1,Terminated,160,170,1,1\n",
        deps.join("_")
    ));
    let (w, r) = ali(&rows).unwrap();
    assert_eq!((w.graph().n_tasks(), w.graph().n_edges()), (k + 1, k));
    // The last token (`1`, cut by the 50-character rule) is ignored, not repeated.
    assert_eq!(r.count(Reason::DuplicateDependency), 0);
}

#[test]
fn alibaba_long_cycle_drops_its_job_naming_the_cycle() {
    // M1 depends on M_k, M_i on M_(i-1): one cycle through 30,000 tasks (the cycle walk
    // scanned every edge per step).
    let k = 30_000;
    let mut rows = format!("M1_{k},1,j_1,1,Terminated,100,160,1,1\n");
    for i in 2..=k {
        rows.push_str(&format!("M{i}_{},1,j_1,1,Terminated,100,160,1,1\n", i - 1));
    }
    rows.push_str("M1,1,j_2,1,Terminated,100,160,1,1\n");
    let (w, r) = ali(&rows).unwrap();
    assert_eq!(w.n_jobs(), 1);
    assert_eq!(r.count(Reason::Cycle), 1);
    let item = &r.items(Reason::Cycle)[0];
    assert!(
        item.starts_with(&format!("j_1 ({k} rows): ")),
        "{}",
        &item[..40]
    );
    assert_eq!(item.matches(" -> ").count(), k);
}

#[test]
fn alibaba_many_distinct_statuses_load() {
    // 20,000 distinct statuses (looked up by a scan of all statuses seen per row).
    let rows: String = (0..20_000)
        .map(|i| format!("task_{i},1,j_{i},1,S{i},100,160,1,1\n"))
        .collect();
    let (w, r) = ali(&rows).unwrap();
    assert_eq!(w.n_jobs(), 20_000);
    let only = alibaba::read(
        rows.as_bytes(),
        "t.csv",
        &alibaba::AlibabaOptions::default().statuses(["S7", "S19999"]),
    )
    .unwrap();
    assert_eq!(only.0.n_jobs(), 2);
    assert_eq!(r.records, 20_000);
}

// --- WfCommons -------------------------------------------------------------------------

#[test]
fn wfcommons_edge_with_many_shared_files_loads() {
    // One edge passing 40,000 files (each looked up by a scan of the child's inputs: 3.9 s
    // before), sizes 0..39,999 bytes: the edge carries their sum.
    let n = 40_000u64;
    let files: Vec<String> = (0..n).map(|i| format!("f{i}")).collect();
    let doc = wf15(
        serde_json::json!([
            {"id": "a", "parents": [], "children": ["b"], "inputFiles": [], "outputFiles": files},
            {"id": "b", "parents": ["a"], "children": [], "inputFiles": files, "outputFiles": []}
        ]),
        serde_json::Value::Array(
            (0..n)
                .map(|i| serde_json::json!({"id": format!("f{i}"), "sizeInBytes": i}))
                .collect(),
        ),
        serde_json::json!([]),
    );
    let (w, _) = wf(&doc).unwrap();
    let e: Vec<_> = w.graph().edges().collect();
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].bytes, (n * (n - 1) / 2) as f64);
}

#[test]
fn wfcommons_edge_bytes_count_each_shared_file_once() {
    // Files listed twice count once, whichever list is the longer (short lists are scanned,
    // long ones hashed).
    let many: Vec<String> = (0..40).map(|i| format!("g{i}")).collect();
    let mut outputs = vec!["x".to_string(), "x".to_string(), "y".to_string()];
    outputs.extend(many.iter().cloned());
    let mut c_inputs: Vec<String> = many.iter().chain(many.iter()).cloned().collect();
    c_inputs.push("y".into());
    let doc = wf15(
        serde_json::json!([
            {"id": "a", "children": ["b", "c"], "outputFiles": outputs},
            {"id": "b", "parents": ["a"], "inputFiles": ["x", "x", "z"]},
            {"id": "c", "parents": ["a"], "inputFiles": c_inputs}
        ]),
        serde_json::Value::Array(
            ["x", "y", "z"]
                .iter()
                .map(|f| serde_json::json!({"id": f, "sizeInBytes": 1000}))
                .chain(
                    (0..40).map(|i| serde_json::json!({"id": format!("g{i}"), "sizeInBytes": 1})),
                )
                .collect(),
        ),
        serde_json::json!([]),
    );
    let (w, _) = wf(&doc).unwrap();
    let bytes: Vec<f64> = w.graph().edges().map(|e| e.bytes).collect();
    assert_eq!(bytes, [1000.0, 1040.0]);
}

#[test]
fn wfcommons_duplicate_execution_task_is_an_error() {
    let doc = wf15(
        serde_json::json!([{"id": "a"}, {"id": "b"}]),
        serde_json::json!([]),
        serde_json::json!([
            {"id": "a", "runtimeInSeconds": 1.0},
            {"id": "b", "runtimeInSeconds": 2.0},
            {"id": "a", "runtimeInSeconds": 3.0}
        ]),
    );
    let e = wf(&doc).unwrap_err();
    assert!(matches!(e, DagError::Parse { line: 0, .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "w.json: task `a` has two entries in workflow.execution.tasks"
    );
}

#[test]
fn wfcommons_file_declared_twice_with_different_sizes_is_an_error() {
    let tasks = serde_json::json!([
        {"id": "a", "children": ["b"], "outputFiles": ["f"]},
        {"id": "b", "parents": ["a"], "inputFiles": ["f"]}
    ]);
    let exec = serde_json::json!([]);
    let e = wf(&wf15(
        tasks.clone(),
        serde_json::json!([{"id": "f", "sizeInBytes": 10}, {"id": "f", "sizeInBytes": 20}]),
        exec.clone(),
    ))
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "w.json: file `f` is declared twice in workflow.specification.files, with sizeInBytes \
         10 and 20"
    );
    // Twice with the same size (or once without a size) says one thing: accepted.
    for files in [
        serde_json::json!([{"id": "f", "sizeInBytes": 10}, {"id": "f", "sizeInBytes": 10}]),
        serde_json::json!([{"id": "f"}, {"id": "f", "sizeInBytes": 10}]),
        serde_json::json!([{"id": "f", "sizeInBytes": 10}, {"id": "f"}]),
    ] {
        let (w, r) = wf(&wf15(tasks.clone(), files, exec.clone())).unwrap();
        assert_eq!(w.graph().edges().next().unwrap().bytes, 10.0);
        assert_eq!(r.count(Reason::MissingFileSize), 0);
    }
}

#[test]
fn wfcommons_duplicate_specification_task_is_an_error() {
    let doc = wf15(
        serde_json::json!([{"id": "a"}, {"id": "a"}]),
        serde_json::json!([]),
        serde_json::json!([]),
    );
    let e = wf(&doc).unwrap_err();
    assert_eq!(e.to_string(), "w.json: job `w` has two tasks named `a`");
}

#[test]
fn wfcommons_old_layout_conflicting_file_sizes_are_reported() {
    let doc = serde_json::json!({"workflow": {"tasks": [
        {"name": "a", "runtime": 1, "children": ["b"],
         "files": [{"name": "f", "link": "output", "size": 10}]},
        {"name": "b", "runtime": 1, "parents": ["a"],
         "files": [{"name": "f", "link": "input", "size": 12}]}
    ]}});
    let (w, r) = wf(&doc).unwrap();
    assert_eq!(w.graph().edges().next().unwrap().bytes, 10.0);
    assert_eq!(
        r.items(Reason::FileSizeConflict),
        ["b: f size 12 (first given: 10)"]
    );
}

#[test]
fn wfcommons_report_of_a_long_named_task_is_linear() {
    // Old layout: a 100 KB task name, referred to by a short id by 2,000 children whose
    // edges carry no file. Each report item names the parent shortened.
    let long = "n".repeat(100_000);
    let mut tasks = vec![serde_json::json!({"name": long, "id": "p", "runtime": 1})];
    for i in 0..2_000 {
        tasks.push(serde_json::json!({"name": format!("c{i}"), "runtime": 1, "parents": ["p"]}));
    }
    let doc = serde_json::json!({"workflow": {"tasks": tasks}});
    let text = doc.to_string();
    let (w, r) = wf(&doc).unwrap();
    assert_eq!(w.graph().n_edges(), 2_000);
    assert_eq!(r.count(Reason::EdgeWithoutData), 2_000);
    assert!(r.items(Reason::EdgeWithoutData)[0].ends_with("... (100000 bytes) -> c0"));
    // Copying the name per edge would be 200 MB; shortened, about 100 bytes per edge.
    let bytes = report_bytes(&r);
    assert!(
        bytes < 2_000 * 100,
        "{bytes} report bytes for {} input bytes",
        text.len()
    );
}

// --- DAX -------------------------------------------------------------------------------

#[test]
fn dax_many_dependencies_keep_their_lines() {
    // 5,000 dependencies, then one naming an unknown job: its line is found by an index of
    // the line starts (a scan from the file's start per dependency was quadratic).
    let mut s = String::from("<adag>\n");
    for i in 0..=5_000 {
        s.push_str(&format!("<job id=\"j{i}\" runtime=\"1\"/>\n"));
    }
    for i in 1..=5_000 {
        s.push_str(&format!(
            "<child ref=\"j{i}\">\n<parent ref=\"j0\"/>\n</child>\n"
        ));
    }
    let good = format!("{s}</adag>\n");
    let (w, _) = dax::read(good.as_bytes(), "d.xml", &dax::DaxOptions::default()).unwrap();
    assert_eq!(w.graph().n_edges(), 5_000);
    let bad = format!("{s}<child ref=\"j1\">\n<parent ref=\"nope\"/>\n</child>\n</adag>\n");
    let e = dax::read(bad.as_bytes(), "d.xml", &dax::DaxOptions::default()).unwrap_err();
    let line = 2 + 5_001 + 3 * 5_000 + 1;
    assert_eq!(
        e.to_string(),
        format!("d.xml: `<child ref=\"j1\"> (line {line})` refers to unknown task `nope`")
    );
}

#[test]
fn dax_job_with_many_outputs_loads() {
    // 20,000 output files on one job (each checked against all earlier outputs before), one
    // listed twice; the child reads 3 of them.
    let mut s = String::from("<adag><job id=\"a\" runtime=\"1\">");
    for i in 0..20_000 {
        s.push_str(&format!(
            "<uses file=\"f{i}\" link=\"output\" size=\"{i}\"/>"
        ));
    }
    s.push_str("<uses file=\"f5\" link=\"output\" size=\"999\"/></job>");
    s.push_str(
        "<job id=\"b\" runtime=\"1\"><uses file=\"f5\" link=\"input\"/>\
         <uses file=\"f7\" link=\"input\"/><uses file=\"f19999\" link=\"input\"/></job>\
         <child ref=\"b\"><parent ref=\"a\"/></child></adag>",
    );
    let (w, r) = dax::read(s.as_bytes(), "d.xml", &dax::DaxOptions::default()).unwrap();
    assert_eq!(
        w.graph().edges().next().unwrap().bytes,
        (5 + 7 + 19_999) as f64
    );
    assert_eq!(r.count(Reason::MissingFileSize), 3);
}

#[test]
fn dax_element_with_many_attributes_loads_and_a_repeated_one_is_an_error() {
    let attrs: String = (0..50_000).map(|i| format!(" a{i}=\"1\"")).collect();
    let s = format!("<adag><job id=\"a\" runtime=\"2\"{attrs}/></adag>");
    let (w, _) = dax::read(s.as_bytes(), "d.xml", &dax::DaxOptions::default()).unwrap();
    assert_eq!(w.graph().task(worl_dag::TaskId::new(0)).work, 2.0);
    let s = "<adag>\n<job id=\"a\" runtime=\"2\" id=\"b\"/></adag>";
    let e = dax::read(s.as_bytes(), "d.xml", &dax::DaxOptions::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "d.xml:2: malformed attribute: attribute `id` repeated"
    );
}

// --- STG -------------------------------------------------------------------------------

#[test]
fn stg_task_with_many_predecessors_loads_and_a_repeat_is_an_error() {
    // 30,000 tasks all preceding the exit (the repeated-predecessor check compared each
    // predecessor with all earlier ones).
    let n = 30_000;
    let mut s = format!("{n}\n0 0 0\n");
    for i in 1..=n {
        s.push_str(&format!("{i} 1 1 0\n"));
    }
    let preds: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
    let good = format!("{s}{} 0 {n} {}\n", n + 1, preds.join(" "));
    let (w, r) = stg::read(good.as_bytes(), "s.stg", &stg::StgOptions::default()).unwrap();
    assert_eq!(w.graph().n_tasks(), n);
    assert_eq!(r.count(Reason::DummyEdge), 2 * n);
    let bad = format!("{s}{} 0 {n} {} 7\n", n + 1, preds[1..].join(" "));
    let e = stg::read(bad.as_bytes(), "s.stg", &stg::StgOptions::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "s.stg:{}: task {}: predecessor 7 listed twice",
            n + 3,
            n + 1
        )
    );
}

// --- DOT -------------------------------------------------------------------------------

#[test]
fn dot_long_default_attributes_apply_to_every_statement() {
    // A 100 KB default (an ignored attribute and a `size` of 100,000 digits) applies to
    // 2,000 nodes and a chain of 1,999 edges; defaults are shared, not copied per statement.
    let digits = format!("1{}", "0".repeat(99_999));
    let mut s = format!(
        "digraph g {{ node [note=\"{}\", size=\"{digits}e-99990\"]; edge [size=\"{digits}e-99999\"];\n",
        "x".repeat(100_000)
    );
    let ids: Vec<String> = (0..2_000).map(|i| format!("n{i}")).collect();
    for id in &ids {
        s.push_str(&format!("{id};\n"));
    }
    s.push_str(&ids.join(" -> "));
    s.push_str("\n}\n");
    let opts = dot::DotOptions {
        flops_per_second: 1.0,
    };
    let (w, r) = dot::read(s.as_bytes(), "g.dot", &opts).unwrap();
    assert_eq!((w.graph().n_tasks(), w.graph().n_edges()), (2_000, 1_999));
    assert_eq!(w.graph().task(worl_dag::TaskId::new(7)).work, 1e9);
    assert!(w.graph().edges().all(|e| e.bytes == 1.0));
    assert!(r.entries.is_empty());
}

#[test]
fn dot_concatenated_strings_still_join() {
    let s = "digraph { a [task=\"x\" + \"y\" + \"z\", size=1]; b [size=1]; a -> b }";
    let (w, _) = dot::read(s.as_bytes(), "g.dot", &dot::DotOptions::default()).unwrap();
    assert_eq!(w.graph().task(worl_dag::TaskId::new(0)).name, "xyz");
    for bad in [
        "digraph { + \"a\" }",
        "digraph { a [task=\"x\" + y] }",
        "digraph { a [task=\"x\" +] }",
    ] {
        let e = dot::read(bad.as_bytes(), "g.dot", &dot::DotOptions::default()).unwrap_err();
        assert!(
            e.to_string().contains("`+` must join two quoted strings"),
            "{e}"
        );
    }
}

// --- native ----------------------------------------------------------------------------

#[test]
fn native_edges_of_a_long_named_job_load() {
    // A 100 KB job name and 2,000 edges (each edge rendered its description with the job
    // name before it was needed); an unknown end still names the edge and the job.
    let job = "J".repeat(100_000);
    let tasks: Vec<_> = (0..2_001)
        .map(|i| serde_json::json!({"name": format!("t{i}"), "work": 1.0}))
        .collect();
    let mut edges: Vec<_> = (1..2_001)
        .map(|i| serde_json::json!({"from": "t0", "to": format!("t{i}"), "bytes": 0.0}))
        .collect();
    let doc = |edges: &Vec<serde_json::Value>| {
        serde_json::json!({"format": "worl-workload", "version": 1, "name": "n",
            "jobs": [{"name": job, "tasks": tasks, "edges": edges}], "links": []})
        .to_string()
    };
    let (w, _) = native::read(doc(&edges).as_bytes(), "n.json").unwrap();
    assert_eq!(w.graph().n_edges(), 2_000);
    edges.push(serde_json::json!({"from": "t0", "to": "nope", "bytes": 0.0}));
    let e = native::read(doc(&edges).as_bytes(), "n.json").unwrap_err();
    let DagError::UnknownTask {
        task,
        referenced_by,
        ..
    } = e
    else {
        panic!("{e:?}")
    };
    assert_eq!(task, format!("{job}/nope"));
    assert_eq!(referenced_by, format!("edge t0 -> nope of job {job}"));
}

// --- Names -----------------------------------------------------------------------------

#[test]
fn task_name_with_nul_is_an_error() {
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("j").unwrap();
    let e = b.add_task(j, "a\0b", 1.0, None).unwrap_err();
    assert!(
        matches!(
            &e,
            DagError::InvalidName { kind: "task", name, character: '\0', offset: 3 } if name == "j/a\0b"
        ),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "task `j/a\\0b`: the name holds the control character U+0000 at byte 3; names may not \
         hold control characters (U+0000-U+001F, U+007F-U+009F)"
    );
    // Every loader goes through the builder: the error names the file (and the line where
    // the format has one).
    let ali = alibaba::read(
        "M1,1,j_1,1,Terminated,100,160,100,0.3\nR2\0_1,1,j_1,1,Terminated,100,160,100,0.3\n"
            .as_bytes(),
        "t.csv",
        &alibaba::AlibabaOptions::default(),
    )
    .unwrap_err();
    assert!(
        ali.to_string()
            .starts_with("t.csv:2: task `j_1/R2\\0_1`: the name holds"),
        "{ali}"
    );
    let dax = dax::read(
        "<adag>\n<job id=\"a&#0;\" runtime=\"1\"/>\n</adag>".as_bytes(),
        "d.xml",
        &dax::DaxOptions::default(),
    );
    // quick-xml refuses the character reference `&#0;` itself; a raw NUL is refused by the
    // builder.
    assert!(dax.is_err());
    let raw = dax::read(
        "<adag>\n<job id=\"a\0\" runtime=\"1\"/>\n</adag>".as_bytes(),
        "d.xml",
        &dax::DaxOptions::default(),
    )
    .unwrap_err();
    assert!(
        raw.to_string().starts_with("d.xml:2: task `d/a\\0`"),
        "{raw}"
    );
    let wf = wf(&wf15(
        serde_json::json!([{"id": "x\u{0}"}]),
        serde_json::json!([]),
        serde_json::json!([]),
    ))
    .unwrap_err();
    assert!(wf.to_string().starts_with("w.json: task `w/x\\0`"), "{wf}");
    let dot = dot::read(
        "digraph {\n a [task=\"x\\ny\", size=1]\n}".as_bytes(),
        "g.dot",
        &dot::DotOptions::default(),
    )
    .unwrap_err();
    assert!(
        dot.to_string()
            .starts_with("g.dot:2: task `g/x\\ny`: the name holds the control character U+000A"),
        "{dot}"
    );
    let native = native::read(
        r#"{"format": "worl-workload", "version": 1, "name": "n",
            "jobs": [{"name": "j", "tasks": [{"name": "t\u0000", "work": 1}], "edges": []}],
            "links": []}"#
            .as_bytes(),
        "n.json",
    )
    .unwrap_err();
    assert!(
        native.to_string().starts_with("n.json: task `j/t\\0`"),
        "{native}"
    );
}

#[test]
fn job_and_workload_names_with_control_characters_are_errors() {
    let mut b = WorkloadBuilder::new("w");
    for (name, c) in [
        ("a\tb", '\t'),
        ("line\nbreak", '\n'),
        ("nel\u{85}", '\u{85}'),
        ("del\u{7f}", '\u{7f}'),
    ] {
        let e = b.add_job(name).unwrap_err();
        assert!(
            matches!(e, DagError::InvalidName { kind: "job", character, .. } if character == c),
            "{e:?}"
        );
    }
    // Other unusual characters are names like any other.
    for name in [
        "two\u{2028}lines",
        "é\u{301}",
        "\u{202E}rtl",
        "\u{FEFF}",
        " ",
    ] {
        b.add_job(name).unwrap();
    }
    let mut b = WorkloadBuilder::new("bad\rname");
    let j = b.add_job("j").unwrap();
    b.add_task(j, "t", 1.0, None).unwrap();
    let e = b.build().unwrap_err();
    assert!(
        matches!(
            e,
            DagError::InvalidName {
                kind: "workload",
                character: '\r',
                offset: 3,
                ..
            }
        ),
        "{e:?}"
    );
    // Renaming a workload checks the name as building does.
    let w = worl_dag::generators::shapes::single(1.0).unwrap();
    let e = w.clone().renamed("a\nb").unwrap_err();
    assert!(
        matches!(
            e,
            DagError::InvalidName {
                kind: "workload",
                character: '\n',
                offset: 1,
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(w.renamed("ok").unwrap().name(), "ok");
    // An Alibaba job name: the line of the job's first row.
    let e = alibaba::read(
        "M1,1,j\u{1}x,1,Terminated,100,160,100,0.3\n".as_bytes(),
        "t.csv",
        &alibaba::AlibabaOptions::default(),
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("t.csv:1: job `j\\u{1}x`"), "{e}");
}

#[test]
fn dot_many_nodes_in_a_long_named_cluster_load_and_a_cycle_names_its_line() {
    // A cluster labelled with 100 KB and 2,000 nodes (each node's `job/name` label was
    // rendered up front: 200 MB); a cycle still names the line of one of its edges.
    let label = "c".repeat(100_000);
    let mut s = format!("digraph g {{\nsubgraph cluster_a {{\nlabel=\"{label}\";\n");
    for i in 0..2_000 {
        s.push_str(&format!("n{i} [size=1];\n"));
    }
    let chain: Vec<String> = (0..2_000).map(|i| format!("n{i}")).collect();
    s.push_str(&chain.join(" -> "));
    s.push_str(";\n}\n");
    let (w, _) = dot::read(
        format!("{s}}}\n").as_bytes(),
        "g.dot",
        &dot::DotOptions::default(),
    )
    .unwrap();
    assert_eq!(w.job(worl_dag::JobId::new(0)).name, label);
    assert_eq!(w.graph().n_edges(), 1_999);
    let e = dot::read(
        format!("{s}n1999 -> n0;\n}}\n").as_bytes(),
        "g.dot",
        &dot::DotOptions::default(),
    )
    .unwrap_err();
    let DagError::Parse { line, message, .. } = e else {
        panic!("{e:?}")
    };
    // The chain is on line 2,004, the closing edge on 2,006.
    assert!(line == 2_004 || line == 2_006, "line {line}");
    assert!(
        message.starts_with("dependency cycle: "),
        "{}",
        &message[..40]
    );
}
