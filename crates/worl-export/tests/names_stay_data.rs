//! Regression tests of issue 20 for the exporters: names that once ran as code or changed
//! the artifact (a here-document terminator in a Slurm task name, YAML 1.1 line breaks in
//! Argo names, quotes in Ray names), the device policy, export of invalid schedules, host
//! maps that put two machines on one host, NUL in names. Each artifact is run or parsed as
//! its engine would (bash against a stand-in sbatch, a YAML parser, Python's `ast`).

mod common;

use common::{Names, RECORD, Sandbox};
use std::sync::Arc;
use worl_cluster::{GpuId, GpuModel, Problem, Schedule, ScheduledTask};
use worl_dag::WorkloadBuilder;
use worl_export::{
    CommandTemplate, DevicePolicy, Engine, ExportError, ExportOptions, ExportPlan, HostMap,
};
use worl_io::{ScheduleFile, ScheduleMeta};

/// A problem of the given task names (one job `job`), on two machines `machines` of two
/// GPUs each; task `i` on GPU `i % 4`, a chain `0 -> 1 -> 2 ...` of data edges.
fn names(workload: &str, cluster: &str, job: &str, tasks: &[&str], machines: [&str; 2]) -> Names {
    Names {
        workload: workload.into(),
        cluster: cluster.into(),
        jobs: vec![job.into()],
        tasks: tasks.iter().map(|t| (0, (*t).to_owned())).collect(),
        machines: machines.iter().map(|m| (*m).to_owned()).collect(),
        edges: (1..tasks.len()).map(|i| (i - 1, i)).collect(),
        gpus: (0..tasks.len()).map(|i| i % 4).collect(),
    }
}

fn record_options() -> ExportOptions {
    ExportOptions {
        command: CommandTemplate::new(RECORD).unwrap(),
        ..ExportOptions::default()
    }
}

#[test]
fn slurm_heredoc_terminator_in_task_name_stays_data() {
    // the DAX id `A&#10;WORL_EOF&#10;touch pwned`, and more ways out of a batch
    // script. Workloads now refuse control characters in names (they become U+2028 here,
    // see common::model_name); machine and host names still carry line breaks
    let n = names(
        "w\nWORL_EOF\ncanary w",
        "c",
        "j`canary`\nWORL_EOF",
        &[
            "A\nWORL_EOF\ncanary pwned",
            "B\r\nWORL_EOF\r\n$(canary)",
            "WORL_EOF",
            "'\nWORL_EOF\n'; canary '",
            "\\\nWORL_EOF_2\ncanary",
        ],
        ["m0\nWORL_EOF\ncanary machine", "m1"],
    );
    let (p, s) = common::problem(&n);
    let mut options = record_options();
    options.hosts.insert("m1", "h\nWORL_EOF\ncanary host");
    let plan = ExportPlan::new(&p, &s, &options).unwrap();
    let script = plan.render(Engine::Slurm);
    // no line of the script but the five terminators ends a here-document
    assert_eq!(
        script.lines().filter(|l| l.starts_with("WORL_EOF")).count(),
        5
    );
    assert!(!script.contains('\r'), "raw CR in the script");
    let Some(bash) = common::tool("bash") else {
        return;
    };
    let got = Sandbox::new(&bash).run_slurm(&script);
    common::check_slurm(&plan, &got);
    // the task names, as the model keeps them; machine and host names with their line breaks
    assert_eq!(
        got[0].command_args[0],
        common::model_name("A\nWORL_EOF\ncanary pwned")
    );
    assert!(
        got.iter()
            .any(|g| g.command_args[2] == "m0\nWORL_EOF\ncanary machine")
    );
    assert!(
        got.iter()
            .any(|g| g.args[2] == "--nodelist=h\nWORL_EOF\ncanary host"
                && g.env[2] == "h\nWORL_EOF\ncanary host")
    );
}

