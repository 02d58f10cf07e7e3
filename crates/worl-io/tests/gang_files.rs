//! Gang tasks in schedule files and WfFormat plans: a gang's GPU set is written (lead
//! first) and read back, checked against its row's GPU and the cluster.

use std::sync::Arc;
use worl_cluster::{
    Evaluator, GpuId, Plan, Policy, Problem, Schedule, ScheduledTask, Violation, testing,
};
use worl_dag::{GangParams, Span, TaskId, WorkloadBuilder};
use worl_io::{ScheduleFile, ScheduleMeta, wfformat};

fn g(k: usize) -> GpuId {
    GpuId::new(k)
}

fn gs(ks: &[usize]) -> Vec<GpuId> {
    ks.iter().map(|&k| GpuId::new(k)).collect()
}

/// Two machines `a` (g0..g3) and `b` (g4..g7) of 4 GPUs of speed 1, 32 GiB
/// ([`testing::two_four_gpu_machines`]).
fn two_uniform() -> Arc<worl_cluster::Cluster> {
    Arc::new(testing::two_four_gpu_machines(&[]).unwrap())
}

/// One task `j/t` of `work` demanding `gpus` GPUs with `params`.
fn one_gang(work: f64, gpus: u32, params: GangParams) -> Arc<worl_dag::Workload> {
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("j").unwrap();
    let t = b.add_task(j, "t", work, None).unwrap();
    b.set_gang(t, gpus, params).unwrap();
    Arc::new(b.build().unwrap())
}

/// [`four_gpu_among_singles`] decoded from the plan a → g0, x → g1, G led by g0, c → g4
/// (order a, x, G, c; insertion): G on {g0, g2, g3, g1} over [3, 5) (g1 holds x until 3).
fn gang_on_a_set_of_four() -> (Problem, Schedule) {
    let p = testing::four_gpu_among_singles();
    let plan = Plan::new(
        gs(&[0, 0, 4, 1]),
        vec![
            TaskId::new(0),
            TaskId::new(3),
            TaskId::new(1),
            TaskId::new(2),
        ],
    );
    let sched = Evaluator::new(&p)
        .schedule(&plan, Policy::Insertion)
        .unwrap();
    (p, sched)
}

#[test]
fn schedule_files_list_the_gpu_set_and_read_it_back() {
    let (p, sched) = gang_on_a_set_of_four();
    let gg = TaskId::new(1);
    let file = ScheduleFile::new(&p, &sched, ScheduleMeta::default()).unwrap();
    assert_eq!(file.gpu_sets.get(&1), Some(&vec![0, 2, 3, 1]));
    let json = file.to_json_string();
    assert!(
        json.contains("\"gpus\": [\n        0,\n        2,\n        3,\n        1\n      ]"),
        "{json}"
    );
    let csv = file.to_csv_string();
    assert!(
        csv.contains("task_id,task,job,gpu_id,machine,gpu_index,model,start,finish,gpus\n"),
        "{csv}"
    );
    assert!(csv.contains("1,G,j,0,a,0,S1,3,5,0;2;3;1\n"), "{csv}");
    assert!(csv.contains("0,a,j,0,a,0,S1,0,2,\n"), "{csv}");
    for back in [
        ScheduleFile::from_json_str(&json).unwrap(),
        ScheduleFile::from_csv_str(&csv).unwrap(),
    ] {
        assert_eq!(back, file);
        let s = back.to_schedule(&p).unwrap();
        assert_eq!(s, sched);
        assert_eq!(back.validate(&p).unwrap(), vec![]);
    }
    // without gangs the CSV has exactly the nine columns and JSON rows no `gpus`
    let plain = ScheduleFile::new(
        &gang_then_single_plain(),
        &Schedule::new(
            8,
            vec![ScheduledTask {
                gpu: g(0),
                start: 0.0,
                finish: 1.0,
            }],
        )
        .unwrap(),
        ScheduleMeta::default(),
    )
    .unwrap();
    assert!(plain.to_csv_string().contains("model,start,finish\n"));
    assert!(!plain.to_json_string().contains("gpus"));
    // a set that does not start with the row's GPU, a GPU the cluster lacks, a bad list
    let moved = csv.replace("0;2;3;1", "2;0;3;1");
    let e = ScheduleFile::from_csv_str(&moved)
        .unwrap()
        .to_schedule(&p)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "<memory>:11 (row 2): GPU set {g2,g0,g3,g1}: its first GPU must be the row's GPU g0"
    );
    let far = csv.replace("0;2;3;1", "0;2;3;9");
    let v = ScheduleFile::from_csv_str(&far)
        .unwrap()
        .validate(&p)
        .unwrap();
    assert_eq!(
        v,
        vec![Violation::UnknownGpu {
            task: gg,
            gpu: g(9)
        }]
    );
    let e = ScheduleFile::from_csv_str(&csv.replace("0;2;3;1", "0;two")).unwrap_err();
    assert!(
        e.to_string()
            .contains("column `gpus`: `0;two` is not a list of GPU ids"),
        "{e}"
    );
}

