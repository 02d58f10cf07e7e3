//! Exports of hand-made schedules: dispatch order, the two kinds of dependency edges, host
//! mapping, names, and each engine's artifact checked line by line; typed errors.

use std::sync::Arc;
use worl_cluster::{ClusterError, GpuId, GpuModel, GpuSet, Problem, Schedule, ScheduledTask};
use worl_dag::{GangParams, Span, TaskId, WorkloadBuilder};
use worl_export::{
    CommandTemplate, DevicePolicy, Engine, ExportError, ExportOptions, ExportPlan, HostMap, argo,
};

/// The `submit` lines of a Slurm script, in order.
fn submit_lines(script: &str) -> Vec<&str> {
    script
        .lines()
        .filter(|l| l.starts_with("submit "))
        .collect()
}

/// The workload of `b` on `machines` machines of `gpus` V100s each (`node-0`, `node-1`, ...).
fn on_v100s(b: WorkloadBuilder, machines: usize, gpus: usize) -> Problem {
    let w = Arc::new(b.build().unwrap());
    let cluster = worl_cluster::ClusterSpec::new(machines, gpus, &GpuModel::v100_16gb())
        .build()
        .unwrap();
    Problem::new(w, Arc::new(cluster)).unwrap()
}

/// Task planned on GPU `g` over `[s, f]` s.
fn at(g: usize, s: f64, f: f64) -> ScheduledTask {
    ScheduledTask {
        gpu: GpuId::new(g),
        start: s,
        finish: f,
    }
}

/// `a -> b`, `a -> c`, and `d` alone, on two machines of one GPU each (`node-0`, `node-1`).
/// Planned: `a` g0 [0, 2], `b` g0 [2, 5], `c` g1 [3, 4], `d` g1 [0, 1].
fn problem_and_schedule(job_names: [&str; 2]) -> (Problem, Schedule) {
    let mut b = WorkloadBuilder::new("fork");
    let j = b.add_job(job_names[0]).unwrap();
    let j2 = if job_names[1] == job_names[0] {
        j
    } else {
        b.add_job(job_names[1]).unwrap()
    };
    let a = b.add_task(j, "a", 2.0, None).unwrap();
    let bb = b.add_task(j, "b", 3.0, None).unwrap();
    let c = b.add_task(j, "c", 1.0, None).unwrap();
    b.add_task(j2, "d", 1.0, None).unwrap();
    b.add_edge(a, bb, 0.0).unwrap();
    b.add_edge(a, c, 0.0).unwrap();
    let p = on_v100s(b, 2, 1);
    let s = Schedule::new(
        2,
        vec![
            at(0, 0.0, 2.0),
            at(0, 2.0, 5.0),
            at(1, 3.0, 4.0),
            at(1, 0.0, 1.0),
        ],
    )
    .unwrap();
    (p, s)
}

#[test]
fn plan_orders_tasks_and_adds_same_gpu_edges() {
    let (p, s) = problem_and_schedule(["j", "j"]);
    let mut hosts = HostMap::new();
    hosts.insert("node-1", "gpu-box-7");
    let options = ExportOptions {
        hosts,
        command: CommandTemplate::new(
            "run {job}/{task} on {host}:{gpu} ({machine}, {name}, #{id})",
        )
        .unwrap(),
        ..ExportOptions::default()
    };
    let plan = ExportPlan::new(&p, &s, &options).unwrap();
    let names: Vec<&str> = plan.tasks().iter().map(|t| t.name.as_str()).collect();
    // by start, then finish: d (0..1) before a (0..2)
    assert_eq!(names, ["d", "a", "b", "c"]);
    let after: Vec<Vec<usize>> = plan.tasks().iter().map(|t| t.after.clone()).collect();
    // b: data a (1), same GPU a (1) once; c: data a (1), same GPU d (0)
    assert_eq!(after, [vec![], vec![], vec![1], vec![0, 1]]);
    assert_eq!(plan.tasks()[3].gpu_prev, Some(0));
    assert_eq!(plan.tasks()[3].data_preds, [1]);
    let hosts: Vec<&str> = plan.tasks().iter().map(|t| t.host.as_str()).collect();
    assert_eq!(hosts, ["gpu-box-7", "node-0", "node-0", "gpu-box-7"]);
    assert_eq!(
        plan.tasks()[3].command,
        "run j/c on gpu-box-7:0 (node-1, c, #2)"
    );
}

