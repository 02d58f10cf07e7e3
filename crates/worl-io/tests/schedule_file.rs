//! Schedule files: JSON and CSV round trips, reading back against a problem (by ids and by
//! names), and the one-line violation messages of hand-broken files.

use std::sync::Arc;
use worl_cluster::{
    ClusterBuilder, ClusterError, GpuId, GpuModel, Link, Network, PartialSchedule, Policy, Problem,
    Schedule, ScheduledTask, Violation,
};
use worl_dag::{TaskId, WorkloadBuilder};
use worl_io::schedule_file::CSV_COLUMNS;
use worl_io::{MatchError, RowRef, ScheduleFile, ScheduleMeta};

/// Workload `w`, job `j`: a(2) -> b(4) with 4 B; c(2) -> d(1) with 2 B; e(1, 40 GiB).
/// Cluster `lab`: `node-0` with one `S16` (speed 1, 16 GiB), `node-1` with two `BIG` (speed
/// 2, 48 GiB); 4 B/s + 0.5 s inside a machine, 2 B/s + 1 s between machines.
fn problem() -> Problem {
    problem_with_ready(0.0)
}

/// [`problem`] with `g0` busy until `ready` s.
fn problem_with_ready(ready: f64) -> Problem {
    let mut wb = WorkloadBuilder::new("w");
    let j = wb.add_job("j").unwrap();
    let a = wb.add_task(j, "a", 2.0, None).unwrap();
    let b = wb.add_task(j, "b", 4.0, None).unwrap();
    let c = wb.add_task(j, "c", 2.0, None).unwrap();
    let d = wb.add_task(j, "d", 1.0, None).unwrap();
    wb.add_task(j, "e", 1.0, Some(40.0)).unwrap();
    wb.add_edge(a, b, 4.0).unwrap();
    wb.add_edge(c, d, 2.0).unwrap();
    let mut cb = ClusterBuilder::new("lab");
    let m0 = cb.add_machine("node-0");
    cb.add_gpu(m0, &GpuModel::custom("S16", 1.0, 16.0).unwrap())
        .unwrap();
    let m1 = cb.add_machine("node-1");
    cb.add_gpus(m1, &GpuModel::custom("BIG", 2.0, 48.0).unwrap(), 2)
        .unwrap();
    cb.set_ready_time(GpuId::new(0), ready).unwrap();
    cb.network(Network::uniform(
        Link::new(4.0, 0.5).unwrap(),
        Link::new(2.0, 1.0).unwrap(),
    ));
    Problem::new(Arc::new(wb.build().unwrap()), Arc::new(cb.build().unwrap())).unwrap()
}

/// A simple list placement: tasks in id order (topological here), each on the GPU of least
/// earliest finish time among those it fits (first on ties), insertion policy.
fn list_schedule(p: &Problem) -> Schedule {
    let mut s = PartialSchedule::new(p);
    for v in p.graph().task_ids() {
        let best = p
            .cluster()
            .gpu_ids()
            .filter(|&k| p.fits(v, k))
            .map(|k| s.slot(v, k, Policy::Insertion).unwrap())
            .min_by(|x, y| x.finish().total_cmp(&y.finish()))
            .unwrap();
        s.commit(best).unwrap();
    }
    s.to_schedule().unwrap()
}

fn meta() -> ScheduleMeta {
    ScheduleMeta {
        scheduler: "list-eft".to_owned(),
        options: "policy=insertion".to_owned(),
        seed: Some(42),
    }
}

fn file(p: &Problem) -> ScheduleFile {
    ScheduleFile::new(p, &list_schedule(p), meta()).unwrap()
}

fn e(gpu: usize, start: f64, finish: f64) -> ScheduledTask {
    ScheduledTask {
        gpu: GpuId::new(gpu),
        start,
        finish,
    }
}

/// Hand-computed: a on g1 [0,1]; b on g1 [1,3] (g2 would wait 0.5 + 4/4 for a's data);
/// c on g2 [0,1]; d on g2 [1,1.5]; e (40 GiB, not on g0) on g2 [1.5,2].
#[test]
fn list_placement_is_the_hand_computed_schedule() {
    let p = problem();
    let s = list_schedule(&p);
    let expected = [
        e(1, 0.0, 1.0),
        e(1, 1.0, 3.0),
        e(2, 0.0, 1.0),
        e(2, 1.0, 1.5),
        e(2, 1.5, 2.0),
    ];
    assert_eq!(s.tasks(), expected);
    assert_eq!(s.makespan(), 3.0);
    assert_eq!(s.validate(&p), vec![]);
}