/// One single-GPU task `j/t` (work 1) on [`two_uniform`].
fn gang_then_single_plain() -> Problem {
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("j").unwrap();
    b.add_task(j, "t", 1.0, None).unwrap();
    Problem::new(Arc::new(b.build().unwrap()), two_uniform()).unwrap()
}

#[test]
fn wfformat_plans_carry_the_gpu_set_and_read_it_back() {
    let (p, sched) = gang_on_a_set_of_four();
    let gg = TaskId::new(1);
    assert_eq!(sched.gpus(gg), &gs(&[0, 2, 3, 1])[..]);
    let text = wfformat::to_string(&p, &sched).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let tasks = &doc["workflow"]["execution"]["tasks"];
    assert_eq!(
        tasks[1],
        serde_json::json!({
            "id": "G",
            "runtimeInSeconds": 2.0,
            "executedAt": "1970-01-01T00:00:03Z",
            "machines": ["a"],
            "gpuId": 0,
            "gpuIndex": 0,
            "gpuModel": "S1",
            "gpuCount": 4,
            "gpuIds": [0, 2, 3, 1],
        })
    );
    // the single-GPU tasks keep one machine and no set
    assert_eq!(tasks[2]["machines"], serde_json::json!(["b"]));
    assert!(tasks[2].get("gpuIds").is_none() && tasks[2].get("gpuCount").is_none());
    let back = wfformat::from_json_str(&text).unwrap();
    assert_eq!(back.gpu_sets.get(&1), Some(&vec![0, 2, 3, 1]));
    assert_eq!(back.gpu_sets.len(), 1);
    assert_eq!(back.to_schedule(&p).unwrap(), sched);
    assert_eq!(back.validate(&p).unwrap(), vec![]);

    // a 2-GPU gang across machines (span cluster) on {g3, g4}: 4 / 2 = 2 s
    let cross = GangParams {
        span: Span::Cluster,
        ..GangParams::default()
    };
    let p = Problem::new(one_gang(4.0, 2, cross), two_uniform()).unwrap();
    let s = Schedule::with_sets(
        8,
        vec![testing::entry(3, 0.0, 2.0)],
        vec![testing::gpu_set(0, &[3, 4])],
    )
    .unwrap();
    assert_eq!(s.validate(&p), vec![]);
    let text = wfformat::to_string(&p, &s).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let t = &doc["workflow"]["execution"]["tasks"][0];
    assert_eq!(t["machines"], serde_json::json!(["a", "b"]));
    assert_eq!(t["gpuIds"], serde_json::json!([3, 4]));
    assert_eq!((&t["gpuId"], &t["gpuIndex"]), (&3.into(), &3.into()));
    assert_eq!(t["gangSpan"], "cluster");
    let back = wfformat::from_json_str(&text).unwrap();
    assert_eq!(back.rows[0].machine, "a");
    assert_eq!(back.to_schedule(&p).unwrap(), s);

    // several machines without `gpuIds`, and a set that does not start with its lead
    let e = wfformat::from_json_str(&text.replace("\"gpuIds\"", "\"otherIds\""))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("execution task 1 (`t`)") && e.contains("runs on 2 machines but on 1 GPU(s)"),
        "{e}"
    );
    let swapped = text.replacen("\"gpuId\": 3", "\"gpuId\": 4", 1);
    let e = wfformat::from_json_str(&swapped).unwrap_err().to_string();
    assert!(
        e.contains("`gpuIds` [3, 4] does not start with its `gpuId` 4"),
        "{e}"
    );
}
