//! The DOT reader: DAGGEN and dslab-dag files with hand-computed values, the DOT features it
//! accepts, lossless round trips of worl's own export, and its errors with file and line.

use std::path::PathBuf;
use worl_dag::formats::dot::{self, DotOptions};
use worl_dag::formats::{self, Format, LoadReport, Reason};
use worl_dag::generators::alibaba_like::{AlibabaLikeParams, alibaba_like};
use worl_dag::generators::layered::{LayeredParams, layered};
use worl_dag::{DagError, TaskId, Workload, WorkloadBuilder};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/dot")
        .join(name)
}

fn read_str(text: &str, source: &str) -> worl_dag::Result<(Workload, LoadReport)> {
    dot::read(text.as_bytes(), source, &DotOptions::default())
}

/// (job name, task name, work, memory) of every task, in id order.
fn tasks(w: &Workload) -> Vec<(String, String, f64, Option<f64>)> {
    w.graph()
        .tasks()
        .map(|(_, t)| {
            (
                w.jobs()[t.job.index()].name.clone(),
                t.name.clone(),
                t.work,
                t.mem_gib,
            )
        })
        .collect()
}

/// (parent, child, bytes) of every edge, by task name.
fn edges(w: &Workload) -> Vec<(String, String, f64)> {
    w.graph()
        .edges()
        .map(|e| {
            (
                w.graph().task(e.from).name.clone(),
                w.graph().task(e.to).name.clone(),
                e.bytes,
            )
        })
        .collect()
}

/// Asserts that two workloads are identical: name, jobs with their task ids, and every
/// task and edge with bit-identical numbers.
fn assert_identical(a: &Workload, b: &Workload) {
    assert_eq!(a.name(), b.name());
    assert_eq!(a.jobs(), b.jobs());
    assert_eq!(a.graph().n_tasks(), b.graph().n_tasks());
    for (id, t) in a.graph().tasks() {
        let u = b.graph().task(id);
        assert_eq!((&t.name, t.job), (&u.name, u.job), "task {id:?}");
        assert_eq!(t.work.to_bits(), u.work.to_bits(), "work of {id:?}");
        assert_eq!(
            t.mem_gib.map(f64::to_bits),
            u.mem_gib.map(f64::to_bits),
            "memory of {id:?}"
        );
    }
    let ea: Vec<_> = a
        .graph()
        .edges()
        .map(|e| (e.from, e.to, e.bytes.to_bits()))
        .collect();
    let eb: Vec<_> = b
        .graph()
        .edges()
        .map(|e| (e.from, e.to, e.bytes.to_bits()))
        .collect();
    assert_eq!(ea, eb);
}

/// Writes `w` with `to_dot`, reads it back, and checks the result is identical; returns it.
fn round_trip(w: &Workload) -> Workload {
    let text = dot::to_dot(w);
    let (back, report) = read_str(&text, "export.dot").unwrap();
    assert_identical(w, &back);
    assert!(report.is_clean(), "{report}");
    assert_eq!(report.records, w.graph().n_tasks());
    back
}

#[test]
fn daggen_output_sizes_are_flops_and_bytes() {
    let (w, report) = dot::load(fixture("daggen_small.dot"), &DotOptions::default()).unwrap();
    assert_eq!(w.name(), "G");
    assert_eq!(report.format, "graphviz-dot");
    assert_eq!(report.records, 4);
    assert!(report.is_clean(), "{report}");
    // work = size / 15.7e12 FLOP/s (the reference V100's FP32 peak).
    let job = "daggen_small".to_string();
    assert_eq!(
        tasks(&w),
        vec![
            (job.clone(), "1".into(), 1.0, None),
            (job.clone(), "2".into(), 2.0, None),
            (job.clone(), "3".into(), 0.5, None),
            (job, "4".into(), 0.1, None),
        ]
    );
    // bytes = data_size^2 * 8 with data_size 1024 and 2048.
    assert_eq!(
        edges(&w),
        vec![
            ("1".into(), "2".into(), 8_388_608.0),
            ("1".into(), "3".into(), 8_388_608.0),
            ("2".into(), "4".into(), 33_554_432.0),
            ("3".into(), "4".into(), 33_554_432.0),
        ]
    );
    // A unit option: 1 GFLOP/s makes the first task 15700 s.
    let opts = DotOptions {
        flops_per_second: 1e9,
    };
    let (w2, _) = dot::load(fixture("daggen_small.dot"), &opts).unwrap();
    assert_eq!(w2.graph().task(TaskId::new(0)).work, 15_700.0);
    // Read -> write -> read gives the same workload.
    round_trip(&w);
}

