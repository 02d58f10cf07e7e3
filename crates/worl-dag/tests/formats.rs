//! Loaders on small hand-written fixtures (`tests/fixtures/`), one per defect kind, with the
//! report each must produce. Every expected number was worked out by hand from the fixture
//! rows (see the comments).

use std::path::PathBuf;
use worl_dag::formats::alibaba::{self, AlibabaOptions, WorkModel};
use worl_dag::formats::dax::{self, DaxOptions};
use worl_dag::formats::stg::{self, StgOptions};
use worl_dag::formats::wfcommons::{self, WfOptions};
use worl_dag::formats::{Action, Format, LoadReport, Reason, detect_format, dot, native};
use worl_dag::{DagError, REFERENCE_BANDWIDTH, Workload};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn ali(name: &str, opts: &AlibabaOptions) -> (Workload, LoadReport) {
    alibaba::load(fixture(name), opts).unwrap()
}

/// (tasks, edges, jobs)
fn size(w: &Workload) -> (usize, usize, usize) {
    (w.graph().n_tasks(), w.graph().n_edges(), w.n_jobs())
}

fn work(w: &Workload, job: &str, task: &str) -> f64 {
    w.graph().task(w.find_task(job, task).unwrap()).work
}

#[test]
fn alibaba_truncated_name_is_repaired_and_real_cycles_drop_their_job() {
    let (w, r) = ali("alibaba_cycle.csv", &AlibabaOptions::default());
    // j_1053726: the 50-character name `M5_..._100_1` was cut by the trace, so its last token
    // `1` is ignored: no cycle with R1_5; M14 -> M5 -> R1_5 kept, the 14 other ids of M5
    // (17..100) do not exist. j_77 (M2_3 <-> M3_2) and j_78 (R4_4 on itself) are cycles.
    // j_79: M1 -> R2_1.
    assert_eq!(size(&w), (5, 3, 2));
    assert_eq!(r.count(Reason::TruncatedName), 1);
    assert!(r.items(Reason::TruncatedName)[0].contains("last token `1` ignored"));
    assert_eq!(r.count(Reason::MissingDependency), 14);
    assert_eq!(r.count(Reason::Cycle), 2);
    let cycles = r.items(Reason::Cycle);
    assert!(cycles[0].starts_with("j_77 (3 rows): "), "{}", cycles[0]);
    assert!(cycles[0].contains("M2_3") && cycles[0].contains("M3_2"));
    assert_eq!(cycles[1], "j_78 (1 rows): R4_4 depends on itself");
    assert_eq!((r.records, r.records_skipped), (9, 4));
    let g = w.graph();
    let m5 = w.find_task(
        "j_1053726",
        "M5_14_17_23_26_31_44_52_58_65_71_77_84_90_95_100_1",
    );
    let r1 = w.find_task("j_1053726", "R1_5").unwrap();
    assert_eq!(g.preds(r1)[0].task, m5.unwrap());
    assert_eq!(work(&w, "j_1053726", "R1_5"), 44.0);
}

#[test]
fn alibaba_pseudo_and_missing_dependencies_are_ignored_and_reported() {
    let (w, r) = ali("alibaba_missing_refs.csv", &AlibabaOptions::default());
    // j_9395: J10 keeps 7 and 9, every `Stg<k>` token (3) is ignored. j_43420: task 1 is
    // absent: R2_1 loses its only parent, J3_1_2 keeps 2.
    assert_eq!(size(&w), (5, 3, 2));
    assert_eq!(r.count(Reason::PseudoTaskDependency), 3);
    assert_eq!(
        r.items(Reason::PseudoTaskDependency)[0],
        "j_9395/J10_7_9_Stg4 (line 1): `Stg4`"
    );
    assert_eq!(
        r.items(Reason::MissingDependency),
        [
            "j_43420/R2_1 (line 4): task 1",
            "j_43420/J3_1_2 (line 5): task 1"
        ]
    );
    let j10 = w.find_task("j_9395", "J10_7_9_Stg4").unwrap();
    let parents: Vec<&str> = w
        .graph()
        .preds(j10)
        .iter()
        .map(|p| w.graph().task(p.task).name.as_str())
        .collect();
    assert_eq!(parents, ["M9_Stg4", "M7_Stg3"]);
    assert!(r.count_action(Action::Dropped) == 0 && !r.is_clean());
}