#[test]
fn slurm_script_pins_and_chains_every_job() {
    let (p, s) = problem_and_schedule(["j", "k"]);
    let plan = ExportPlan::new(&p, &s, &ExportOptions::default()).unwrap();
    // two jobs: names are job-task
    let names: Vec<&str> = plan.tasks().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["k-d", "j-a", "j-b", "j-c"]);
    let script = plan.render(Engine::Slurm);
    assert!(script.starts_with("#!/usr/bin/env bash\n"));
    let submits = submit_lines(&script);
    assert_eq!(
        submits,
        [
            "submit 0 k-d node-1 \"\" <<'WORL_EOF'",
            "submit 1 j-a node-0 \"\" <<'WORL_EOF'",
            "submit 2 j-b node-0 \"${JOB[1]}\" <<'WORL_EOF'",
            "submit 3 j-c node-1 \"${JOB[0]}:${JOB[1]}\" <<'WORL_EOF'",
        ]
    );
    assert!(script.contains("--nodelist=\"$3\" --nodes=1 --ntasks=1 --gres=gpu:1"));
    assert!(script.contains("dep=(\"--dependency=afterok:$4\" --kill-on-invalid-dep=yes)"));
    // default device policy: Slurm chooses, the plan's index is in WORL_GPU only
    assert_eq!(script.matches("\nexport WORL_GPU=0\n").count(), 4);
    assert!(!script.contains("CUDA_VISIBLE_DEVICES="), "{script}");
    assert!(script.contains("echo worl task c job j host node-1 gpu 0\nWORL_EOF\n"));
}

#[test]
fn slurm_script_runs_against_a_fake_sbatch() {
    // a stand-in sbatch: records its arguments and batch script, prints ids 101, 102, ...
    let (p, s) = problem_and_schedule(["j", "j"]);
    let options = ExportOptions {
        devices: DevicePolicy::Planned,
        ..ExportOptions::default()
    };
    let plan = ExportPlan::new(&p, &s, &options).unwrap();
    let run = run_fake_sbatch(
        &plan.render(Engine::Slurm),
        &[("WORL_SBATCH_ARGS", "--partition=gpu --time=5")],
        true,
    );
    let stdout = run.stdout;
    assert_eq!(stdout, "d 101\na 102\nb 103\nc 104\n");
    assert_eq!(run.jobs_file, stdout);
    let job = |id: usize| run.records[id - 101].clone();
    let b = job(103);
    let first = b.lines().next().unwrap();
    assert_eq!(
        first,
        "--parsable --job-name=b --nodelist=node-0 --nodes=1 --ntasks=1 --gres=gpu:1 \
         --dependency=afterok:102 --kill-on-invalid-dep=yes --partition=gpu --time=5"
    );
    assert!(
        b.contains("\nexport CUDA_VISIBLE_DEVICES=0 WORL_GPU=0\n"),
        "{b}"
    );
    assert!(
        b.ends_with("echo worl task b job j host node-0 gpu 0\n"),
        "{b}"
    );
    assert!(job(104).starts_with(
        "--parsable --job-name=c --nodelist=node-1 --nodes=1 --ntasks=1 --gres=gpu:1 \
         --dependency=afterok:101:102 --kill-on-invalid-dep=yes"
    ));
    assert!(job(101).starts_with(
        "--parsable --job-name=d --nodelist=node-1 --nodes=1 --ntasks=1 --gres=gpu:1 --partition"
    ));
}