#[test]
fn dslab_dag_labels_name_tasks_and_sizes_are_flops_and_bytes() {
    let opts = DotOptions {
        flops_per_second: 1e9,
    };
    let (w, report) = dot::load(fixture("dslab_small.dot"), &opts).unwrap();
    assert_eq!(w.name(), "montage");
    let job = "dslab_small".to_string();
    assert_eq!(
        tasks(&w),
        vec![
            (job.clone(), "prepare".into(), 2.0, None),
            (job.clone(), "project_1".into(), 50.0, None),
            (job.clone(), "project_2".into(), 30.0, None),
            (job, "merge".into(), 1.5, None),
        ]
    );
    assert_eq!(
        edges(&w),
        vec![
            ("prepare".into(), "project_1".into(), 1e6),
            ("prepare".into(), "project_2".into(), 1e6),
            ("project_1".into(), "merge".into(), 2_500_000.5),
            ("project_2".into(), "merge".into(), 0.0),
        ]
    );
    // An explicit size 0 is data, not a missing size.
    assert!(report.is_clean(), "{report}");
    round_trip(&w);
}

#[test]
fn dot_features_clusters_defaults_chains_comments_and_quoting() {
    let (w, report) = dot::load(fixture("syntax.dot"), &DotOptions::default()).unwrap();
    assert_eq!(w.name(), "syntax test");
    let names: Vec<&str> = w.jobs().iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["preparation", "train", "syntax"]);
    assert_eq!(
        tasks(&w),
        vec![
            ("preparation".into(), "in put".into(), 2.5, Some(16.0)),
            ("preparation".into(), "load".into(), 1e12 / 15.7e12, None),
            ("train".into(), "step 1".into(), 3e12 / 15.7e12, None),
            ("train".into(), "step 2".into(), 3e12 / 15.7e12, None),
            ("syntax".into(), "<b>report</b>".into(), 0.0, None),
        ]
    );
    // Edges come grouped by parent id, children by id.
    assert_eq!(
        edges(&w),
        vec![
            ("in put".into(), "load".into(), 4096.0),
            ("load".into(), "step 1".into(), 2048.0),
            ("load".into(), "step 2".into(), 0.0),
            ("step 1".into(), "step 2".into(), 100.0),
            ("step 2".into(), "<b>report</b>".into(), 100.0),
        ]
    );
    assert_eq!(report.items(Reason::EdgeWithoutData), ["load -> s2"]);
    assert_eq!(report.records, 5);
    round_trip(&w);
}

#[test]
fn worl_export_round_trips_generated_workloads() {
    for seed in 0..4 {
        let p = LayeredParams::new(60).ccr(1.0, worl_dag::REFERENCE_BANDWIDTH);
        round_trip(&layered(&p, seed).unwrap());
        let w = alibaba_like(&AlibabaLikeParams::new(5), seed).unwrap();
        assert_eq!(w.n_jobs(), 5);
        round_trip(&w);
    }
}

#[test]
fn worl_export_round_trips_odd_names_memory_and_interleaved_jobs() {
    let mut b = WorkloadBuilder::new("odd \"name\"");
    let j1 = b.add_job("job \\ one").unwrap();
    let empty = b.add_job("empty").unwrap();
    // A line separator (U+2028) is no control character: allowed (a line feed is not).
    let j2 = b.add_job("two\u{2028}lines").unwrap();
    let a = b
        .add_task(j2, "a \"quoted\"", 1.0 / 3.0, Some(0.5))
        .unwrap();
    let c = b.add_task(j1, "c", 1e-300, None).unwrap();
    let d = b.add_task(j2, "d\\n", 0.0, Some(80.0)).unwrap();
    let e = b.add_task(j1, "e->f", 7e20, None).unwrap();
    b.add_edge(a, c, 0.1).unwrap();
    b.add_edge(c, d, 0.0).unwrap();
    b.add_edge(a, e, 1e30).unwrap();
    let w = b.build().unwrap();
    let back = round_trip(&w);
    assert_eq!(back.job(empty).name, "empty");
    assert!(back.job(empty).tasks.is_empty());
    assert_eq!(back.graph().task(d).name, "d\\n");
    // Writing the read workload gives the same text.
    assert_eq!(dot::to_dot(&back), dot::to_dot(&w));
}