#[test]
fn alibaba_rows_with_empty_fields_are_dropped_or_noted() {
    let (w, r) = ali("alibaba_empty_fields.csv", &AlibabaOptions::default());
    // j_585 (2 Waiting rows, times 0) and j_85 (Running, end 0) are dropped; j_642358 keeps
    // its two Running rows (one of zero duration), j_863 its two rows; 3 kept rows have
    // empty plan_cpu/plan_mem.
    assert_eq!(size(&w), (4, 2, 2));
    assert_eq!(r.count(Reason::MissingTime), 2);
    assert_eq!(
        r.items(Reason::MissingTime)[0],
        "j_585 (2 rows): task_MTM0ODUxMTY0NjQzMTI1NTc1MQ== (line 1) start_time 0 end_time 0"
    );
    assert_eq!(r.count(Reason::EmptyPlanFields), 3);
    assert_eq!(r.count(Reason::ZeroDuration), 1);
    assert_eq!(r.count(Reason::PseudoTaskDependency), 2);
    assert_eq!((r.records, r.records_skipped), (7, 3));
    // Only finished jobs: every job has a Running or Waiting task, nothing is left.
    let only = alibaba::load(
        fixture("alibaba_empty_fields.csv"),
        &AlibabaOptions::default().only_terminated(),
    );
    assert!(matches!(only, Err(DagError::Empty { .. })));
}

#[test]
fn alibaba_zero_and_negative_durations() {
    let (w, r) = ali("alibaba_durations.csv", &AlibabaOptions::default());
    // j_1 M1 and j_502 R2_1 last 0 s (-> min_duration 1 s); j_500 starts at 0 (outside the
    // window); j_501 ends 10 s before it starts.
    assert_eq!(size(&w), (3, 1, 2));
    assert_eq!(r.count(Reason::ZeroDuration), 2);
    assert_eq!(r.count(Reason::MissingTime), 1);
    assert_eq!(
        r.items(Reason::NegativeDuration),
        ["j_501 (1 rows): M1 (line 4) ends at 4990 before start 5000"]
    );
    assert_eq!(work(&w, "j_1", "M1"), 1.0);
    assert_eq!(work(&w, "j_502", "M1"), 30.0);
    assert_eq!(work(&w, "j_502", "R2_1"), 1.0);
    // instance_num multiplies: 30 s x 4 and 1 s x 2; work_scale and min_duration apply.
    let opts = AlibabaOptions::default()
        .work_model(WorkModel::DurationTimesInstances)
        .work_scale(0.5)
        .min_duration(2.0);
    let (w, _) = ali("alibaba_durations.csv", &opts);
    assert_eq!(work(&w, "j_502", "M1"), 60.0);
    assert_eq!(work(&w, "j_502", "R2_1"), 2.0);
    assert_eq!(work(&w, "j_1", "M1"), 1.0);
}

#[test]
fn alibaba_duplicate_names_and_ids() {
    let (w, r) = ali("alibaba_duplicates.csv", &AlibabaOptions::default());
    // j_900: the second R2_1 row (line 3) is skipped, J3_1_1_2 names task 1 twice;
    // edges M1->R2_1, M1->J3, R2_1->J3. j_901: M1 and R1_2 both have id 1 -> dropped.
    assert_eq!(size(&w), (3, 3, 1));
    assert_eq!(r.items(Reason::DuplicateTask), ["j_900/R2_1 (line 3)"]);
    assert_eq!(r.count(Reason::DuplicateDependency), 1);
    assert_eq!(
        r.items(Reason::DuplicateTaskId),
        ["j_901 (3 rows): M1 and R1_2 both have id 1"]
    );
    assert_eq!((r.records, r.records_skipped), (7, 4));
    // The first R2_1 row (10 s, Terminated) is the one kept.
    assert_eq!(work(&w, "j_900", "R2_1"), 10.0);
}