#[test]
fn argo_workflow_has_dag_dependencies_node_selectors_and_gpus() {
    let (p, s) = problem_and_schedule(["J_1", "J_1"]);
    let mut hosts = HostMap::new();
    hosts.insert("node-0", "worker-a");
    let options = ExportOptions {
        hosts,
        name: Some("My Run".into()),
        ..ExportOptions::default()
    };
    let plan = ExportPlan::new(&p, &s, &options).unwrap();
    let v = argo::workflow_value(&plan);
    assert_eq!(v["apiVersion"], "argoproj.io/v1alpha1");
    assert_eq!(v["kind"], "Workflow");
    assert_eq!(v["metadata"]["generateName"], "my-run-");
    assert_eq!(v["spec"]["entrypoint"], "schedule");
    let dag = v["spec"]["templates"][0]["dag"]["tasks"]
        .as_array()
        .unwrap();
    let deps: Vec<(String, serde_json::Value)> = dag
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_owned(),
                t["dependencies"].clone(),
            )
        })
        .collect();
    assert_eq!(deps[0], ("d".into(), serde_json::Value::Null));
    assert_eq!(deps[2], ("b".into(), serde_json::json!(["a"])));
    assert_eq!(deps[3], ("c".into(), serde_json::json!(["d", "a"])));
    let c = &v["spec"]["templates"][4];
    assert_eq!(c["name"], "c");
    assert_eq!(c["nodeSelector"]["kubernetes.io/hostname"], "node-1");
    assert_eq!(c["container"]["resources"]["limits"]["nvidia.com/gpu"], "1");
    assert_eq!(
        c["container"]["env"][0],
        serde_json::json!({"name": "WORL_GPU", "value": "0"})
    );
    assert_eq!(
        v["spec"]["templates"][2]["nodeSelector"]["kubernetes.io/hostname"],
        "worker-a"
    );
    let yaml = plan.render(Engine::Argo);
    assert!(
        yaml.contains("\napiVersion: \"argoproj.io/v1alpha1\"\nkind: \"Workflow\"\n"),
        "{yaml}"
    );
    assert!(yaml.contains("      - name: \"c\"\n        template: \"c\"\n        dependencies:\n        - \"d\"\n        - \"a\"\n"), "{yaml}");
    assert!(
        yaml.contains("    nodeSelector:\n      kubernetes.io/hostname: \"node-1\"\n"),
        "{yaml}"
    );
}

#[test]
fn ray_driver_pins_nodes_and_chains_references() {
    let (p, s) = problem_and_schedule(["j", "j"]);
    let plan = ExportPlan::new(&p, &s, &ExportOptions::default()).unwrap();
    let py = plan.render(Engine::Ray);
    assert!(py.contains("NodeAffinitySchedulingStrategy(node_id=nodes[t[\"host\"]], soft=False)"));
    assert!(py.contains("num_gpus=1"));
    assert!(py.contains("\nPIN_DEVICES = False\n"), "{py}");
    // the TASKS literal is also valid JSON here (plain names, no escapes Python and JSON
    // spell differently); the property tests parse it with Python's ast
    let start = py.find("TASKS = [\n").unwrap() + "TASKS = ".len();
    let end = py[start..].find("\n]\n").unwrap() + start;
    let body = format!("{}\n]", py[start..end].trim_end_matches(','));
    let tasks: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(tasks[3]["name"], "c");
    assert_eq!(tasks[3]["host"], "node-1");
    assert_eq!(tasks[3]["after"], serde_json::json!([0, 1]));
    assert_eq!(tasks[2]["after"], serde_json::json!([1]));
    assert_eq!(
        tasks[3]["command"],
        "echo worl task c job j host node-1 gpu 0"
    );
    let planned = ExportOptions {
        devices: DevicePolicy::Planned,
        ..ExportOptions::default()
    };
    let py = ExportPlan::new(&p, &s, &planned)
        .unwrap()
        .render(Engine::Ray);
    assert!(py.contains("\nPIN_DEVICES = True\n"), "{py}");
}