#[test]
fn slurm_command_template_with_terminator_line_stays_in_its_batch_script() {
    // the template is code: a line `WORL_EOF` in it belongs to the batch script, which must
    // still reach sbatch whole (the delimiter is chosen absent from the body)
    let n = names("w", "c", "j", &["a", "b"], ["m0", "m1"]);
    let (p, s) = common::problem(&n);
    let options = ExportOptions {
        command: CommandTemplate::new(&format!("{RECORD}\ntrue <<'X'\nWORL_EOF\nX")).unwrap(),
        ..ExportOptions::default()
    };
    let plan = ExportPlan::new(&p, &s, &options).unwrap();
    let script = plan.render(Engine::Slurm);
    assert_eq!(script.matches("<<'WORL_EOF_2'\n").count(), 2, "{script}");
    let Some(bash) = common::tool("bash") else {
        return;
    };
    let got = Sandbox::new(&bash).run_slurm(&script);
    common::check_slurm(&plan, &got);
    assert!(
        got[1].script.ends_with("\ntrue <<'X'\nWORL_EOF\nX\n"),
        "{}",
        got[1].script
    );
}

#[test]
fn argo_unicode_line_separators_cannot_inject_keys() {
    // each of these ends a comment or a plain line under YAML 1.1 (go-yaml, PyYAML)
    let n = names(
        "w\u{2028}status: {phase: Succeeded}",
        "c\u{2029}kind: Pod\u{85}x: y",
        "j\r\nspec: {}",
        &[
            "a\u{85}metadata: {}",
            "b\u{2028}- c",
            "d\r\u{b}\u{c}e",
            "#\u{2029}apiVersion: v9",
        ],
        ["m\u{2028}0", "m1\u{85}"],
    );
    let (p, s) = common::problem(&n);
    let plan = ExportPlan::new(&p, &s, &ExportOptions::default()).unwrap();
    let yaml = plan.render(Engine::Argo);
    common::check_argo(&plan, &yaml);
    let v = common::parse_yaml(&yaml);
    assert_eq!(
        v["metadata"]["annotations"]["worl/workload"],
        common::model_name(&n.workload)
    );
    assert_eq!(
        v["metadata"]["annotations"]["worl/cluster"],
        "c\u{2029}kind: Pod\u{85}x: y"
    );
    assert!(v.get("status").is_none());
    // a YAML 1.1 reader (PyYAML, where installed) reads the same
    if let Some(python) = common::tool("python3") {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("w.yaml");
        std::fs::write(&f, &yaml).unwrap();
        let out = std::process::Command::new(python)
            .args([
                "-c",
                "import json, sys\ntry:\n    import yaml\nexcept ImportError:\n    sys.exit(3)\nprint(json.dumps(yaml.safe_load(open(sys.argv[1]))))",
            ])
            .arg(&f)
            .output()
            .unwrap();
        if out.status.code() == Some(3) {
            eprintln!("PyYAML not installed: YAML 1.1 read-back skipped");
        } else {
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let py: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(py, v);
        }
    }
}

#[test]
fn argo_next_line_in_names_stays_in_env_values() {
    // U+0085 once became a space: in a host (workloads now refuse it in task names, so
    // the task carries U+2028, also a YAML 1.1 line break)
    let n = names("w", "c", "j", &["x\u{2028}y", "x y"], ["m0", "m1"]);
    let (p, s) = common::problem(&n);
    let mut options = ExportOptions::default();
    options.hosts.insert("m0", "x\u{85}y");
    let plan = ExportPlan::new(&p, &s, &options).unwrap();
    assert_eq!(plan.tasks()[0].host, "x\u{85}y");
    let yaml = plan.render(Engine::Argo);
    assert!(yaml.contains("value: \"x\\x85y\""), "{yaml}");
    assert!(yaml.contains("value: \"x\\u2028y\""), "{yaml}");
    let v = common::parse_yaml(&yaml);
    let env = &v["spec"]["templates"][1]["container"]["env"];
    assert_eq!(env[1]["value"], "x\u{2028}y");
    assert_eq!(env[3]["value"], "x\u{85}y");
    assert_eq!(
        v["spec"]["templates"][1]["nodeSelector"]["kubernetes.io/hostname"],
        "x\u{85}y"
    );
    common::check_argo(&plan, &yaml);
}