#[test]
fn alibaba_selection_options() {
    let path = fixture("alibaba_cycle.csv");
    let load = |o: AlibabaOptions| alibaba::load(&path, &o).unwrap();
    let (w, r) = load(AlibabaOptions::default().jobs(["j_79"]));
    assert_eq!(size(&w), (2, 1, 1));
    assert_eq!(r.count(Reason::FilteredJobName), 3);
    let (w, r) = load(AlibabaOptions::default().first_jobs(1));
    assert_eq!(w.jobs()[0].name, "j_1053726");
    assert_eq!(r.count(Reason::FilteredJobLimit), 3);
    let (w, r) = load(AlibabaOptions::default().task_range(2, 2));
    assert_eq!(w.jobs()[0].name, "j_79");
    assert_eq!(r.count(Reason::FilteredSize), 3);
    // Submission = earliest start: j_1053726 349600, j_77 100, j_78 200, j_79 300.
    let (w, r) = load(AlibabaOptions::default().submit_window(250.0, 400.0));
    assert_eq!(w.jobs()[0].name, "j_79");
    assert_eq!(r.count(Reason::FilteredSubmitTime), 3);
    // Memory from plan_mem, and a CCR hit exactly.
    let (w, _) = load(
        AlibabaOptions::default()
            .mem_gib_per_plan_mem(10.0)
            .ccr(2.5),
    );
    assert_eq!(
        w.graph().task(w.find_task("j_79", "M1").unwrap()).mem_gib,
        Some(3.0)
    );
    let ccr = w.graph().ccr(REFERENCE_BANDWIDTH).unwrap();
    assert!((ccr - 2.5).abs() < 1e-12, "{ccr}");
    let (w0, _) = load(AlibabaOptions::default().ccr(0.0));
    assert_eq!(w0.stats(1.0).unwrap().total_bytes, 0.0);
    // Same seed, same bytes; another seed, other bytes.
    let a = load(AlibabaOptions::default().seed(3)).0;
    assert_eq!(a, load(AlibabaOptions::default().seed(3)).0);
    assert_ne!(a, load(AlibabaOptions::default().seed(4)).0);
    assert!(matches!(
        alibaba::load(&path, &AlibabaOptions::default().task_range(3, 2)),
        Err(DagError::InvalidParameter {
            name: "min_tasks",
            ..
        })
    ));
}

#[test]
fn alibaba_malformed_rows_are_typed_errors_with_the_line() {
    let read = |s: &str| alibaba::read(s.as_bytes(), "mem.csv", &AlibabaOptions::default());
    match read("M1,1,j_1,1,Terminated,10,20,100,0.2\nM2,1,j_1,1,Terminated,10\n") {
        Err(DagError::Parse {
            file,
            line,
            message,
        }) => {
            assert_eq!((file.as_str(), line), ("mem.csv", 2));
            assert!(message.contains("6 fields"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        read("M1,1,j_1,1,Terminated,ten,20,100,0.2\n"),
        Err(DagError::Parse { line: 1, .. })
    ));
    assert!(matches!(
        read(",1,j_1,1,Terminated,10,20,100,0.2\n"),
        Err(DagError::Parse { line: 1, .. })
    ));
    assert!(matches!(read(""), Err(DagError::Empty { .. })));
    assert!(matches!(
        alibaba::load("/nonexistent/batch_task.csv", &AlibabaOptions::default()),
        Err(DagError::Io { .. })
    ));
}

#[test]
fn wfformat_1_4_layout_with_file_sizes_and_repairs() {
    let (w, r) = wfcommons::load(fixture("wf_1_4.json"), &WfOptions::default()).unwrap();
    // split -> left (a.dat 1000), split -> right (a.dat + b.dat 3000), left -> join
    // (la.dat 500), right -> join (rb.dat, no size: 0), split -> join (no file).
    assert_eq!(size(&w), (4, 5, 1));
    let s = w.stats(1.0).unwrap();
    assert_eq!((s.total_work, s.total_bytes), (60.0, 4500.0));
    assert_eq!(r.items(Reason::MissingRuntime), ["join"]);
    assert_eq!(r.items(Reason::MissingFileSize), ["rb.dat"]);
    assert_eq!(r.items(Reason::EdgeWithoutData), ["split -> join"]);
    assert_eq!(w.jobs()[0].name, "wf_1_4");
    let g = w.graph();
    let right = w.find_task("wf_1_4", "right").unwrap();
    assert_eq!(g.preds(right)[0].bytes, 3000.0);
    // The pre-1.3 key `jobs` holds the same tasks.
    let text = std::fs::read_to_string(fixture("wf_1_4.json")).unwrap();
    let old = text.replace("\"tasks\"", "\"jobs\"");
    let (w2, _) = wfcommons::read(old.as_bytes(), "wf_1_4.json", &WfOptions::default()).unwrap();
    assert_eq!(w2, w);
}

#[test]
fn wfformat_inconsistent_dependencies_are_a_typed_error() {
    match wfcommons::load(fixture("wf_inconsistent.json"), &WfOptions::default()) {
        Err(DagError::InconsistentDependency {
            parent,
            child,
            declared_by,
            ..
        }) => assert_eq!(
            (&*parent, &*child, &*declared_by),
            ("a_ID1", "b_ID2", "a_ID1")
        ),
        other => panic!("{other:?}"),
    }
    let unknown = r#"{"workflow": {"specification": {"tasks": [
        {"id": "a", "parents": ["ghost"], "children": []}]}}}"#;
    assert!(matches!(
        wfcommons::read(unknown.as_bytes(), "u.json", &WfOptions::default()),
        Err(DagError::UnknownTask { task, referenced_by, .. }) if task == "ghost" && referenced_by == "a"
    ));
    assert!(matches!(
        wfcommons::read(&b"{\"workflow\": {}}"[..], "e.json", &WfOptions::default()),
        Err(DagError::Parse { .. })
    ));
    assert!(matches!(
        wfcommons::read(
            &b"{\n\"workflow\": [}"[..],
            "bad.json",
            &WfOptions::default()
        ),
        Err(DagError::Parse { line: 2, .. })
    ));
}