#[test]
fn errors_name_the_task_or_machine() {
    let (p, _) = problem_and_schedule(["j", "j"]);
    // c planned before a finishes
    let bad = Schedule::new(
        2,
        vec![
            at(0, 0.0, 2.0),
            at(0, 2.0, 5.0),
            at(1, 1.0, 2.0),
            at(1, 0.0, 1.0),
        ],
    )
    .unwrap();
    // refused as invalid first (as `worl validate` would), then, when invalid schedules are
    // allowed, because no engine can run it in order
    let e = ExportPlan::new(&p, &bad, &ExportOptions::default()).unwrap_err();
    assert!(matches!(e, ExportError::Invalid { .. }), "{e}");
    let allow = ExportOptions {
        allow_invalid: true,
        ..ExportOptions::default()
    };
    let e = ExportPlan::new(&p, &bad, &allow).unwrap_err();
    assert!(matches!(e, ExportError::OrderConflict { .. }));
    assert_eq!(
        e.to_string(),
        "task `j/c` starts at 1 s before its data predecessor `j/a` finishes at 2 s"
    );
    let short = Schedule::new(2, vec![at(0, 0.0, 1.0)]).unwrap();
    assert!(matches!(
        ExportPlan::new(&p, &short, &ExportOptions::default()),
        Err(ExportError::Cluster(ClusterError::ShapeMismatch {
            expected: (4, _),
            actual: (1, _),
            ..
        }))
    ));
    let mut hosts = HostMap::new();
    hosts.insert("node-9", "x");
    let options = ExportOptions {
        hosts,
        ..ExportOptions::default()
    };
    let (_, s) = problem_and_schedule(["j", "j"]);
    let e = ExportPlan::new(&p, &s, &options).unwrap_err().to_string();
    assert!(e.contains("machine `node-9` is not in cluster"), "{e}");
    let e = HostMap::parse("node-0=a\nnode-1", "hosts.txt")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "host map hosts.txt:2: entry `node-1` is not `machine=host`"
    );
    assert_eq!(
        HostMap::parse("node-0=a, node-1=b # comment", "--hosts")
            .unwrap()
            .entries()
            .collect::<Vec<_>>(),
        [("node-0", "a"), ("node-1", "b")]
    );
    assert_eq!("k8s".parse::<Engine>().unwrap(), Engine::Argo);
    assert_eq!(
        "nomad".parse::<Engine>().unwrap_err().to_string(),
        "unknown engine `nomad` (known: slurm, argo, ray)"
    );
}

/// Job `j` on two machines of four V100s (`node-0`: g0..g3, `node-1`: g4..g7): `a` (2 s)
/// -> `big` (a 4-GPU gang, work 8: 2 s on four V100s) -> `c` (1 s); `d` (3 s), `e` (1 s) and
/// `f` (1 s) alone. Planned by hand: `e` g0 [0, 1], `a` g1 [0, 2], `d` g4 [0, 3], `big` on
/// `big_set` [3, 5] (its lead first: g1), `f` g2 [5, 6], `c` g4 [6, 7]. With `span` the
/// gang's span.
fn gang_problem_and_schedule(span: Span, big_set: [usize; 4]) -> (Problem, Schedule) {
    let mut b = WorkloadBuilder::new("gang");
    let j = b.add_job("j").unwrap();
    let a = b.add_task(j, "a", 2.0, None).unwrap();
    let big = b.add_task(j, "big", 8.0, None).unwrap();
    let c = b.add_task(j, "c", 1.0, None).unwrap();
    for (name, work) in [("d", 3.0), ("e", 1.0), ("f", 1.0)] {
        b.add_task(j, name, work, None).unwrap();
    }
    b.add_edge(a, big, 0.0).unwrap();
    b.add_edge(big, c, 0.0).unwrap();
    let params = GangParams {
        span,
        ..GangParams::default()
    };
    b.set_gang(big, 4, params).unwrap();
    let p = on_v100s(b, 2, 4);
    let s = Schedule::with_sets(
        8,
        vec![
            at(1, 0.0, 2.0),
            at(big_set[0], 3.0, 5.0),
            at(4, 6.0, 7.0),
            at(4, 0.0, 3.0),
            at(0, 0.0, 1.0),
            at(2, 5.0, 6.0),
        ],
        vec![set(1, &big_set)],
    )
    .unwrap();
    (p, s)
}