#[test]
fn ray_quotes_and_line_breaks_in_names_stay_string_data() {
    // `''''` once closed the raw '''-string the tasks were kept in
    let n = names(
        "w'''\nimport os",
        "c\"\"\"\\",
        "j\\",
        &[
            "''''",
            "'''",
            "\"\"\"",
            "a\\",
            "\u{2028}\r\n#",
            "\")\nos.system('canary')\n#",
        ],
        ["m0", "m1"],
    );
    let (p, s) = common::problem(&n);
    let plan = ExportPlan::new(&p, &s, &record_options()).unwrap();
    let py = plan.render(Engine::Ray);
    assert!(py.bytes().all(|b| b == b'\n' || (b' '..=b'~').contains(&b)));
    let plain = names("w", "c", "j", &["a"], ["m0", "m1"]);
    let (pp, ps) = common::problem(&plain);
    let reference = ExportPlan::new(&pp, &ps, &ExportOptions::default())
        .unwrap()
        .render(Engine::Ray);
    let Some(parsed) = common::parse_python(&[reference, py]) else {
        return;
    };
    common::check_python(&plan, &parsed[1], &parsed[0].skeleton);
    if let Some(sh) = common::tool("sh") {
        let commands: Vec<String> = plan.tasks().iter().map(|t| t.command.clone()).collect();
        let bash = common::tool("bash").unwrap_or_else(|| sh.clone());
        let calls = Sandbox::new(&bash).run_sh(&sh, &commands);
        assert_eq!(calls, common::record_args(&plan));
    }
}

#[test]
fn slurm_device_policy_engine_leaves_the_gpu_to_slurm() {
    let n = names("w", "c", "j", &["a", "b", "c"], ["m0", "m1"]);
    let (p, s) = common::problem(&n);
    let plan = ExportPlan::new(&p, &s, &record_options()).unwrap();
    assert_eq!(plan.devices(), DevicePolicy::Engine);
    let script = plan.render(Engine::Slurm);
    assert!(!script.contains("CUDA_VISIBLE_DEVICES="), "{script}");
    assert!(script.contains("\nexport WORL_GPU=1\n"), "{script}");
    let Some(bash) = common::tool("bash") else {
        return;
    };
    let got = Sandbox::new(&bash).run_slurm(&script);
    common::check_slurm(&plan, &got);
    assert_eq!(got[1].env[3..], ["1", "<unset>"]);
}

#[test]
fn slurm_device_policy_planned_sets_cuda_visible_devices() {
    let n = names("w", "c", "j", &["a", "b", "c"], ["m0", "m1"]);
    let (p, s) = common::problem(&n);
    let mut options = record_options();
    options.set_policy("devices=planned").unwrap();
    let plan = ExportPlan::new(&p, &s, &options).unwrap();
    let script = plan.render(Engine::Slurm);
    assert!(
        script.contains("\nexport CUDA_VISIBLE_DEVICES=1 WORL_GPU=1\n"),
        "{script}"
    );
    let Some(bash) = common::tool("bash") else {
        return;
    };
    let got = Sandbox::new(&bash).run_slurm(&script);
    common::check_slurm(&plan, &got);
    assert_eq!(got[1].env[3..], ["1", "1"]);
}

#[test]
fn device_policy_spec_parses_and_errors_name_the_entry() {
    let mut o = ExportOptions::default();
    assert_eq!(o.devices, DevicePolicy::Engine);
    o.set_policy("devices=planned").unwrap();
    assert_eq!(o.devices, DevicePolicy::Planned);
    o.set_policy(" devices = SLURM ").unwrap();
    assert_eq!(o.devices, DevicePolicy::Engine);
    let e = o.set_policy("devices=planned,devices=engine").unwrap_err();
    assert!(
        e.to_string()
            .contains("policy key `devices` is given twice"),
        "{e}"
    );
    assert_eq!(o.devices, DevicePolicy::Engine);
    assert_eq!(
        o.set_policy("devices=gpu0").unwrap_err().to_string(),
        "policy `devices=gpu0`: the device policy is `planned` or `slurm` (also `engine`)"
    );
    assert_eq!(
        o.set_policy("gpus=planned").unwrap_err().to_string(),
        "policy `gpus=planned`: unknown key (known: devices)"
    );
    assert!(matches!(
        o.set_policy("planned"),
        Err(ExportError::Policy { .. })
    ));
}