#[test]
fn csv_has_the_header_lines_columns_and_one_row_per_task() {
    let p = problem();
    let lb = p.lower_bound().value;
    let expected = format!(
        "# format: worl-schedule\n# version: 1\n# workload: w\n# cluster: lab\n\
         # scheduler: list-eft\n# options: policy=insertion\n# seed: 42\n# makespan: 3\n\
         # lower_bound: {lb}\n\
         task_id,task,job,gpu_id,machine,gpu_index,model,start,finish\n\
         0,a,j,1,node-1,0,BIG,0,1\n\
         1,b,j,1,node-1,0,BIG,1,3\n\
         2,c,j,2,node-1,1,BIG,0,1\n\
         3,d,j,2,node-1,1,BIG,1,1.5\n\
         4,e,j,2,node-1,1,BIG,1.5,2\n"
    );
    assert_eq!(file(&p).to_csv_string(), expected);
    assert_eq!(CSV_COLUMNS.join(","), expected.lines().nth(9).unwrap());
    assert_eq!(lb, 3.0); // critical path a -> b on a BIG GPU: 1 + 2 s
}

#[test]
fn json_has_the_header_fields_and_named_rows() {
    let p = problem();
    let v: serde_json::Value = serde_json::from_str(&file(&p).to_json_string()).unwrap();
    assert_eq!(v["format"], "worl-schedule");
    assert_eq!(v["version"], 1);
    assert_eq!(v["workload"], "w");
    assert_eq!(v["cluster"], "lab");
    assert_eq!(v["scheduler"], "list-eft");
    assert_eq!(v["options"], "policy=insertion");
    assert_eq!(v["seed"], 42);
    assert_eq!(v["makespan"], 3.0);
    assert_eq!(v["lower_bound"], p.lower_bound().value);
    assert_eq!(
        v["rows"][3],
        serde_json::json!({"task_id": 3, "task": "d", "job": "j", "gpu_id": 2,
            "machine": "node-1", "gpu_index": 1, "model": "BIG", "start": 1.0, "finish": 1.5})
    );
    assert_eq!(v["rows"].as_array().unwrap().len(), 5);
}