#[test]
fn dax_files_edges_and_count_attributes() {
    let (w, r) = dax::load(fixture("dax_small.xml"), &DaxOptions::default()).unwrap();
    // ID1 -> ID2: a (400) + b (no size, 0); ID2 -> ID3: c (50); ID1 -> ID3: no file.
    assert_eq!(size(&w), (3, 3, 1));
    let s = w.stats(1.0).unwrap();
    assert_eq!((s.total_work, s.total_bytes), (12.5, 450.0));
    assert_eq!(r.items(Reason::DuplicateDependency), ["ID1 -> ID2"]);
    assert_eq!(r.items(Reason::MissingFileSize), ["ID1: b", "ID2: b"]);
    assert_eq!(r.items(Reason::MissingRuntime), ["ID3"]);
    assert_eq!(r.items(Reason::EdgeWithoutData), ["ID1 -> ID3"]);
    assert_eq!(
        r.items(Reason::CountMismatch),
        ["jobCount=\"5\" but 3 <job> elements"]
    );
    let bad = r#"<adag><job id="a" runtime="1"/><child ref="a"><parent ref="zz"/></child></adag>"#;
    assert!(matches!(
        dax::read(bad.as_bytes(), "b.xml", &DaxOptions::default()),
        Err(DagError::UnknownTask { task, .. }) if task == "zz"
    ));
    assert!(matches!(
        dax::read(
            &b"<adag>\n<job id=\"a\" runtime=\"x\"/></adag>"[..],
            "b.xml",
            &DaxOptions::default()
        ),
        Err(DagError::Parse { line: 2, .. })
    ));
}

#[test]
fn stg_with_communication_costs() {
    let (w, r) = stg::load(fixture("stg_comm.stg"), &StgOptions::default()).unwrap();
    // T1..T4 (dummies T0, T5 removed with edges 0->1 and 4->5); costs 3+4+5+2.
    assert_eq!(size(&w), (4, 4, 1));
    assert_eq!(r.items(Reason::DummyTask), ["T0 (entry)", "T5 (exit)"]);
    assert_eq!(r.items(Reason::DummyEdge), ["T0 -> T1", "T4 -> T5"]);
    let g = w.graph();
    let s = w.stats(REFERENCE_BANDWIDTH).unwrap();
    assert_eq!(s.total_work, 14.0);
    assert_eq!(s.total_bytes, 10.0 * REFERENCE_BANDWIDTH);
    // With communication at the reference bandwidth: T1 3 + 1 + T3 5 + 4 + T4 2 = 15 (the
    // file's trailer); without: 3 + 5 + 2 = 10.
    let cp = g.critical_path(|t| g.task(t).work, |_, _, b| b / REFERENCE_BANDWIDTH);
    assert_eq!(cp.length, 15.0);
    assert_eq!(s.critical_path_work, 10.0);
    let (kept, r) = stg::load(
        fixture("stg_comm.stg"),
        &StgOptions {
            keep_dummies: true,
            ..StgOptions::default()
        },
    )
    .unwrap();
    assert_eq!(size(&kept), (6, 6, 1));
    assert!(r.entries.is_empty());
}