/// `a -> b` (1 GB) and `c` alone, one job, on two machines of one V100 each.
fn fork() -> Problem {
    let mut b = WorkloadBuilder::new("fork");
    let j = b.add_job("j").unwrap();
    let a = b.add_task(j, "a", 2.0, None).unwrap();
    let bb = b.add_task(j, "b", 1.0, None).unwrap();
    b.add_task(j, "c", 1.0, None).unwrap();
    b.add_edge(a, bb, 1e9).unwrap();
    let c = worl_cluster::ClusterSpec::new(2, 1, &GpuModel::v100_16gb())
        .build()
        .unwrap();
    Problem::new(Arc::new(b.build().unwrap()), Arc::new(c)).unwrap()
}

fn at(g: usize, s: f64, f: f64) -> ScheduledTask {
    ScheduledTask {
        gpu: GpuId::new(g),
        start: s,
        finish: f,
    }
}

#[test]
fn export_refuses_overlapping_schedule_that_validate_rejects() {
    let p = fork();
    // c overlaps a on g0; a -> b's data (1 GB) is ready long before b starts at 100 s
    let s = Schedule::new(
        2,
        vec![at(0, 0.0, 2.0), at(1, 100.0, 101.0), at(0, 1.0, 2.0)],
    )
    .unwrap();
    assert!(!s.validate(&p).is_empty());
    let e = ExportPlan::new(&p, &s, &ExportOptions::default()).unwrap_err();
    let ExportError::Invalid {
        violations,
        explained,
    } = &e
    else {
        panic!("{e}")
    };
    assert_eq!(violations.len(), 1, "{explained:?}");
    assert_eq!(violations[0].constraint(), "overlap");
    assert!(
        explained[0].contains("`j/c`") && explained[0].contains("`j/a`"),
        "{explained:?}"
    );
    let msg = e.to_string();
    assert!(
        msg.starts_with("the schedule is not valid (1 violation(s)"),
        "{msg}"
    );
    assert!(msg.contains("--allow-invalid"), "{msg}");
    let allow = ExportOptions {
        allow_invalid: true,
        ..ExportOptions::default()
    };
    assert_eq!(ExportPlan::new(&p, &s, &allow).unwrap().tasks().len(), 3);
}