#[test]
fn write_read_write_is_identical_for_json_and_csv() {
    let p = problem();
    let f = file(&p);
    let json = f.to_json_string();
    let back = ScheduleFile::from_json_str(&json).unwrap();
    assert_eq!(back, f);
    assert_eq!(back.to_json_string(), json);
    let csv = f.to_csv_string();
    let back = ScheduleFile::from_csv_str(&csv).unwrap();
    assert_eq!(back, f);
    assert_eq!(back.to_csv_string(), csv);

    // On disk, by extension.
    let dir = std::env::temp_dir().join(format!("worl-schedule-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["s.json", "s.CSV"] {
        let path = dir.join(name);
        f.save(&path).unwrap();
        let back = ScheduleFile::read(&path).unwrap();
        assert_eq!(back, f);
        assert_eq!(back.origin(), path.display().to_string());
        back.save(dir.join(format!("again-{name}"))).unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            std::fs::read(dir.join(format!("again-{name}"))).unwrap()
        );
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("s.CSV")).unwrap(),
        f.to_csv_string()
    );
    assert!(matches!(
        f.save(dir.join("s.txt")),
        Err(ClusterError::InvalidParameter { name: "path", .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn awkward_names_and_values_round_trip_through_csv() {
    let p = problem();
    let mut f = file(&p);
    f.workload = " spaced \"w\" ".to_owned();
    f.cluster = "two\nlines".to_owned();
    f.meta.options = String::new();
    f.meta.seed = None;
    f.lower_bound = None;
    f.rows[0].task = "a,1 \"x\"".to_owned();
    f.rows[1].start = 0.1 + 0.2; // 0.30000000000000004: every digit must survive
    f.rows[1].finish = 1e300;
    let csv = f.to_csv_string();
    assert!(
        csv.contains("# workload: \" spaced \\\"w\\\" \"\n"),
        "{csv}"
    );
    assert!(csv.contains("# cluster: \"two\\nlines\"\n"), "{csv}");
    assert!(!csv.contains("# seed") && !csv.contains("# lower_bound"));
    let back = ScheduleFile::from_csv_str(&csv).unwrap();
    assert_eq!(back, f);
    assert_eq!(back.to_csv_string(), csv);
    let back = ScheduleFile::from_json_str(&f.to_json_string()).unwrap();
    assert_eq!(back, f);
}

#[test]
fn list_schedule_reads_back_and_validates_clean() {
    let p = problem();
    let s = list_schedule(&p);
    let f = ScheduleFile::new(&p, &s, meta()).unwrap();
    for text_back in [
        ScheduleFile::from_json_str(&f.to_json_string()).unwrap(),
        ScheduleFile::from_csv_str(&f.to_csv_string()).unwrap(),
    ] {
        assert_eq!(text_back.to_schedule(&p).unwrap(), s);
        assert_eq!(text_back.validate(&p).unwrap(), vec![]);
    }
}

/// The violations `check` reports on `f` written as CSV and read back, explained.
fn messages(p: &Problem, f: &ScheduleFile) -> Vec<String> {
    let back = ScheduleFile::from_csv_str(&f.to_csv_string()).unwrap();
    let (v, s) = back.validate_with_schedule(p).unwrap();
    v.iter().map(|x| x.explain(p, &s).to_string()).collect()
}

fn row(f: &mut ScheduleFile, task: &str) -> usize {
    f.rows.iter().position(|r| r.task == task).unwrap()
}

/// Puts row `task` on GPU `gpu` (id and names) at `[start, finish]`.
fn move_row(p: &Problem, f: &mut ScheduleFile, task: &str, gpu: usize, start: f64, finish: f64) {
    let i = row(f, task);
    let c = p.cluster();
    let g = c.gpu(GpuId::new(gpu));
    let r = &mut f.rows[i];
    r.gpu_id = Some(gpu);
    r.machine = c.machines()[g.machine.index()].clone();
    r.gpu_index = c.gpus_of(g.machine).iter().position(|k| k.index() == gpu);
    r.model = g.model.clone();
    r.start = start;
    r.finish = finish;
}

#[test]
fn a_task_before_its_data_arrives_is_a_precedence_violation() {
    let p = problem();
    let mut f = file(&p);
    // d on g0 [2,3]: c ends at 1 on g2, 2 B between machines take 1 + 2/2 = 2 s.
    move_row(&p, &mut f, "d", 0, 2.0, 3.0);
    assert_eq!(
        messages(&p, &f),
        vec![
            "precedence: `j/d` (t3) starts at 2 s but its data from `j/c` (t2) is ready at 3 s \
             (finish 1 s + communication 2 s), 1 s too early"
        ]
    );
    let s = ScheduleFile::from_csv_str(&f.to_csv_string())
        .unwrap()
        .to_schedule(&p)
        .unwrap();
    let v = s.validate(&p);
    assert_eq!(
        v,
        vec![Violation::Precedence {
            from: TaskId::new(2),
            to: TaskId::new(3),
            data_ready: 3.0,
            start: 2.0,
            amount: 1.0,
        }]
    );
    assert_eq!(
        v[0].to_string(),
        "precedence: t3 starts at 2 s but its data from t2 is ready at 3 s \
         (finish + communication), 1 s too early"
    );
}

#[test]
fn two_tasks_at_once_on_a_gpu_are_an_overlap() {
    let p = problem();
    let mut f = file(&p);
    move_row(&p, &mut f, "e", 2, 1.25, 1.75);
    assert_eq!(
        messages(&p, &f),
        vec![
            "overlap on g2 (BIG on `node-1`): `j/e` (t4) [1.25 s, 1.75 s] starts 0.25 s \
             before `j/d` (t3) [1 s, 1.5 s] finishes"
        ]
    );
}

#[test]
fn a_shortened_task_is_a_duration_violation() {
    let p = problem();
    let mut f = file(&p);
    let i = row(&mut f, "d");
    f.rows[i].finish = 1.25;
    assert_eq!(
        messages(&p, &f),
        vec![
            "duration: `j/d` (t3) runs 0.25 s on g2 (BIG on `node-1`) (start 1 s, \
             finish 1.25 s), its execution time there is 0.5 s"
        ]
    );
}

#[test]
fn a_40_gib_task_on_a_16_gib_gpu_is_a_memory_violation() {
    let p = problem();
    let mut f = file(&p);
    move_row(&p, &mut f, "e", 0, 0.0, 1.0); // exec 1 s on g0: only memory is wrong
    assert_eq!(
        messages(&p, &f),
        vec!["memory: `j/e` (t4) needs 40 GiB but g0 (S16 on `node-0`) has 16 GiB"]
    );
}

#[test]
fn a_dropped_row_is_a_missing_task() {
    let p = problem();
    let mut f = file(&p);
    let i = row(&mut f, "c");
    f.rows.remove(i);
    // d's precedence on the missing c is not checked.
    assert_eq!(
        messages(&p, &f),
        vec!["missing task: `j/c` (t2) is not scheduled"]
    );
    let back = ScheduleFile::from_csv_str(&f.to_csv_string()).unwrap();
    let err = back.to_schedule(&p).unwrap_err();
    assert_eq!(
        err,
        MatchError::MissingTask {
            file: "<memory>".to_owned(),
            task: "j/c".to_owned(),
            id: TaskId::new(2),
        }
    );
    assert_eq!(err.to_string(), "<memory>: task `j/c` (t2) has no row");
}

#[test]
fn a_renamed_task_is_a_mismatch_naming_the_row() {
    let p = problem();
    let mut f = file(&p);
    let i = row(&mut f, "b");
    f.rows[i].task = "bb".to_owned();
    let back = ScheduleFile::from_csv_str(&f.to_csv_string()).unwrap();
    // 9 header lines, the column row, then row 2 on line 12.
    let err = back.to_schedule(&p).unwrap_err();
    assert_eq!(
        err,
        MatchError::TaskMismatch {
            at: RowRef {
                file: "<memory>".to_owned(),
                line: 12,
                row: 2
            },
            id: 1,
            expected: "j/b".to_owned(),
            found: "j/bb".to_owned(),
            workload: "w".to_owned(),
        }
    );
    assert_eq!(
        err.to_string(),
        "<memory>:12 (row 2): task id 1 is `j/b` in workload `w`, the row names `j/bb`"
    );
    assert_eq!(back.validate(&p).unwrap_err(), err);
    // Without ids the name is looked up, and it is not in the workload.
    f.rows[i].task_id = None;
    let back = ScheduleFile::from_json_str(&f.to_json_string()).unwrap();
    assert_eq!(
        back.to_schedule(&p).unwrap_err().to_string(),
        "<memory> (row 2): task `j/bb` is not in workload `w`"
    );
}

#[test]
fn repeated_rows_unknown_gpus_and_wrong_gpu_names_are_reported() {
    let p = problem();
    let mut f = file(&p);
    let a = f.rows[0].clone();
    f.rows.push(a);
    let back = ScheduleFile::from_csv_str(&f.to_csv_string()).unwrap();
    assert_eq!(
        back.to_schedule(&p).unwrap_err().to_string(),
        "<memory>:16 (row 6): task `j/a` already has row 1"
    );
    assert_eq!(
        messages(&p, &f),
        vec!["duplicate task: `j/a` (t0) has 2 rows"]
    );

    let mut f = file(&p);
    f.rows[4].gpu_id = Some(7);
    assert_eq!(
        messages(&p, &f),
        vec!["unknown GPU: `j/e` (t4) is on GPU g7, which cluster `lab` lacks (3 GPUs)"]
    );
    assert_eq!(
        ScheduleFile::from_csv_str(&f.to_csv_string())
            .unwrap()
            .to_schedule(&p)
            .unwrap_err()
            .to_string(),
        "<memory>:15 (row 5): GPU g7 is not in cluster `lab`"
    );

    let mut f = file(&p);
    f.rows[0].model = "S16".to_owned();
    assert_eq!(
        ScheduleFile::from_json_str(&f.to_json_string())
            .unwrap()
            .validate(&p)
            .unwrap_err()
            .to_string(),
        "<memory> (row 1): GPU g1 is `node-1` #0 (BIG) in cluster `lab`, the row says \
         `node-1` #0 (S16)"
    );

    let mut f = file(&p);
    f.makespan = Some(2.5);
    assert_eq!(
        messages(&p, &f),
        vec!["makespan: the file declares 2.5 s, its latest finish is 3 s"]
    );
}

#[test]
fn rows_without_ids_match_tasks_by_name_and_gpus_by_machine_and_index() {
    let p = problem();
    let s = list_schedule(&p);
    let mut f = ScheduleFile::new(&p, &s, meta()).unwrap();
    for r in &mut f.rows {
        r.task_id = None;
        r.gpu_id = None;
    }
    f.rows.reverse();
    let csv = f.to_csv_string();
    assert!(csv.contains("\n,e,j,,node-1,1,BIG,1.5,2\n"), "{csv}");
    let back = ScheduleFile::from_csv_str(&csv).unwrap();
    assert_eq!(back.to_schedule(&p).unwrap(), s);

    // As another tool might write it: no header lines, no id or model columns, any order.
    let other = "job,task,machine,gpu_index,start,finish\n\
                 j,e,node-1,1,1.5,2\n\
                 j,c,node-1,1,0,1\n\
                 j,a,node-1,0,0,1\n\
                 j,d,node-1,1,1,1.5\n\
                 j,b,node-1,0,1,3\n";
    let back = ScheduleFile::from_csv_str(other).unwrap();
    assert_eq!(back.makespan, None);
    assert_eq!(back.meta, ScheduleMeta::default());
    assert_eq!(back.to_schedule(&p).unwrap(), s);
    assert_eq!(back.validate(&p).unwrap(), vec![]);

    let wrong_machine = other.replace("j,b,node-1,0", "j,b,node-9,0");
    assert_eq!(
        ScheduleFile::from_csv_str(&wrong_machine)
            .unwrap()
            .to_schedule(&p)
            .unwrap_err()
            .to_string(),
        "<memory>:6 (row 5): GPU `node-9` #0 is not in cluster `lab`"
    );
    let no_gpu = "job,task,start,finish\nj,a,0,1\n";
    assert_eq!(
        ScheduleFile::from_csv_str(no_gpu)
            .unwrap()
            .to_schedule(&p)
            .unwrap_err()
            .to_string(),
        "<memory>:2 (row 1): no GPU (give `gpu_id`, or `machine` and `gpu_index`)"
    );
}

#[test]
fn malformed_files_are_parse_errors_with_lines() {
    let err = |text: &str| ScheduleFile::from_csv_str(text).unwrap_err().to_string();
    assert_eq!(
        err("# format: worl-workload\njob,task,start,finish\n"),
        "<memory>:1: format `worl-workload` is not `worl-schedule`"
    );
    assert_eq!(
        err("# version: 2\njob,task,start,finish\n"),
        "<memory>:1: version 2 is not supported (this reader knows 1 to 1)"
    );
    assert_eq!(
        err("# colour: red\njob,task,start,finish\n"),
        "<memory>:1: unknown header key `colour` (known: format, version, workload, cluster, \
         scheduler, options, seed, makespan, lower_bound)"
    );
    assert_eq!(
        err("# just a note\njob,task,start,finish\n"),
        "<memory>:1: expected a `# key: value` header line, found `# just a note`"
    );
    assert_eq!(
        err("# seed: 1\n# seed: 2\njob,task,start,finish\n"),
        "<memory>:2: header key `seed` is repeated"
    );
    assert_eq!(
        err("job,task,start\n"),
        "<memory>:1: column `finish` is missing"
    );
    assert_eq!(
        err("job,task,start,finish,colour\n"),
        "<memory>:1: unknown column `colour` (known: task_id, task, job, gpu_id, machine, \
         gpu_index, model, start, finish)"
    );
    assert_eq!(
        err("# makespan: 3\njob,task,start,finish\nj,a,0,soon\n"),
        "<memory>:3: column `finish`: `soon` is not a number"
    );
    assert_eq!(
        err("job,task,gpu_id,start,finish\nj,a,-1,0,1\n"),
        "<memory>:2: column `gpu_id`: `-1` is not a whole number >= 0"
    );
    assert_eq!(
        err("job,task,start,finish\nj,a,0,1\nj,b,2,1\n"),
        "<memory>:3: row 2: task `j/b`: start 2 s / finish 1 s is not a valid interval"
    );
    assert!(
        err("job,task,start,finish\nj,a,0\n").starts_with("<memory>:2: "),
        "{}",
        err("job,task,start,finish\nj,a,0\n")
    );
    let jerr = |text: &str| ScheduleFile::from_json_str(text).unwrap_err().to_string();
    assert!(
        jerr(r#"{"rows": [{"task": "a", "job": "j", "start": 0, "finish": 1, "colour": 1}]}"#)
            .contains("unknown field `colour`")
    );
    assert_eq!(
        jerr(r#"{"format": "x", "rows": []}"#),
        "<memory>:1: format `x` is not `worl-schedule`"
    );
    assert_eq!(
        jerr(r#"{"rows": [{"task": "a", "job": "j", "start": 1, "finish": 0}]}"#),
        "<memory>:0: row 1: task `j/a`: start 1 s / finish 0 s is not a valid interval"
    );
    assert!(matches!(
        ScheduleFile::read("/nonexistent/s.json"),
        Err(ClusterError::Io { .. })
    ));
}

#[test]
fn a_file_of_another_schedule_shape_is_refused() {
    let p = problem();
    let s = Schedule::new(3, vec![e(0, 0.0, 2.0)]).unwrap();
    assert!(matches!(
        ScheduleFile::new(&p, &s, ScheduleMeta::default()),
        Err(ClusterError::ShapeMismatch {
            expected: (5, 3),
            actual: (1, 3),
            ..
        })
    ));
}

#[test]
fn early_starts_and_extra_entries_are_explained_too() {
    let p = problem_with_ready(1.0);
    let s = Schedule::new(
        3,
        vec![
            e(0, 0.5, 2.5), // a on g0, ready at 1
            e(1, 6.0, 8.0),
            e(2, 0.0, 1.0),
            e(2, 1.0, 1.5),
            e(2, 1.5, 2.0),
            e(1, 8.0, 9.0), // no sixth task
        ],
    )
    .unwrap();
    let v = s.validate(&p);
    let lines: Vec<String> = v.iter().map(|x| x.explain(&p, &s).to_string()).collect();
    assert_eq!(
        lines,
        vec![
            "unknown task: schedule entry t5 is not a task of workload `w` (5 tasks)",
            "ready time: `j/a` (t0) starts at 0.5 s on g0 (S16 on `node-0`), which is ready at \
             1 s (0.5 s early)",
        ]
    );
    assert_eq!(
        v[1].to_string(),
        "ready time: t0 starts at 0.5 s, before GPU g0 is ready at 1 s"
    );
    assert_eq!(v[1].constraint(), "ready time");
}

// ----- issue 20 -----

#[test]
fn gpu_id_beyond_u32_is_a_typed_error() {
    // CSV: the line and the value.
    let err = ScheduleFile::from_csv_str("job,task,gpu_id,start,finish\nj,a,4294967296,0,2\n")
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "<memory>:2: column `gpu_id`: `4294967296` is beyond the largest id 4294967295"
    );
    for col in ["task_id", "gpu_index"] {
        let text = format!("job,task,{col},start,finish\nj,a,18446744073709551615,0,2\n");
        let err = ScheduleFile::from_csv_str(&text).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "<memory>:2: column `{col}`: `18446744073709551615` is beyond the largest id 4294967295"
            )
        );
    }
    // JSON: the row and the value.
    let err = ScheduleFile::from_json_str(
        r#"{"rows": [{"task": "a", "job": "j", "gpu_id": 4294967296, "start": 0, "finish": 2}]}"#,
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        err,
        "<memory>:0: row 1: task `j/a`: gpu_id 4294967296 is beyond the largest id 4294967295"
    );
    // A file built in code is checked without a panic: an unknown GPU naming the row.
    let p = problem();
    let mut f = file(&p);
    f.rows[0].gpu_id = Some(1 << 32);
    f.rows[0].machine.clear();
    f.rows[0].gpu_index = None;
    f.rows[0].model.clear();
    assert_eq!(
        f.validate(&p).unwrap_err(),
        MatchError::UnknownGpu {
            at: RowRef {
                file: "<memory>".into(),
                line: 0,
                row: 1
            },
            gpu: "g4294967296".into(),
            cluster: "lab".into(),
        }
    );
    // 4294967295 itself is an id: an unknown GPU of this cluster, reported as a violation.
    f.rows[0].gpu_id = Some(u32::MAX as usize);
    let v = f.validate(&p).unwrap();
    assert!(v.contains(&Violation::UnknownGpu {
        task: TaskId::new(0),
        gpu: GpuId::new(u32::MAX as usize)
    }));
}

#[test]
fn non_finite_or_negative_makespan_header_is_a_parse_error() {
    for bad in ["NaN", "nan", "inf", "-inf", "-1", "1e400"] {
        let text = format!("# format: worl-schedule\n# makespan: {bad}\njob,task,start,finish\n");
        let err = ScheduleFile::from_csv_str(&text).unwrap_err().to_string();
        assert_eq!(
            err,
            format!("<memory>:2: header `makespan`: `{bad}` is not a finite number >= 0 (s)")
        );
    }
    let err = ScheduleFile::from_csv_str("# lower_bound: NaN\njob,task,start,finish\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("<memory>:1: header `lower_bound`: `NaN`"),
        "{err}"
    );
    // JSON cannot write NaN; a number beyond f64 is a parse error.
    assert!(ScheduleFile::from_json_str(r#"{"makespan": 1e400, "rows": []}"#).is_err());
    // A file built in code with a NaN makespan is a makespan violation, not "valid".
    let p = problem();
    let mut f = file(&p);
    f.makespan = Some(f64::NAN);
    let v = f.validate(&p).unwrap();
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        matches!(v[0], Violation::Makespan { declared, actual } if declared.is_nan() && actual == 3.0)
    );
}

#[test]
fn makespan_header_off_by_more_than_the_tolerance_is_a_violation() {
    let p = problem();
    let mut f = file(&p);
    assert_eq!(f.makespan, Some(3.0));
    f.makespan = Some(3.0 + 5e-8);
    assert_eq!(f.validate(&p).unwrap(), vec![]);
    f.makespan = Some(3.0 + 1e-6);
    assert_eq!(
        f.validate(&p).unwrap(),
        vec![Violation::Makespan {
            declared: 3.0 + 1e-6,
            actual: 3.0
        }]
    );
}

#[test]
fn wfformat_plan_reads_back_as_a_schedule_file() {
    let p = problem();
    let s = list_schedule(&p);
    let text = worl_io::wfformat::to_string(&p, &s).unwrap();
    // the schema's own names: machines (a list) and executedAt (a timestamp)
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let x = &doc["workflow"]["execution"]["tasks"][3];
    assert_eq!(x["id"], "d");
    assert_eq!(x["machines"], serde_json::json!(["node-1"]));
    assert_eq!(x["executedAt"], "1970-01-01T00:00:01Z");
    assert_eq!(x["gpuId"], 2);
    let f = ScheduleFile::from_json_str(&text).unwrap();
    assert!(f.names_tasks_by_wfformat_id());
    assert_eq!(
        (f.workload.as_str(), f.meta.scheduler.as_str()),
        ("w", "worl")
    );
    assert_eq!(f.makespan, Some(s.makespan()));
    assert_eq!(f.rows[3].task, "d");
    assert_eq!(f.rows[3].machine, "node-1");
    assert_eq!(f.validate(&p).unwrap(), vec![]);
    assert_eq!(f.to_schedule(&p).unwrap(), s);
    // Through a file with the `.wf.json` extension `worl schedule --out` uses.
    let dir = std::env::temp_dir().join(format!("worl-wf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("plan.wf.json");
    worl_io::wfformat::save(&p, &s, &path).unwrap();
    let g = ScheduleFile::read(&path).unwrap();
    assert_eq!(g.to_schedule(&p).unwrap(), s);
    // A broken plan gives the usual violations: d moved to start with c on g2.
    let broken = text.replace("\"1970-01-01T00:00:01Z\"", "\"1970-01-01T00:00:00.5Z\"");
    let f = ScheduleFile::from_json_str(&broken).unwrap();
    let v = f.validate(&p).unwrap();
    assert!(
        v.iter().any(|v| matches!(v, Violation::Precedence { .. })),
        "{v:?}"
    );
    // A WfFormat id the workload lacks names the row.
    let f = ScheduleFile::from_json_str(&text.replace("\"id\": \"d\"", "\"id\": \"zz\"")).unwrap();
    let e = f.validate(&p).unwrap_err().to_string();
    assert!(e.contains("task `zz` is not in workload `w`"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_file_that_is_not_a_schedule_file_says_so() {
    let p = problem();
    let not = |r: worl_cluster::Result<ScheduleFile>| match r {
        Err(e @ ClusterError::NotAScheduleFile { .. }) => e.to_string(),
        other => panic!("expected NotAScheduleFile, got {other:?}"),
    };
    // A WfFormat workload: an execution section of reference run times, no start times.
    let wf = worl_dag::formats::wfcommons::to_string(p.workload(), None).unwrap();
    let e = not(ScheduleFile::from_json_str(&wf));
    assert!(
        e.starts_with(
            "not a schedule file: <memory>: a WfFormat workflow whose `execution` gives no task a start time"
        ),
        "{e}"
    );
    let mut doc: serde_json::Value = serde_json::from_str(&wf).unwrap();
    doc["workflow"].as_object_mut().unwrap().remove("execution");
    let e = not(ScheduleFile::from_json_str(&doc.to_string()));
    assert!(
        e.starts_with(
            "not a schedule file: <memory>: a WfFormat workflow without an `execution` section"
        ),
        "{e}"
    );
    // A WfFormat document whose execution lacks start times is a parse error naming the task.
    let wf_exec = worl_io::wfformat::to_string(&p, &list_schedule(&p))
        .unwrap()
        .replace(
            "\"executedAt\": \"1970-01-01T00:00:01Z\"",
            "\"startInSeconds\": 1",
        );
    let e = ScheduleFile::from_json_str(&wf_exec)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("execution task 2 (`b`): no `executedAt` (its start)"),
        "{e}"
    );
    // A cluster file, a JSON array.
    let e = not(ScheduleFile::from_json_str(&p.cluster().to_json_string()));
    assert!(e.contains("neither `rows`"), "{e}");
    let e = not(ScheduleFile::from_json_str("[1, 2]"));
    assert!(e.contains("not an object"), "{e}");
    // A CSV without any schedule column (an Alibaba batch_task line, say).
    let e = not(ScheduleFile::from_csv_str(
        "t1,1,j_1,1,Terminated,0,10,100,0.5\n",
    ));
    assert!(
        e.starts_with("not a schedule file: <memory>: line 1: `t1,1,j_1"),
        "{e}"
    );
    // Through `read`, the path is named.
    let dir = std::env::temp_dir().join(format!("worl-not-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("workload.wf.json");
    std::fs::write(&path, &wf).unwrap();
    let e = not(ScheduleFile::read(&path));
    assert!(
        e.starts_with(&format!("not a schedule file: {}: ", path.display())),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
    // Malformed JSON stays a parse error with its line.
    let e = ScheduleFile::from_json_str("{\n\"rows\": [,]}")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("<memory>:2: "), "{e}");
}

#[test]
fn gpu_is_another_name_of_gpu_id_in_json_and_csv() {
    let p = problem();
    let csv =
        "job,task,gpu,start,finish\nj,a,1,0,1\nj,b,1,1,3\nj,c,2,0,1\nj,d,2,1,1.5\nj,e,2,1.5,2\n";
    let f = ScheduleFile::from_csv_str(csv).unwrap();
    assert_eq!(f.rows[2].gpu_id, Some(2));
    assert_eq!(f.validate(&p).unwrap(), vec![]);
    let json = r#"{"rows": [{"task": "a", "job": "j", "gpu": 1, "start": 0, "finish": 1}]}"#;
    assert_eq!(
        ScheduleFile::from_json_str(json).unwrap().rows[0].gpu_id,
        Some(1)
    );
    // Both names in one file is an error, not a silent choice.
    let e = ScheduleFile::from_csv_str("job,task,gpu,gpu_id,start,finish\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("column `gpu_id` is repeated"), "{e}");
    let both =
        r#"{"rows": [{"task": "a", "job": "j", "gpu": 1, "gpu_id": 1, "start": 0, "finish": 1}]}"#;
    let e = ScheduleFile::from_json_str(both).unwrap_err().to_string();
    assert!(e.contains("duplicate field `gpu_id`"), "{e}");
}