#[test]
fn stg_header_counting_dummies_and_bad_files() {
    let (w, r) = stg::load(fixture("stg_header_dummies.stg"), &StgOptions::default()).unwrap();
    assert_eq!(size(&w), (2, 1, 1));
    assert_eq!(r.count(Reason::HeaderCountsDummies), 1);
    assert_eq!(w.stats(1.0).unwrap().total_work, 15.0);
    let read = |s: &str| stg::read(s.as_bytes(), "m.stg", &StgOptions::default());
    // Mixed variants, bad count, unknown predecessor, too few lines.
    assert!(matches!(
        read("3\n0 0 0\n1 2 1 0\n2 2 1 1 5\n3 1 1 2\n4 0 1 3\n"),
        Err(DagError::Parse { line: 4, .. })
    ));
    assert!(matches!(
        read("1\n0 0 0\n1 2 1 0 7 9\n2 0 1 1\n"),
        Err(DagError::Parse { line: 3, .. })
    ));
    assert!(matches!(
        read("1\n0 0 0\n1 2 1 9\n2 0 1 1\n"),
        Err(DagError::UnknownTask { task, .. }) if task == "T9"
    ));
    assert!(matches!(
        read("5\n0 0 0\n1 2 1 0\n"),
        Err(DagError::Parse { line: 1, .. })
    ));
    assert!(matches!(
        read("# only comments\n"),
        Err(DagError::Parse { .. })
    ));
}

#[test]
fn native_round_trip_and_hand_written_file() {
    let (w, r) = native::load(fixture("native_hand.json")).unwrap();
    assert!(r.is_clean() && r.entries.is_empty());
    assert_eq!(size(&w), (3, 2, 2));
    let m1 = w.find_task("j2", "M1").unwrap();
    assert_eq!(w.graph().preds(m1)[0].bytes, 5.0);
    assert_eq!(
        w.graph().task(w.find_task("j1", "R2_1").unwrap()).mem_gib,
        Some(8.0)
    );
    let text = native::to_string(&w).unwrap();
    let (back, _) = native::read(text.as_bytes(), "x").unwrap();
    assert_eq!(back, w);
    assert_eq!(native::to_string(&back).unwrap(), text);
    let dir = std::env::temp_dir().join(format!("worl-dag-native-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("w.json");
    native::save(&w, &path).unwrap();
    assert_eq!(detect_format(&path).unwrap(), Format::Native);
    assert_eq!(worl_dag::load_path(&path).unwrap().0, w);
    std::fs::remove_dir_all(&dir).unwrap();
    // Version and id errors.
    let v2 = text.replace("\"version\": 1", "\"version\": 2");
    assert!(matches!(
        native::read(v2.as_bytes(), "v2"),
        Err(DagError::Parse { .. })
    ));
    let dup = text.replace("\"id\": 1", "\"id\": 0");
    assert!(matches!(
        native::read(dup.as_bytes(), "d"),
        Err(DagError::Parse { .. })
    ));
}

#[test]
fn dot_export_names_tasks_work_and_bytes() {
    let (w, _) = native::load(fixture("native_hand.json")).unwrap();
    let text = dot::to_dot(&w);
    assert!(text.starts_with("digraph \"hand\" {"));
    assert!(text.contains("subgraph cluster_1 {\n    label=\"j2\";"));
    assert!(text.contains("t1 [label=\"R2_1\\n2.000 s\"];"));
    assert!(text.contains("t0 -> t1 [label=\"1.00e6 B\"];"));
    assert!(text.contains("t1 -> t2 [label=\"5.00e0 B\"];"));
    assert_eq!(text.matches("->").count(), 2);
}

#[test]
fn format_detection_by_extension() {
    assert_eq!(detect_format("a/b.CSV").unwrap(), Format::Alibaba);
    assert_eq!(detect_format("x.dax").unwrap(), Format::Dax);
    assert_eq!(detect_format("x.stg").unwrap(), Format::Stg);
    assert_eq!(
        detect_format(fixture("wf_1_4.json")).unwrap(),
        Format::WfFormat
    );
    assert!(matches!(
        detect_format("x.yaml"),
        Err(DagError::Parse { .. })
    ));
    let (w, _) = worl_dag::load_path(fixture("dax_small.xml")).unwrap();
    assert_eq!(w.name(), "dax_small");
}
