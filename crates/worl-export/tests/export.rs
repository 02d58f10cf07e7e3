//! Exports of hand-made schedules: dispatch order, the two kinds of dependency edges, host
//! mapping, names, and each engine's artifact checked line by line; typed errors.

use std::sync::Arc;
use worl_cluster::{GpuId, GpuModel, Problem, Schedule, ScheduledTask, presets};
use worl_dag::WorkloadBuilder;
use worl_export::{
    CommandTemplate, DevicePolicy, Engine, ExportError, ExportOptions, ExportPlan, HostMap, argo,
};

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
    let w = Arc::new(b.build().unwrap());
    let cluster =
        presets::cluster(&presets::ClusterSpec::new(2, 1, &GpuModel::v100_16gb())).unwrap();
    let p = Problem::new(w, Arc::new(cluster)).unwrap();
    let t = |g: usize, s: f64, f: f64| ScheduledTask {
        gpu: GpuId::new(g),
        start: s,
        finish: f,
    };
    let s = Schedule::new(
        2,
        vec![
            t(0, 0.0, 2.0),
            t(0, 2.0, 5.0),
            t(1, 3.0, 4.0),
            t(1, 0.0, 1.0),
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
    let submits: Vec<&str> = script
        .lines()
        .filter(|l| l.starts_with("submit "))
        .collect();
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
    use std::os::unix::fs::PermissionsExt;
    // a stand-in sbatch: records its arguments and batch script, prints ids 101, 102, ...
    let (p, s) = problem_and_schedule(["j", "j"]);
    let options = ExportOptions {
        devices: DevicePolicy::Planned,
        ..ExportOptions::default()
    };
    let plan = ExportPlan::new(&p, &s, &options).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let script = d.join("submit.sh");
    std::fs::write(&script, plan.render(Engine::Slurm)).unwrap();
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
    let out = std::process::Command::new("bash")
        .arg(&script)
        .env("SBATCH", &fake)
        .env("LOG", &logs)
        .env("WORL_SBATCH_ARGS", "--partition=gpu --time=5")
        .env("WORL_JOBS_FILE", &jobs)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout, "d 101\na 102\nb 103\nc 104\n");
    assert_eq!(std::fs::read_to_string(&jobs).unwrap(), stdout);
    let job = |id: u32| std::fs::read_to_string(logs.join(id.to_string())).unwrap();
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
    let t = |g: usize, s: f64, f: f64| ScheduledTask {
        gpu: GpuId::new(g),
        start: s,
        finish: f,
    };
    let bad = Schedule::new(
        2,
        vec![
            t(0, 0.0, 2.0),
            t(0, 2.0, 5.0),
            t(1, 1.0, 2.0),
            t(1, 0.0, 1.0),
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
    let short = Schedule::new(2, vec![t(0, 0.0, 1.0)]).unwrap();
    assert!(matches!(
        ExportPlan::new(&p, &short, &ExportOptions::default()),
        Err(ExportError::Shape {
            schedule_tasks: 1,
            tasks: 4,
            ..
        })
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

#[test]
fn a_gang_task_is_refused_naming_it() {
    let (p, s) = problem_and_schedule(["j", "k"]);
    let mut b = p.workload().to_builder();
    let bb = b.task_id(worl_dag::JobId::new(0), "b").unwrap();
    let cluster_span = worl_dag::GangParams {
        span: worl_dag::Span::Cluster,
        ..Default::default()
    };
    b.set_gang(bb, 2, cluster_span).unwrap();
    let gang = Problem::new(Arc::new(b.build().unwrap()), p.cluster_arc().clone()).unwrap();
    // refused even when invalid schedules are allowed: the engines would run it on one GPU
    let allow = ExportOptions {
        allow_invalid: true,
        ..ExportOptions::default()
    };
    let e = ExportPlan::new(&gang, &s, &allow).unwrap_err();
    assert!(matches!(e, ExportError::GangTask { gpus: 2, .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "task `j/b` needs 2 GPUs at once; the exporters write one GPU per task and cannot run a gang task yet"
    );
    // the same schedule of the single-GPU workload exports
    assert!(ExportPlan::new(&p, &s, &ExportOptions::default()).is_ok());
}