#[test]
fn load_path_reads_dot_and_gv_files() {
    assert_eq!(formats::detect_format("a/b.dot").unwrap(), Format::Dot);
    assert_eq!(formats::detect_format("a/b.GV").unwrap(), Format::Dot);
    let (w, _) = formats::load_path(fixture("daggen_small.dot")).unwrap();
    assert_eq!(w.graph().n_tasks(), 4);
    let dir = std::env::temp_dir().join(format!("worl-dag-dot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("w.gv");
    let g = layered(&LayeredParams::new(20), 7).unwrap();
    dot::save_dot(&g, &path).unwrap();
    let (back, _) = formats::load_path(&path).unwrap();
    assert_identical(&g, &back);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The error message of reading `text` as `bad.dot`.
fn error(text: &str) -> String {
    match read_str(text, "dir/bad.dot") {
        Ok(_) => panic!("read succeeded:\n{text}"),
        Err(e) => {
            assert!(
                matches!(e, DagError::Parse { .. }),
                "not a parse error: {e:?}"
            );
            e.to_string()
        }
    }
}

#[test]
fn structural_errors_name_file_and_line() {
    assert_eq!(
        error("digraph {\n a [size=1]\n b [size=1]\n a -> b\n b -> a\n}"),
        "dir/bad.dot:5: dependency cycle: bad/b -> bad/a -> bad/b"
    );
    assert_eq!(
        error("digraph {\n a [size=1]\n a -> a [size=3]\n}"),
        "dir/bad.dot:3: task `bad/a` depends on itself"
    );
    assert_eq!(
        error("digraph {\n a [size=1]\n\n a [size=2]\n}"),
        "dir/bad.dot:4: node `a` declared twice (first on line 2)"
    );
    assert_eq!(
        error("digraph {\n a [size=1]\n a -> b\n}"),
        "dir/bad.dot:3: edge `a` -> `b`: node `b` is not declared (every node needs a node \
         statement with its `size` or `work`)"
    );
    assert_eq!(
        error("digraph {\n a [size=1]\n b [size=1]\n a -> b\n a -> b [size=2]\n}"),
        "dir/bad.dot:5: edge `a` -> `b` repeated (first on line 4)"
    );
    assert_eq!(
        error("digraph {\n a [label=\"x\", size=1]\n b [label=x, size=1]\n}"),
        "dir/bad.dot:3: job `bad` has two tasks named `x`"
    );
    assert_eq!(
        error("graph {\n a -- b\n}"),
        "dir/bad.dot:1: undirected `graph`: a workload is read from a `digraph` (edges `a -> b`)"
    );
    assert_eq!(
        error("digraph {\n a [size=1]\n b [size=1]\n a -- b\n}"),
        "dir/bad.dot:4: undirected edge `--` in a digraph: use `->`"
    );
    assert_eq!(
        error("digraph {\n a [size=1]\n a -> { b c }\n}"),
        "dir/bad.dot:3: a subgraph as an edge end is not supported"
    );
    assert_eq!(
        error("digraph { a [size=1] }\ndigraph { b [size=1] }"),
        "dir/bad.dot:2: expected the end of the file after the graph, found `digraph` (one \
         graph per file)"
    );
}

#[test]
fn value_errors_name_file_line_and_item() {
    assert_eq!(
        error("digraph {\n a [size=\"abc\"]\n}"),
        "dir/bad.dot:2: node `a`: size `abc` is not a finite number >= 0 (FLOP)"
    );
    assert_eq!(
        error("digraph {\n a [size=-5]\n}"),
        "dir/bad.dot:2: node `a`: size `-5` is not a finite number >= 0 (FLOP)"
    );
    assert_eq!(
        error("digraph {\n\n a [size=NaN]\n}"),
        "dir/bad.dot:3: node `a`: size `NaN` is not a finite number >= 0 (FLOP)"
    );
    assert_eq!(
        error("digraph {\n a [work=inf, size=1]\n}"),
        "dir/bad.dot:2: node `a`: work `inf` is not a finite number >= 0 (reference GPU-seconds)"
    );
    assert_eq!(
        error("digraph {\n a [size=1, mem_gib=0]\n}"),
        "dir/bad.dot:2: node `a`: mem_gib `0` is not a finite number > 0 (GiB)"
    );
    assert_eq!(
        error("digraph {\n a [shape=box]\n}"),
        "dir/bad.dot:2: node `a` has neither `size` (FLOP) nor `work` (reference GPU-seconds)"
    );
    assert_eq!(
        error("digraph {\n a [size=1]\n b [size=1]\n a -> b [size=\"-1\"]\n}"),
        "dir/bad.dot:4: edge `a` -> `b`: size `-1` is not a finite number >= 0 (bytes)"
    );
    assert_eq!(
        error("digraph {\n a [size=1]\n b [size=1]\n a -> b [bytes=x, size=3]\n}"),
        "dir/bad.dot:4: edge `a` -> `b`: bytes `x` is not a finite number >= 0 (bytes)"
    );
    // A size that overflows once divided by a tiny FLOP rate.
    let e = dot::read(
        "digraph {\n a [size=1e300]\n}".as_bytes(),
        "o.dot",
        &DotOptions {
            flops_per_second: 1e-10,
        },
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "o.dot:2: task `o/a`: work inf is not a finite number >= 0 (reference GPU-seconds)"
    );
}

#[test]
fn syntax_errors_name_file_and_line() {
    assert_eq!(
        error("digraph {\n a [size=\"1]\n}"),
        "dir/bad.dot:2: unterminated quoted string"
    );
    assert_eq!(
        error("digraph {\n /* open\n a [size=1]\n}"),
        "dir/bad.dot:2: unterminated `/*` comment"
    );
    assert_eq!(
        error("digraph {\n a [size=1]\n"),
        "dir/bad.dot:2: missing `}`: the file ends inside a block"
    );
    assert_eq!(
        error("digraph {\n a [size]\n}"),
        "dir/bad.dot:2: attribute `size` has no value (expected `=`, found `]`)"
    );
    assert_eq!(
        error("digraph {\n a [size=1] @\n}"),
        "dir/bad.dot:2: unexpected character `@`"
    );
    assert_eq!(
        error("// only a comment\n"),
        "dir/bad.dot:1: empty file: no digraph"
    );
    assert_eq!(
        error("digraph {\n a [size=1]\n b -> ;\n}"),
        "dir/bad.dot:3: expected a node ID after `->`, found `;`"
    );
    assert_eq!(
        error("digraph {\n a [label=\"x\" + y, size=1]\n}"),
        "dir/bad.dot:2: `+` must join two quoted strings"
    );
    assert_eq!(
        error("digraph g g {}"),
        "dir/bad.dot:1: expected `{` opening the graph, found `g`"
    );
}

#[test]
fn bad_options_empty_graphs_and_missing_files_are_typed_errors() {
    let bad = DotOptions {
        flops_per_second: 0.0,
    };
    assert!(matches!(
        dot::read("digraph { a [size=1] }".as_bytes(), "x.dot", &bad),
        Err(DagError::InvalidParameter {
            name: "flops_per_second",
            ..
        })
    ));
    assert!(matches!(
        read_str("digraph g { }", "x.dot"),
        Err(DagError::Empty { workload }) if workload == "g"
    ));
    assert!(matches!(
        dot::load(fixture("absent.dot"), &DotOptions::default()),
        Err(DagError::Io { .. })
    ));
    let e = dot::read(
        &b"digraph { a [size=1] }\xff"[..],
        "u.dot",
        &DotOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "u.dot:1: invalid UTF-8");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let text = format!("digraph {{\n{}", "{".repeat(100_000));
    assert_eq!(
        error(&text),
        "dir/bad.dot:2: subgraphs nested more than 100 deep"
    );
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Bytes that matter to the DOT lexer and parser.
    const PIECES: &[u8] = b" ->[]{};=\",\n/*#<>-0.5eAz\\";

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn reader_never_panics_on_arbitrary_bytes(
            bytes in prop::collection::vec(any::<u8>(), 0..400)
        ) {
            let _ = dot::read(&bytes[..], "fuzz.dot", &DotOptions::default());
        }

        #[test]
        fn reader_never_panics_on_mutated_exports(
            seed in 0u64..1000,
            edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        ) {
            let w = layered(&LayeredParams::new(8), seed).unwrap();
            let mut bytes = dot::to_dot(&w).into_bytes();
            for (at, b) in edits {
                let i = at.index(bytes.len());
                bytes[i] = PIECES[b as usize % PIECES.len()];
            }
            let _ = dot::read(&bytes[..], "fuzz.dot", &DotOptions::default());
        }

        #[test]
        fn export_round_trips_any_layered_workload(seed in 0u64..10_000, n in 1usize..40) {
            let w = layered(&LayeredParams::new(n), seed).unwrap();
            round_trip(&w);
        }
    }
}

#[test]
fn daggen_fork_root_and_end_nodes_are_kept_as_zero_work_tasks() {
    // DAGGEN forks write a zero-size `root` (and an end node) with size-less edges; DOT has
    // no dummy rule (unlike STG), so they load as tasks of work 0, their edges noted.
    let text = "digraph G {\n  0 [label=root,size=\"0\",alpha=\"0\"]\n  0 -> 1 [label = \"0\"]\n  \
                1 [size=\"15700000000000\", alpha=\"0.05\"]\n  1 -> 2 [size =\"8\"]\n  \
                2 [size=\"31400000000000\", alpha=\"0.12\"]\n  3 [label=end,size=\"0\"]\n  \
                2 -> 3 [label = \"0\"]\n}\n";
    let (w, r) = read_str(text, "fork.dot").unwrap();
    assert_eq!(
        tasks(&w),
        [
            ("fork".into(), "root".into(), 0.0, None),
            ("fork".into(), "1".into(), 1.0, None),
            ("fork".into(), "2".into(), 2.0, None),
            ("fork".into(), "end".into(), 0.0, None),
        ]
    );
    assert_eq!(w.graph().n_edges(), 3);
    assert_eq!(r.items(Reason::EdgeWithoutData), ["0 -> 1", "2 -> 3"]);
}
