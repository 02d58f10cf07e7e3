//! The Alibaba GPU-trace loaders: the v2023 pod lists (`formats::openb`) and the PAI v2020
//! derived task table (`formats::pai`), on hand-made rows and on the real files of
//! `shared/data` (skipped with a notice when the directory is absent, failing under
//! `CI=true`), and their detection by header.

use std::path::PathBuf;
use worl_dag::formats::{self, Action, CsvTrace, Reason, alibaba, openb, pai};
use worl_dag::{DagError, Workload, datasets};

fn data(rel: &str) -> Option<PathBuf> {
    datasets::data_file(rel).unwrap()
}

const POD_HEADER: &str = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,\
                          creation_time,deletion_time,scheduled_time";

fn pods(rows: &str) -> String {
    format!("{POD_HEADER}\n{rows}")
}

fn parse_error<T: std::fmt::Debug>(r: Result<T, DagError>) -> String {
    match r {
        Err(e @ DagError::Parse { .. }) => e.to_string(),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn pods_map_to_gang_tasks_with_releases_and_skips_reported() {
    let text = pods(
        "a,1,1,2,1000,,LS,Running,50,150,60\n\
         b,1,1,0,0,,BE,Running,40,100,40\n\
         c,1,1,1,250,,LS,Failed,70,90,80\n\
         d,1,1,4,1000,,LS,Pending,30,35,\n\
         e,1,1,1,1000,,LS,Failed,80,70,75\n\
         f,1,1,8,1000,V100M16|V100M32,LS,Succeeded,45,1045,45\n",
    );
    let (w, r) = openb::read(text.as_bytes(), "pods.csv", &Default::default()).unwrap();
    assert_eq!(w.name(), "pods");
    // a, c, f loaded, in file order; one job of one task each, named after the pod.
    let jobs: Vec<&str> = w.jobs().iter().map(|j| j.name.as_str()).collect();
    assert_eq!(jobs, ["a", "c", "f"]);
    let g = w.graph();
    let task = |name: &str| g.task(w.find_task(name, name).unwrap());
    // work = (deletion - scheduled) * num_gpu
    assert_eq!((task("a").gpus, task("a").work), (2, 180.0));
    assert_eq!((task("c").gpus, task("c").work), (1, 10.0));
    assert_eq!((task("f").gpus, task("f").work), (8, 8000.0));
    // release = creation - min creation over loaded pods (45, f's)
    let rel: Vec<f64> = w.jobs().iter().map(|j| j.release).collect();
    assert_eq!(rel, [5.0, 25.0, 0.0]);
    assert!(w.has_gangs());
    assert_eq!(
        (r.format, r.records, r.records_skipped),
        (openb::FORMAT, 6, 3)
    );
    assert_eq!(r.items(Reason::NoGpu), ["b (line 3)"]);
    assert_eq!(
        r.items(Reason::NoRunTime),
        [
            "d (line 5): scheduled_time empty",
            "e (line 6): deletion_time 70 < scheduled_time 75"
        ]
    );
    assert_eq!(r.items(Reason::SharedGpu), ["c (line 4): gpu_milli 250"]);
    assert_eq!(Reason::NoGpu.action(), Action::Dropped);
    assert_eq!(Reason::SharedGpu.action(), Action::Noted);
    // Every row is a task or skipped.
    assert_eq!(r.records, g.n_tasks() + r.records_skipped);
}

#[test]
fn bad_pod_rows_name_file_line_and_pod() {
    let cases = [
        (
            "a,1,1,1.5,1000,,LS,Running,0,1,0",
            "pods.csv:2: pod `a`: num_gpu 1.5 is not a whole number of GPUs",
        ),
        (
            "a,1,1,-1,1000,,LS,Running,0,1,0",
            "pods.csv:2: pod `a`: num_gpu = -1; a task needs at least 1 GPU",
        ),
        (
            "a,1,1,abc,1000,,LS,Running,0,1,0",
            "pods.csv:2: pod `a`: num_gpu `abc` is not a finite number",
        ),
        (
            "a,1,1,5000,1000,,LS,Running,0,1,0",
            "pods.csv:2: pod `a`: num_gpu = 5000 is more than 4096, the most one task may demand",
        ),
        (
            "a,1,1,1,1000,,LS,Running,x,1,0",
            "pods.csv:2: pod `a`: creation_time `x` is not a finite number",
        ),
        (
            "a,1,1,1,-5,,LS,Running,0,1,0",
            "pods.csv:2: pod `a`: gpu_milli -5 is negative",
        ),
        (
            ",1,1,1,1000,,LS,Running,0,1,0",
            "pods.csv:2: empty pod name",
        ),
        (
            "a,1,1,1,1000,,LS,Running,0,1",
            "pods.csv:2: 10 fields, expected 11 as in the header",
        ),
        (
            "a,1,1,1,1000,,LS,Running,0,1,0\na,1,1,1,1000,,LS,Running,0,1,0",
            "pods.csv:3: pod `a` is listed twice (first on line 2)",
        ),
    ];
    for (rows, message) in cases {
        let e = parse_error(openb::read(
            pods(rows).as_bytes(),
            "pods.csv",
            &Default::default(),
        ));
        assert_eq!(e, message, "{rows}");
    }
    let e = parse_error(openb::read(
        "name,num_gpu\n".as_bytes(),
        "p.csv",
        &Default::default(),
    ));
    assert_eq!(
        e,
        "p.csv:1: no column `creation_time` in the header (columns: name,num_gpu)"
    );
    // Nothing left: a typed error, not an empty workload.
    let e = openb::read(
        pods("b,1,1,0,0,,BE,Running,40,100,40\n").as_bytes(),
        "p.csv",
        &Default::default(),
    );
    assert!(matches!(e, Err(DagError::Empty { .. })), "{e:?}");
}

const PAI_HEADER: &str = ",job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,\
                          plan_mem,plan_gpu,gpu_type,runtime,runtime_T4,runtime_P100,runtime_V100";

fn pai_rows(rows: &str) -> String {
    format!("{PAI_HEADER}\n{rows}")
}

#[test]
fn pai_rows_map_to_jobs_with_gangs_renames_and_releases() {
    let text = pai_rows(
        "0,j1,ResNet50,8.0,Terminated,1000.0,2000.0,600.0,29.3,100.0,V100,1000.0,1900.0,1700.0,1000.0\n\
         1,j2,BERT,1.0,Terminated,900.0,1000.0,600.0,29.3,50.0,T4,100.0,100.0,90.0,40.0\n\
         2,j1,ResNet50,2.0,Terminated,1100.0,1200.0,600.0,29.3,100.0,P100,100.0,110.0,100.0,60.0\n\
         3,j1,ResNet50-2,1.0,Terminated,1200.0,1300.0,600.0,29.3,100.0,P100,100.0,110.0,100.0,70.0\n\
         4,j3,VGG19,1.0,Terminated,,1300.0,600.0,29.3,100.0,P100,100.0,110.0,100.0,70.0\n\
         5,j1,ResNet50,1.0,Terminated,1300.0,1400.0,600.0,29.3,100.0,P100,100.0,110.0,100.0,80.0\n",
    );
    let (w, r) = pai::read(text.as_bytes(), "case.csv", &Default::default()).unwrap();
    let jobs: Vec<(&str, f64)> = w
        .jobs()
        .iter()
        .map(|j| (j.name.as_str(), j.release))
        .collect();
    // Releases: each job's earliest start minus the earliest start (900, j2's).
    assert_eq!(jobs, [("j1", 100.0), ("j2", 0.0)]);
    let g = w.graph();
    let t = |name: &str| g.task(w.find_task("j1", name).unwrap());
    assert_eq!((t("ResNet50").gpus, t("ResNet50").work), (8, 8000.0));
    assert_eq!((t("ResNet50-3").gpus, t("ResNet50-3").work), (2, 120.0));
    assert_eq!((t("ResNet50-2").gpus, t("ResNet50-2").work), (1, 70.0));
    assert_eq!((t("ResNet50-4").gpus, t("ResNet50-4").work), (1, 80.0));
    assert_eq!(g.n_tasks(), 5);
    assert_eq!(
        r.items(Reason::RenamedTask),
        [
            "j1/ResNet50 (line 4) -> j1/ResNet50-3",
            "j1/ResNet50 (line 7) -> j1/ResNet50-4"
        ]
    );
    assert_eq!(
        r.items(Reason::NoRunTime),
        ["j3/VGG19 (line 6): start_time empty"]
    );
    assert_eq!(
        r.items(Reason::SharedGpu),
        ["j2/BERT (line 3): plan_gpu 50"]
    );
    assert_eq!((r.records, r.records_skipped), (6, 1));
    // Another run-time column.
    let opts = pai::PaiOptions {
        runtime_column: "runtime_T4".into(),
        ..Default::default()
    };
    let (w, _) = pai::read(text.as_bytes(), "case.csv", &opts).unwrap();
    assert_eq!(
        w.graph().task(w.find_task("j1", "ResNet50").unwrap()).work,
        8.0 * 1900.0
    );
}

#[test]
fn bad_pai_rows_name_file_line_and_task() {
    let row = |inst: &str| {
        pai_rows(&format!(
            "0,j1,ResNet50,{inst},Terminated,1000.0,2000.0,600.0,29.3,100.0,V100,1.0,1.0,1.0,1.0\n"
        ))
    };
    for (inst, message) in [
        (
            "2.5",
            "case.csv:2: task `j1/ResNet50`: inst_num 2.5 is not a whole number of GPUs",
        ),
        (
            "0.0",
            "case.csv:2: task `j1/ResNet50`: inst_num = 0; a task needs at least 1 GPU",
        ),
        (
            "abc",
            "case.csv:2: task `j1/ResNet50`: inst_num `abc` is not a finite number",
        ),
        ("", "case.csv:2: task `j1/ResNet50`: inst_num is empty"),
    ] {
        let e = parse_error(pai::read(
            row(inst).as_bytes(),
            "case.csv",
            &Default::default(),
        ));
        assert_eq!(e, message, "{inst}");
    }
    let e = parse_error(pai::read(
        ",job_name,task_name,inst_num,start_time\n".as_bytes(),
        "case.csv",
        &Default::default(),
    ));
    assert_eq!(
        e,
        "case.csv:1: no column `runtime_V100` in the header (columns: ,job_name,task_name,inst_num,start_time)"
    );
}

#[test]
fn csv_traces_are_told_apart_by_their_header() {
    assert_eq!(CsvTrace::of_first_line(POD_HEADER), CsvTrace::OpenbPods);
    assert_eq!(
        CsvTrace::of_first_line(&format!("\u{feff}{POD_HEADER}\r")),
        CsvTrace::OpenbPods
    );
    assert_eq!(CsvTrace::of_first_line(PAI_HEADER), CsvTrace::PaiTasks);
    assert_eq!(
        CsvTrace::of_first_line("M1,1,j_7,1,Terminated,100,160,100,0.3"),
        CsvTrace::BatchTask
    );
    assert_eq!(CsvTrace::of_first_line("name,num_gpu"), CsvTrace::BatchTask);
    // load_path and alibaba::read (the `.csv` reader) follow the header.
    let dir = std::env::temp_dir().join(format!("worl-gpu-traces-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("pods.csv");
    std::fs::write(&p, pods("a,1,1,2,1000,,LS,Running,50,150,60\n")).unwrap();
    assert_eq!(formats::detect_csv(&p).unwrap(), CsvTrace::OpenbPods);
    let (w, r) = formats::load_path(&p).unwrap();
    assert_eq!(
        (r.format, w.graph().task(worl_dag::TaskId::new(0)).gpus),
        (openb::FORMAT, 2)
    );
    let q = dir.join("case.csv");
    std::fs::write(
        &q,
        pai_rows("0,j1,R,4.0,Terminated,1.0,2.0,1.0,1.0,100.0,V100,1.0,1.0,1.0,3.0\n"),
    )
    .unwrap();
    let (w, r) = formats::load_path(&q).unwrap();
    assert_eq!(
        (r.format, w.graph().task(worl_dag::TaskId::new(0)).work),
        (pai::FORMAT, 12.0)
    );
    let text = std::fs::read(&p).unwrap();
    let (w2, _) = alibaba::read(&text[..], &p.display().to_string(), &Default::default()).unwrap();
    assert_eq!(w2, formats::load_path(&p).unwrap().0);
    let opts = alibaba::AlibabaOptions::default().first_jobs(3);
    let e = alibaba::read(&text[..], "pods.csv", &opts)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("alibaba-gpu-v2023") && e.contains("formats::openb"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Counts of the real pod lists, established independently of this crate by a one-off awk
/// script over the CSV (`awk -F,`, fields by position: a row with `num_gpu` 0 or empty is
/// NoGpu; else one with `creation_time`, `deletion_time` or `scheduled_time` empty, or
/// `deletion_time < scheduled_time`, is NoRunTime; else it is loaded, SharedGpu when
/// `gpu_milli < 1000`, a gang when `num_gpu > 1`, its work `(deletion - scheduled) · num_gpu`
/// summed, its creation time giving the smallest and largest releases):
/// default and gpuspec33 alike: 8,152 rows, 6,203 loaded (num_gpu 1: 6,129, 2: 15, 4: 15,
/// 8: 44), 1,088 NoGpu, 861 NoRunTime, 2,573 SharedGpu, work 214,603,958 GPU-s, smallest
/// creation time 0, largest release 12,901,761 s.
fn check_pod_list(w: &Workload, r: &worl_dag::formats::LoadReport) {
    let g = w.graph();
    assert_eq!((g.n_tasks(), w.n_jobs(), g.n_edges()), (6_203, 6_203, 0));
    assert_eq!((r.records, r.records_skipped), (8_152, 1_949));
    let counts: Vec<(Reason, usize)> = r.entries.iter().map(|e| (e.reason, e.count)).collect();
    assert_eq!(
        counts,
        // in the order first met: openb-pod-0001 (line 3) shares a GPU
        [
            (Reason::SharedGpu, 2_573),
            (Reason::NoGpu, 1_088),
            (Reason::NoRunTime, 861)
        ]
    );
    let mut by_gpus = std::collections::BTreeMap::new();
    for (_, t) in g.tasks() {
        *by_gpus.entry(t.gpus).or_insert(0) += 1;
    }
    assert_eq!(
        by_gpus.into_iter().collect::<Vec<_>>(),
        [(1, 6_129), (2, 15), (4, 15), (8, 44)]
    );
    let work: f64 = g.tasks().map(|(_, t)| t.work).sum();
    assert_eq!(work, 214_603_958.0);
    let rel = w.jobs().iter().map(|j| j.release);
    assert_eq!(rel.clone().fold(f64::INFINITY, f64::min), 0.0);
    assert_eq!(rel.fold(0.0, f64::max), 12_901_761.0);
}

#[test]
fn real_openb_pod_lists_load_with_exact_counts() {
    for file in ["openb_pod_list_default.csv", "openb_pod_list_gpuspec33.csv"] {
        let Some(path) = data(&format!("alibaba-gpu-v2023/{file}")) else {
            return;
        };
        let (w, r) = openb::load(&path, &Default::default()).unwrap();
        check_pod_list(&w, &r);
        // load_path tells the file by its header.
        let (w2, _) = formats::load_path(&path).unwrap();
        assert_eq!(w2, w);
    }
}

/// Counts of the derived PAI case, established independently by a one-off awk script over
/// the CSV (fields by position: 1,000 rows, 1,000 distinct job_name, no empty field, 57 rows
/// with inst_num > 1, sum of runtime_V100 · inst_num 14,024,451, start_time from 1,097,712 to
/// 6,440,852, so the largest release is 5,343,140 s); SOURCES.md gives 1,000 rows.
#[test]
fn real_pai_case_loads_with_exact_counts() {
    let Some(path) = data("alibaba-pai-v2020-derived/cedtrainscheduler_case_random_1000_tasks.csv")
    else {
        return;
    };
    let (w, r) = pai::load(&path, &Default::default()).unwrap();
    let g = w.graph();
    assert_eq!((g.n_tasks(), w.n_jobs(), g.n_edges()), (1_000, 1_000, 0));
    assert_eq!((r.records, r.records_skipped), (1_000, 0));
    assert!(r.entries.is_empty(), "{r}");
    assert_eq!(g.tasks().filter(|(_, t)| t.is_gang()).count(), 57);
    assert_eq!(g.tasks().map(|(_, t)| t.work).sum::<f64>(), 14_024_451.0);
    let rel = w.jobs().iter().map(|j| j.release);
    assert_eq!(rel.clone().fold(f64::INFINITY, f64::min), 0.0);
    assert_eq!(rel.fold(0.0, f64::max), 5_343_140.0);
    assert_eq!(formats::detect_csv(&path).unwrap(), CsvTrace::PaiTasks);
    let (w2, _) = formats::load_path(&path).unwrap();
    assert_eq!(w2, w);
}

#[test]
fn lines_count_blank_lines_in_every_csv_loader() {
    // The CSV reader's own line numbers pass over blank lines: the loaders count them.
    let v2018 =
        "M1,1,j_7,1,Terminated,100,160,100,0.3\n\n\r\nR2_1,1,j_7,1,Terminated,x,170,100,0.3\n";
    let e = parse_error(alibaba::read(
        v2018.as_bytes(),
        "t.csv",
        &Default::default(),
    ));
    assert_eq!(e, "t.csv:4: start_time `x` is not a finite number");
    let text = pods("a,1,1,1,1000,,LS,Running,0,1,0\n\n\nb,1,1,1.5,1000,,LS,Running,0,1,0\n");
    let e = parse_error(openb::read(text.as_bytes(), "p.csv", &Default::default()));
    assert_eq!(
        e,
        "p.csv:5: pod `b`: num_gpu 1.5 is not a whole number of GPUs"
    );
    // A quoted name over two lines, then a blank line: the next row is on line 5.
    let text = pods("\"a\nb\",1,1,0,0,,BE,Running,0,1,0\n\nc,1,1,1.5,1000,,LS,Running,0,1,0\n");
    let e = parse_error(openb::read(text.as_bytes(), "p.csv", &Default::default()));
    assert_eq!(
        e,
        "p.csv:5: pod `c`: num_gpu 1.5 is not a whole number of GPUs"
    );
}

mod never_panic {
    use super::*;
    use proptest::prelude::*;

    /// A field of a wild row: mostly numbers, some signs, fractions, names, quoted line
    /// breaks, empty or huge.
    fn wild() -> impl Strategy<Value = String> {
        prop_oneof![
            6 => "[0-9]{1,4}",
            2 => Just(String::new()),
            1 => "-?[0-9]{1,3}\\.[0-9]",
            1 => "[a-zA-Z|]{1,5}",
            1 => Just("\"x,\ny\"".to_owned()),
            1 => Just("1e999".to_owned()),
        ]
    }

    /// A time: mostly a small whole number, sometimes empty.
    fn time() -> impl Strategy<Value = String> {
        prop_oneof![5 => (0u32..100).prop_map(|t| t.to_string()), 1 => Just(String::new())]
    }

    /// Rows of `width` fields: mostly well-formed ones made by `clean(i)` for row `i`
    /// (values that load, skip or are noted), now and then a wild row (wrong width, bad
    /// numbers, quoted line breaks) or a blank line.
    fn rows<S: Strategy<Value = Vec<String>> + 'static>(
        width: usize,
        clean: impl Fn() -> S + 'static,
    ) -> impl Strategy<Value = String> {
        let wild_row =
            (proptest::collection::vec(wild(), width), any::<bool>()).prop_map(|(mut r, cut)| {
                if cut {
                    r.pop();
                }
                r
            });
        let row = prop_oneof![
            30 => clean(),
            1 => wild_row,
            1 => Just(Vec::new()),
        ];
        proptest::collection::vec(row, 0..12).prop_map(|rows| {
            rows.iter()
                .enumerate()
                .map(|(i, r)| r.join(",").replace("{i}", &i.to_string()))
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    /// A pod row (`{i}` is replaced by the row's index, so names are unique).
    fn pod() -> impl Strategy<Value = Vec<String>> {
        (
            prop_oneof![
                Just("0"),
                Just("1"),
                Just("1"),
                Just("2"),
                Just("8"),
                Just("")
            ],
            prop_oneof![Just("1000"), Just("460"), Just("")],
            time(),
            time(),
            time(),
        )
            .prop_map(|(g, milli, c, d, s)| {
                let v = ["p{i}", "1", "1", g, milli, "", "LS", "Running", &c, &d, &s];
                v.iter().map(|x| x.to_string()).collect()
            })
    }

    /// A PAI row (`{i}` replaced by the row's index; job and task names repeat).
    fn task() -> impl Strategy<Value = Vec<String>> {
        (
            prop_oneof![Just("j1"), Just("j2"), Just("j3")],
            prop_oneof![Just("T"), Just("T-2"), Just("U")],
            prop_oneof![Just("1.0"), Just("2.0"), Just("8.0")],
            prop_oneof![Just("100.0"), Just("50.0")],
            time(),
            time(),
        )
            .prop_map(|(j, t, inst, plan, start, rt)| {
                let v = [
                    "{i}",
                    j,
                    t,
                    inst,
                    "Terminated",
                    &start,
                    "",
                    "1",
                    "1",
                    plan,
                    "V100",
                    "",
                    "",
                    "",
                    &rt,
                ];
                v.iter().map(|x| x.to_string()).collect()
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn gpu_trace_loaders_never_panic_and_account_for_every_row(
            pods in rows(11, pod),
            tasks in rows(15, task),
        ) {
            for (header, body, pai_like) in [(POD_HEADER, pods, false), (PAI_HEADER, tasks, true)] {
                let text = format!("{header}\n{body}");
                let r = if pai_like {
                    pai::read(text.as_bytes(), "f.csv", &Default::default())
                } else {
                    openb::read(text.as_bytes(), "f.csv", &Default::default())
                };
                if let Ok((w, report)) = r {
                    prop_assert_eq!(report.records, w.graph().n_tasks() + report.records_skipped);
                    for (_, t) in w.graph().tasks() {
                        prop_assert!(t.gpus >= 1 && t.work.is_finite() && t.work >= 0.0);
                    }
                    prop_assert!(w.jobs().iter().all(|j| j.release >= 0.0));
                }
                // The v2018 reader hands the same text to the same loader.
                let a = alibaba::read(text.as_bytes(), "f.csv", &Default::default());
                let b = if pai_like {
                    pai::read(text.as_bytes(), "f.csv", &Default::default())
                } else {
                    openb::read(text.as_bytes(), "f.csv", &Default::default())
                };
                prop_assert_eq!(format!("{a:?}"), format!("{b:?}"));
            }
        }
    }
}