/// The GPU set `gpus` of task `task`.
fn set(task: usize, gpus: &[usize]) -> GpuSet {
    GpuSet {
        task: TaskId::new(task),
        gpus: gpus.iter().map(|&k| GpuId::new(k)).collect(),
    }
}

#[test]
fn a_four_gpu_gang_exports_to_every_engine() {
    let (p, s) = gang_problem_and_schedule(Span::Machine, [1, 0, 3, 2]);
    assert_eq!(p.exec_time_on(TaskId::new(1), s.gpus(TaskId::new(1))), 2.0);
    assert_eq!(s.validate(&p), []);
    let planned = ExportOptions {
        devices: DevicePolicy::Planned,
        ..ExportOptions::default()
    };
    let plan = ExportPlan::new(&p, &s, &planned).unwrap();
    assert!(plan.has_gangs());
    // dispatch order by start, then finish: e, a, d, big, f, c
    let names: Vec<&str> = plan.tasks().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["e", "a", "d", "big", "f", "c"]);
    let big = &plan.tasks()[3];
    assert_eq!((big.gpu, big.gpu_id), (1, 1));
    assert_eq!(big.gpus, [1, 0, 3, 2]);
    assert_eq!(big.gpu_ids, [1, 0, 3, 2]);
    assert_eq!(big.gpu_list(), "1,0,3,2");
    // big waits for a (data, and before it on g1) and e (before it on g0); f for big (g2);
    // c for d (g4) and big (data)
    assert_eq!(big.gpu_prev, Some(1));
    assert_eq!(big.gpu_prevs, [0, 1]);
    let after: Vec<Vec<usize>> = plan.tasks().iter().map(|t| t.after.clone()).collect();
    assert_eq!(
        after,
        [vec![], vec![], vec![], vec![0, 1], vec![3], vec![2, 3]]
    );

    // Slurm: the GPU count as submit's fifth argument, the planned device list
    let script = plan.render(Engine::Slurm);
    let submits = submit_lines(&script);
    assert_eq!(
        submits,
        [
            "submit 0 e node-0 \"\" 1 <<'WORL_EOF'",
            "submit 1 a node-0 \"\" 1 <<'WORL_EOF'",
            "submit 2 d node-1 \"\" 1 <<'WORL_EOF'",
            "submit 3 big node-0 \"${JOB[0]}:${JOB[1]}\" 4 <<'WORL_EOF'",
            "submit 4 f node-0 \"${JOB[3]}\" 1 <<'WORL_EOF'",
            "submit 5 c node-1 \"${JOB[2]}:${JOB[3]}\" 1 <<'WORL_EOF'",
        ]
    );
    assert!(script.contains(
        "\n  out=$(\"$SBATCH\" --parsable --job-name=\"$2\" --nodelist=\"$3\" --nodes=1 --ntasks=1 --gres=gpu:\"$5\" \\\n"
    ));
    assert!(script.contains(
        "\n# j / big: node-0 GPUs 1,0,3,2 (ids 1,0,3,2), planned 3.000..5.000 s\n\
         submit 3 big node-0 \"${JOB[0]}:${JOB[1]}\" 4 <<'WORL_EOF'\n\
         #!/usr/bin/env bash\n\
         export CUDA_VISIBLE_DEVICES=1,0,3,2 WORL_GPU=1,0,3,2\n\
         export WORL_TASK=big WORL_JOB=j WORL_HOST=node-0\n\
         echo worl task big job j host node-0 gpu 1,0,3,2\n\
         WORL_EOF\n"
    ));
    assert!(script.contains("\nexport CUDA_VISIBLE_DEVICES=0 WORL_GPU=0\n"));
    // run against a stand-in sbatch: the options it got
    let jobs = run_fake_sbatch(&script, &[], false).records;
    assert_eq!(
        jobs[3].lines().next().unwrap(),
        "--parsable --job-name=big --nodelist=node-0 --nodes=1 --ntasks=1 --gres=gpu:4 \
         --dependency=afterok:101:102 --kill-on-invalid-dep=yes"
    );
    assert_eq!(
        jobs[4].lines().next().unwrap(),
        "--parsable --job-name=f --nodelist=node-0 --nodes=1 --ntasks=1 --gres=gpu:1 \
         --dependency=afterok:104 --kill-on-invalid-dep=yes"
    );

    // Argo: nvidia.com/gpu 4, the machine's node, the list in WORL_GPU and an annotation
    let v = argo::workflow_value(&plan);
    let tpl = &v["spec"]["templates"][4];
    assert_eq!(tpl["name"], "big");
    assert_eq!(tpl["nodeSelector"]["kubernetes.io/hostname"], "node-0");
    assert_eq!(
        tpl["container"]["resources"]["limits"]["nvidia.com/gpu"],
        "4"
    );
    assert_eq!(
        tpl["container"]["env"][0],
        serde_json::json!({"name": "WORL_GPU", "value": "1,0,3,2"})
    );
    assert_eq!(tpl["metadata"]["labels"]["worl/gpu"], "1");
    assert_eq!(tpl["metadata"]["annotations"]["worl/gpus"], "1,0,3,2");
    assert_eq!(
        v["spec"]["templates"][5]["container"]["resources"]["limits"]["nvidia.com/gpu"],
        "1"
    );
    let yaml = plan.render(Engine::Argo);
    assert!(
        yaml.contains(
            "  - name: \"big\"\n    metadata:\n      labels:\n        worl/gpu: \"1\"\n      \
             annotations:\n        worl/gpus: \"1,0,3,2\"\n    nodeSelector:\n      \
             kubernetes.io/hostname: \"node-0\"\n"
        ),
        "{yaml}"
    );
    assert!(
        yaml.contains("      resources:\n        limits:\n          nvidia.com/gpu: \"4\"\n"),
        "{yaml}"
    );
    assert_eq!(yaml.matches("nvidia.com/gpu: \"1\"\n").count(), 5);

    // Ray: num_gpus 4 and the index list in TASKS
    let py = plan.render(Engine::Ray);
    assert!(py.contains(
        "\n    {\"name\": \"big\", \"task\": \"big\", \"job\": \"j\", \"host\": \"node-0\", \
         \"gpus\": [1, 0, 3, 2], \"num_gpus\": 4, \"command\": \
         \"echo worl task big job j host node-0 gpu 1,0,3,2\", \"after\": [0, 1]},\n"
    ));
    assert!(py.contains(
        "\n    {\"name\": \"e\", \"task\": \"e\", \"job\": \"j\", \"host\": \"node-0\", \
         \"gpus\": [0], \"num_gpus\": 1, \"command\": \
         \"echo worl task e job j host node-0 gpu 0\", \"after\": []},\n"
    ));
    assert!(
        py.contains("name=t[\"name\"], num_gpus=t[\"num_gpus\"], scheduling_strategy=strategy")
    );
    assert!(py.contains("devices = \",\".join(str(g) for g in gpus)\n"));
    assert!(!py.contains("num_gpus=1"), "{py}");
    assert!(py.contains("\nPIN_DEVICES = True\n"));
}