#[test]
fn export_refuses_late_data_that_validate_rejects() {
    let p = fork();
    // b starts right when a finishes, on the other machine: its 1 GB are not there yet
    let s = Schedule::new(2, vec![at(0, 0.0, 2.0), at(1, 2.0, 3.0), at(1, 0.0, 1.0)]).unwrap();
    let e = ExportPlan::new(&p, &s, &ExportOptions::default()).unwrap_err();
    let ExportError::Invalid { violations, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(violations.len(), 1, "{e}");
    assert_eq!(violations[0].constraint(), "precedence");
    // the same from a schedule file, as `worl export` reads it
    let file = ScheduleFile::new(&p, &s, ScheduleMeta::default()).unwrap();
    let e = ExportPlan::from_file(&p, &file, &ExportOptions::default()).unwrap_err();
    assert!(matches!(e, ExportError::Invalid { .. }), "{e}");
    // a valid one goes through both ways
    let late = 2.0 + p.comm_time(1e9, GpuId::new(0), GpuId::new(1));
    let ok = Schedule::new(
        2,
        vec![at(0, 0.0, 2.0), at(1, late, late + 1.0), at(1, 0.0, 1.0)],
    )
    .unwrap();
    ExportPlan::new(&p, &ok, &ExportOptions::default()).unwrap();
    let file = ScheduleFile::new(&p, &ok, ScheduleMeta::default()).unwrap();
    ExportPlan::from_file(&p, &file, &ExportOptions::default()).unwrap();
}

#[test]
fn hosts_mapping_two_machines_to_one_host_is_refused() {
    let p = fork();
    let s = Schedule::new(
        2,
        vec![at(0, 0.0, 2.0), at(1, 100.0, 101.0), at(1, 0.0, 1.0)],
    )
    .unwrap();
    let both = ExportOptions {
        hosts: HostMap::parse("node-0=gpu01,node-1=gpu01", "--hosts").unwrap(),
        ..ExportOptions::default()
    };
    let e = ExportPlan::new(&p, &s, &both).unwrap_err();
    assert!(matches!(e, ExportError::SharedHost { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "host map: machines `node-0` and `node-1` both map to host `gpu01` (each machine needs its own host)"
    );
    // a machine mapped onto another machine's own name
    let onto = ExportOptions {
        hosts: HostMap::parse("node-0=node-1", "--hosts").unwrap(),
        ..ExportOptions::default()
    };
    let e = ExportPlan::new(&p, &s, &onto).unwrap_err().to_string();
    assert!(
        e.contains("`node-0` and `node-1` both map to host `node-1`"),
        "{e}"
    );
    // swapping is fine
    let swap = ExportOptions {
        hosts: HostMap::parse("node-0=node-1,node-1=node-0", "--hosts").unwrap(),
        ..ExportOptions::default()
    };
    let plan = ExportPlan::new(&p, &s, &swap).unwrap();
    // c (on node-1) is first: it starts with a and finishes first
    assert_eq!(plan.tasks()[0].task, "c");
    assert_eq!(plan.tasks()[0].host, "node-0");
}

#[test]
fn host_map_giving_a_machine_twice_is_refused() {
    let e = HostMap::parse("node-0=a\nnode-1=b\nnode-0=c", "hosts.txt").unwrap_err();
    assert!(matches!(e, ExportError::DuplicateMachine { .. }));
    assert_eq!(
        e.to_string(),
        "host map hosts.txt:3: machine `node-0` is given twice"
    );
}

#[test]
fn nul_in_a_name_is_a_typed_error() {
    let p = fork();
    let s = Schedule::new(
        2,
        vec![at(0, 0.0, 2.0), at(1, 100.0, 101.0), at(1, 0.0, 1.0)],
    )
    .unwrap();
    let mut options = ExportOptions::default();
    options.hosts.insert("node-1", "gpu\0x");
    let e = ExportPlan::new(&p, &s, &options).unwrap_err();
    assert!(matches!(e, ExportError::Nul { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "host of machine `node-1` contains a NUL character, which no engine can carry: gpu\\0x"
    );
    // a task name with NUL: refused by the workload builder, or else by the exporter
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("j").unwrap();
    if b.add_task(j, "a\0b", 1.0, None).is_ok() {
        let c = worl_cluster::ClusterSpec::new(1, 1, &GpuModel::v100_16gb())
            .build()
            .unwrap();
        let p = Problem::new(Arc::new(b.build().unwrap()), Arc::new(c)).unwrap();
        let exec = p.exec_time(worl_dag::TaskId::new(0), GpuId::new(0));
        let s = Schedule::new(1, vec![at(0, 0.0, exec)]).unwrap();
        let e = ExportPlan::new(&p, &s, &ExportOptions::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "name of task t0 contains a NUL character, which no engine can carry: a\\0b"
        );
    }
}

#[test]
fn harness_catches_names_that_run_as_code() {
    // the checks above are only as good as the stand-ins: a script that runs a program, or
    // only writes a file, must fail them
    let Some(bash) = common::tool("bash") else {
        return;
    };
    let sandbox = Sandbox::new(&bash);
    for (script, says) in [
        (
            "canary injected\n",
            "injected code ran: canary ran: injected",
        ),
        (": > pwned\n", "injected code wrote [\"pwned\"]"),
    ] {
        let e = std::panic::catch_unwind(|| sandbox.run_slurm(script)).unwrap_err();
        let msg = e.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.contains(says), "{msg}");
        // clean up for the next script
        let _ = std::fs::remove_file(sandbox.canary_log());
        sandbox.clear_work();
    }
    // the old Slurm export: a fixed here-document delimiter and raw names
    let old = "submit() { \"$SBATCH\" --parsable --job-name=\"$1\" >/dev/null; }\n\
               submit a <<'WORL_EOF'\nrecord A\nWORL_EOF\ncanary pwned\nWORL_EOF\n";
    let e = std::panic::catch_unwind(|| sandbox.run_slurm(old)).unwrap_err();
    let msg = e.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("canary ran: pwned"), "{msg}");
}