/// What [`run_fake_sbatch`] saw: the script's standard output, the jobs file it wrote and
/// each job's record (`sbatch`'s options on the first line, then the batch script), in
/// order of the job ids 101, 102, ...
struct FakeRun {
    stdout: String,
    jobs_file: String,
    records: Vec<String>,
}

/// Runs a Slurm `script` against a stand-in `sbatch` that records its options and batch
/// script and prints job ids 101, 102, ..., with the environment variables `env` added and
/// `WORL_JOBS_FILE` (a file of the temporary folder) set when `jobs_file`.
fn run_fake_sbatch(script: &str, env: &[(&str, &str)], jobs_file: bool) -> FakeRun {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("submit.sh"), script).unwrap();
    let fake = d.join("sbatch");
    std::fs::write(
        &fake,
        "#!/usr/bin/env bash\nn=$(( $(ls \"$LOG\" | wc -l) + 101 ))\n{ echo \"$*\"; cat; } > \"$LOG/$n\"\necho \"$n;cluster\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let logs = d.join("logs");
    std::fs::create_dir(&logs).unwrap();
    let jobs = d.join("jobs.txt");
    let mut cmd = std::process::Command::new("bash");
    cmd.arg(d.join("submit.sh"))
        .env("SBATCH", &fake)
        .env("LOG", &logs)
        .envs(env.iter().copied());
    if jobs_file {
        cmd.env("WORL_JOBS_FILE", &jobs);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let n = std::fs::read_dir(&logs).unwrap().count();
    FakeRun {
        stdout: String::from_utf8(out.stdout).unwrap(),
        jobs_file: if jobs_file {
            std::fs::read_to_string(&jobs).unwrap()
        } else {
            String::new()
        },
        records: (101..101 + n)
            .map(|id| std::fs::read_to_string(logs.join(id.to_string())).unwrap())
            .collect(),
    }
}

#[test]
fn a_gang_across_machines_or_off_its_size_is_refused_naming_it() {
    // span cluster on g1, g0 (node-0) and g4, g5 (node-1): no engine runs one task on two
    // nodes; refused even when invalid schedules are allowed
    let (p, s) = gang_problem_and_schedule(Span::Cluster, [1, 0, 4, 5]);
    let allow = ExportOptions {
        allow_invalid: true,
        ..ExportOptions::default()
    };
    let e = ExportPlan::new(&p, &s, &allow).unwrap_err();
    assert!(
        matches!(&e, ExportError::GangAcrossMachines { task, gpus: 4, machines }
            if task == "j/big" && machines == &["node-0", "node-1"]),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "task `j/big` runs on 4 GPUs across machines `node-0`, `node-1`: a gang across \
         machines cannot be exported (each engine runs a task on one node); give it span \
         `machine`"
    );
    // the gang given only its lead GPU (no set): the engines would run it on one device
    let (p, s) = gang_problem_and_schedule(Span::Machine, [1, 0, 3, 2]);
    let lead_only = Schedule::new(8, s.tasks().to_vec()).unwrap();
    let e = ExportPlan::new(&p, &lead_only, &ExportOptions::default()).unwrap_err();
    assert!(matches!(e, ExportError::Invalid { .. }), "{e}");
    let e = ExportPlan::new(&p, &lead_only, &allow).unwrap_err();
    assert_eq!(
        e.to_string(),
        "task `j/big` needs 4 GPUs at once but the schedule gives it 1 (g1); an engine would \
         not run it on its planned GPUs"
    );
    // a repeated GPU
    let repeated = Schedule::with_sets(8, s.tasks().to_vec(), vec![set(1, &[1, 0, 0, 2])]).unwrap();
    let e = ExportPlan::new(&p, &repeated, &allow).unwrap_err();
    assert!(
        matches!(&e, ExportError::GangSet { gpus: 4, given: 3, set, .. } if set == "g1,g0,g0,g2"),
        "{e}"
    );
    // machine names in the message stay on one line
    let e = ExportError::GangAcrossMachines {
        task: "j/x".into(),
        gpus: 2,
        machines: vec!["a\nb".into(), "c".into()],
    };
    assert_eq!(e.to_string().lines().count(), 1);
    assert!(e.to_string().contains("`a\\nb`, `c`"));
}
