//! `worl export` run by real engines: schedule a 10-task DAG on one machine of four GPUs,
//! export it, run it, and check from the tasks' own logs that every task ran on its planned
//! node with its planned GPU index, after all its data predecessors ended and after the task
//! before it on its GPU ended.
//!
//! The gang case does the same with a 5-task workload holding one 2-GPU gang task (span
//! `machine`) among 1-GPU tasks: the gang's job gets `--gres=gpu:2` (Ray: `num_gpus=2`) and
//! must see `CUDA_VISIBLE_DEVICES` (and `WORL_GPU`) equal to its planned set's indices,
//! comma-separated, lead first; and it must start after the task before it on each GPU of its
//! set ended.
//!
//! * Slurm: only with `WORL_SLURM_LIVE=1` (set by `.ci/slurm.sh`, which starts a one-node
//!   Slurm with `Gres=gpu:4`); `WORL_SLURM_NODE` names the node (default `hostname -s`).
//! * Ray: only with `WORL_RAY_LIVE=1` and a running Ray head on this machine with 4 logical
//!   GPUs (`ray start --head --num-gpus 4`, see `.ci/slurm.sh`'s notes); `WORL_RAY_PYTHON`
//!   is the Python that has `ray` (default `python3`).
//!
//! Without them each test prints a skip notice and passes.
//!
//! `export_refuses_what_validate_rejects_and_takes_the_device_policy` needs no engine: it
//! checks `worl export`'s refusal of invalid schedules, `--allow-invalid` and `--policy`.

use assert_cmd::Command;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

/// Ten tasks: `a` fans out to `b1..b4`, pairs join in `c1`, `c2`, then `d1`, `d2`, `e`.
const EDGES: [(&str, &str); 12] = [
    ("a", "b1"),
    ("a", "b2"),
    ("a", "b3"),
    ("a", "b4"),
    ("b1", "c1"),
    ("b2", "c1"),
    ("b3", "c2"),
    ("b4", "c2"),
    ("c1", "d1"),
    ("c2", "d2"),
    ("d1", "e"),
    ("d2", "e"),
];
const WORK: [(&str, f64); 10] = [
    ("a", 2.0),
    ("b1", 3.0),
    ("b2", 1.0),
    ("b3", 4.0),
    ("b4", 2.0),
    ("c1", 2.0),
    ("c2", 3.0),
    ("d1", 1.0),
    ("d2", 2.0),
    ("e", 1.0),
];
const CLUSTER: &str = "1x4:V100-16GB";

/// The gang case: `p -> g -> q` with `g` a 2-GPU gang (work 4: 2 s on two V100s), and `x`,
/// `y` alone; (name, work, GPUs).
const GANG_WORK: [(&str, f64, u32); 5] = [
    ("p", 2.0, 1),
    ("g", 4.0, 2),
    ("q", 1.0, 1),
    ("x", 3.0, 1),
    ("y", 1.0, 1),
];
const GANG_EDGES: [(&str, &str); 2] = [("p", "g"), ("g", "q")];

/// The 10-task workload (native JSON).
fn workload() -> String {
    let work: Vec<(&str, f64, u32)> = WORK.iter().map(|&(n, w)| (n, w, 1)).collect();
    workload_json(&work, &EDGES)
}

/// A one-job workload in native JSON: tasks (name, work, GPUs; `gpus` written when more
/// than 1), edges of 1 MB.
fn workload_json(work: &[(&str, f64, u32)], edges: &[(&str, &str)]) -> String {
    let tasks: Vec<String> = work
        .iter()
        .map(|&(n, w, g)| {
            if g > 1 {
                format!("{{\"name\": \"{n}\", \"work\": {w}, \"gpus\": {g}}}")
            } else {
                format!("{{\"name\": \"{n}\", \"work\": {w}}}")
            }
        })
        .collect();
    let edges: Vec<String> = edges
        .iter()
        .map(|(f, t)| format!("{{\"from\": \"{f}\", \"to\": \"{t}\", \"bytes\": 1e6}}"))
        .collect();
    format!(
        "{{\"format\": \"worl-workload\", \"version\": 1, \"name\": \"live\", \"jobs\": [{{\"name\": \"j\", \"tasks\": [{}], \"edges\": [{}]}}]}}",
        tasks.join(", "),
        edges.join(", ")
    )
}

fn ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// What a task's log says: node, GPU index list (`WORL_GPU`: one index, or a gang's
/// comma-separated indices), `CUDA_VISIBLE_DEVICES`, start and end (Unix seconds).
#[derive(Debug)]
struct Ran {
    node: String,
    host: String,
    gpu: String,
    visible: String,
    start: f64,
    end: f64,
}

fn read_log(path: &Path) -> Ran {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut ran = Ran {
        node: String::new(),
        host: String::new(),
        gpu: String::new(),
        visible: String::new(),
        start: f64::NAN,
        end: f64::NAN,
    };
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f.as_slice() {
            ["start", t, node, host, gpu, visible] => {
                ran.start = t.parse().unwrap();
                ran.node = (*node).to_owned();
                ran.host = (*host).to_owned();
                ran.gpu = (*gpu).to_owned();
                ran.visible = (*visible).to_owned();
            }
            ["end", t] => ran.end = t.parse().unwrap(),
            _ => panic!("{}: unexpected line `{line}`", path.display()),
        }
    }
    assert!(
        ran.start.is_finite() && ran.end.is_finite(),
        "{}: {text}",
        path.display()
    );
    ran
}

fn short_hostname() -> String {
    let out = std::process::Command::new("hostname")
        .arg("-s")
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

#[test]
fn slurm_runs_the_exported_schedule_as_planned() {
    if std::env::var("WORL_SLURM_LIVE").as_deref() != Ok("1") {
        eprintln!("skipped: set WORL_SLURM_LIVE=1 with a running Slurm (see .ci/slurm.sh)");
        return;
    }
    let node = std::env::var("WORL_SLURM_NODE").unwrap_or_else(|_| short_hostname());
    run_and_check("slurm", &node, &TEN);
}

#[test]
fn slurm_runs_a_gang_task_on_its_planned_gpus() {
    if std::env::var("WORL_SLURM_LIVE").as_deref() != Ok("1") {
        eprintln!("skipped: set WORL_SLURM_LIVE=1 with a running Slurm (see .ci/slurm.sh)");
        return;
    }
    let node = std::env::var("WORL_SLURM_NODE").unwrap_or_else(|_| short_hostname());
    run_and_check("slurm", &node, &gang_case());
}

#[test]
fn ray_runs_the_exported_schedule_as_planned() {
    if std::env::var("WORL_RAY_LIVE").as_deref() != Ok("1") {
        eprintln!(
            "skipped: set WORL_RAY_LIVE=1 with a running Ray head (ray start --head --num-gpus 4)"
        );
        return;
    }
    run_and_check("ray", &short_hostname(), &TEN);
}

#[test]
fn ray_runs_a_gang_task_on_its_planned_gpus() {
    if std::env::var("WORL_RAY_LIVE").as_deref() != Ok("1") {
        eprintln!(
            "skipped: set WORL_RAY_LIVE=1 with a running Ray head (ray start --head --num-gpus 4)"
        );
        return;
    }
    run_and_check("ray", &short_hostname(), &gang_case());
}

/// A live case: the workload, its data edges, and what makes the order checks not vacuous.
struct Case {
    /// The workload (native JSON).
    workload: String,
    /// Its data edges.
    edges: &'static [(&'static str, &'static str)],
    /// Its tasks.
    tasks: usize,
    /// The gang tasks and their GPU counts.
    gangs: &'static [(&'static str, usize)],
    /// Fewest same-GPU pairs the plan must have.
    min_pairs: usize,
    /// Whether some two tasks must have overlapped in time.
    overlap: bool,
}

/// The 10-task DAG.
static TEN: std::sync::LazyLock<Case> = std::sync::LazyLock::new(|| Case {
    workload: workload(),
    edges: &EDGES,
    tasks: 10,
    gangs: &[],
    min_pairs: 6,
    overlap: true,
});

/// The gang workload: 5 tasks on 4 GPUs, one of them a 2-GPU gang. Whatever the plan, it
/// has at least two same-GPU pairs (6 GPU slots taken on 4 GPUs), so the per-GPU order check
/// covers the gang on some GPU of its set or a task sharing a GPU with it.
fn gang_case() -> Case {
    Case {
        workload: workload_json(&GANG_WORK, &GANG_EDGES),
        edges: &GANG_EDGES,
        tasks: 5,
        gangs: &[("g", 2)],
        min_pairs: 2,
        overlap: false,
    }
}

/// Schedules `case`, exports to `engine` with `node` as the host of `node-0` and the device
/// policy `planned` (the CI engines give jobs every GPU, so the planned index is usable),
/// runs, checks.
fn run_and_check(engine: &str, node: &str, case: &Case) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let logs = d.join("logs");
    std::fs::create_dir(&logs).unwrap();
    std::fs::write(d.join("w.json"), &case.workload).unwrap();

    ok(Command::cargo_bin("worl").unwrap().current_dir(d).args([
        "schedule",
        "w.json",
        "--cluster",
        CLUSTER,
        "--scheduler",
        "heft",
        "--out",
        "s.json",
    ]));
    let command = format!(
        "echo start $(date +%s.%N) {node_var} $(hostname -s) $WORL_GPU $CUDA_VISIBLE_DEVICES >> {logs}/{{name}}; sleep 1; echo end $(date +%s.%N) >> {logs}/{{name}}",
        logs = logs.display(),
        // the node the engine ran the task on: Slurm's name for it; Ray's is the host
        node_var = if engine == "slurm" {
            "$SLURMD_NODENAME"
        } else {
            "$(hostname -s)"
        }
    );
    ok(Command::cargo_bin("worl").unwrap().current_dir(d).args([
        "export",
        "s.json",
        "--workload",
        "w.json",
        "--cluster",
        CLUSTER,
        "--to",
        engine,
        "--out",
        "out/",
        "--hosts",
        format!("node-0={node}").as_str(),
        "--command",
        command.as_str(),
        "--policy",
        "devices=planned",
    ]));

    // the plan: task -> (machine, GPU indices (a gang's set, lead first), planned start).
    // A gang row lists its set as GPU ids (`gpus`); on this one-machine cluster a GPU's id
    // is its index on node-0.
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("s.json")).unwrap()).unwrap();
    let mut plan: BTreeMap<String, (String, Vec<usize>, f64)> = BTreeMap::new();
    for r in file["rows"].as_array().unwrap() {
        let index = r["gpu_index"].as_u64().unwrap() as usize;
        assert_eq!(r["gpu_id"].as_u64(), Some(index as u64), "{r}");
        let gpus = match r.get("gpus") {
            Some(set) => set
                .as_array()
                .unwrap()
                .iter()
                .map(|k| k.as_u64().unwrap() as usize)
                .collect(),
            None => vec![index],
        };
        assert_eq!(gpus[0], index, "a set's lead is the row's GPU: {r}");
        plan.insert(
            r["task"].as_str().unwrap().to_owned(),
            (
                r["machine"].as_str().unwrap().to_owned(),
                gpus,
                r["start"].as_f64().unwrap(),
            ),
        );
    }
    assert_eq!(plan.len(), case.tasks);
    assert!(plan.values().all(|(m, _, _)| m == "node-0"), "{plan:?}");
    for (t, (_, gpus, _)) in &plan {
        let want = case.gangs.iter().find(|g| g.0 == t).map_or(1, |g| g.1);
        let mut distinct = gpus.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(
            (gpus.len(), distinct.len()),
            (want, want),
            "task {t}: set {gpus:?}"
        );
    }
    let list = |gpus: &[usize]| {
        gpus.iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };

    let started = Instant::now();
    if engine == "slurm" {
        run_slurm(d, case.tasks);
    } else {
        let python = std::env::var("WORL_RAY_PYTHON").unwrap_or_else(|_| "python3".into());
        ok(Command::new(python).current_dir(d).arg("out/driver.py"));
    }
    eprintln!(
        "{engine}: {} tasks done in {:.1} s",
        case.tasks,
        started.elapsed().as_secs_f64()
    );

    let ran: BTreeMap<String, Ran> = plan
        .keys()
        .map(|t| (t.clone(), read_log(&logs.join(t))))
        .collect();
    for (t, r) in &ran {
        let gpus = list(&plan[t].1);
        assert_eq!(r.node, node, "task {t} ran on Slurm node {}", r.node);
        assert_eq!(r.host, node, "task {t} ran on host {}", r.host);
        assert_eq!(
            r.gpu, gpus,
            "task {t} had WORL_GPU={} instead of {gpus}",
            r.gpu
        );
        assert_eq!(
            r.visible, gpus,
            "task {t} saw CUDA_VISIBLE_DEVICES={} instead of {gpus}",
            r.visible
        );
        assert!(r.end - r.start >= 0.9, "task {t}: {r:?}");
    }
    for (g, n) in case.gangs {
        // the gang's job saw its whole planned set, in the set's order
        assert_eq!(
            ran[*g].visible.split(',').count(),
            *n,
            "gang {g}: {:?}",
            ran[*g]
        );
        assert_eq!(ran[*g].visible, list(&plan[*g].1), "gang {g}");
    }
    for &(from, to) in case.edges {
        assert!(
            ran[to].start >= ran[from].end,
            "task {to} started at {} before its data predecessor {from} ended at {}",
            ran[to].start,
            ran[from].end
        );
    }
    // per GPU, the planned order: each task starts after the one planned before it ends (a
    // gang is on each GPU of its set)
    let mut pairs = 0;
    let gpus: BTreeSet<usize> = plan.values().flat_map(|p| p.1.iter().copied()).collect();
    for g in gpus {
        let mut on: Vec<&String> = plan.keys().filter(|t| plan[*t].1.contains(&g)).collect();
        on.sort_by(|a, b| plan[*a].2.total_cmp(&plan[*b].2));
        for w in on.windows(2) {
            pairs += 1;
            assert!(
                ran[w[1]].start >= ran[w[0]].end,
                "GPU {g}: task {} started at {} before {} (planned before it) ended at {}",
                w[1],
                ran[w[1]].start,
                w[0],
                ran[w[0]].end
            );
        }
    }
    assert!(
        pairs >= case.min_pairs,
        "only {pairs} same-GPU pairs: the order check would be vacuous"
    );
    if case.overlap {
        // the GPUs were used concurrently: some two tasks overlapped in time
        let r: Vec<&Ran> = ran.values().collect();
        let overlap = r.iter().enumerate().any(|(i, a)| {
            r[i + 1..]
                .iter()
                .any(|b| a.start < b.end && b.start < a.end)
        });
        assert!(overlap, "no two tasks overlapped: {ran:?}");
    }
}

/// Submits `out/submit.sh` in `d` and waits until its `n` jobs left the queue.
fn run_slurm(d: &Path, n: usize) {
    let jobs_file = d.join("jobs.txt");
    let started = Instant::now();
    ok(Command::new("bash")
        .current_dir(d)
        .env("WORL_JOBS_FILE", &jobs_file)
        .arg("out/submit.sh"));
    let jobs: Vec<String> = std::fs::read_to_string(&jobs_file)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().nth(1).unwrap().to_owned())
        .collect();
    assert_eq!(jobs.len(), n);
    loop {
        let out = std::process::Command::new("squeue")
            .args(["-h", "-o", "%i %T %r", "-j", &jobs.join(",")])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        if text.trim().is_empty() {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(240),
            "jobs still queued after 240 s:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// Runs `worl` in `d` with `args`; returns (success, stdout + stderr).
fn worl(d: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::cargo_bin("worl")
        .unwrap()
        .current_dir(d)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn export_refuses_what_validate_rejects_and_takes_the_device_policy() {
    // no engine needed: `worl export` itself, issue 20 items 12 and 13
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("w.json"), workload()).unwrap();
    ok(Command::cargo_bin("worl").unwrap().current_dir(d).args([
        "schedule",
        "w.json",
        "--cluster",
        CLUSTER,
        "--scheduler",
        "heft",
        "--out",
        "s.json",
    ]));
    let export = |schedule: &str, out: &str, extra: &[&str]| {
        let mut args = vec![
            "export",
            schedule,
            "--workload",
            "w.json",
            "--cluster",
            CLUSTER,
            "--to",
            "slurm",
            "--out",
            out,
        ];
        args.extend_from_slice(extra);
        worl(d, &args)
    };
    // device policy: Slurm chooses by default, the plan with devices=planned
    let (done, log) = export("s.json", "engine.sh", &[]);
    assert!(done, "{log}");
    let script = std::fs::read_to_string(d.join("engine.sh")).unwrap();
    assert!(!script.contains("CUDA_VISIBLE_DEVICES="), "{script}");
    assert_eq!(script.matches("\nexport WORL_GPU=").count(), 10);
    let (done, log) = export("s.json", "planned.sh", &["--policy", "devices=planned"]);
    assert!(done, "{log}");
    let script = std::fs::read_to_string(d.join("planned.sh")).unwrap();
    assert_eq!(script.matches("\nexport CUDA_VISIBLE_DEVICES=").count(), 10);
    let (done, log) = export("s.json", "bad.sh", &["--policy", "devices=gpu0"]);
    assert!(!done && log.contains("policy `devices=gpu0`"), "{log}");

    // b2 moved onto b1's GPU and times: an overlap (and a wrong duration) that `worl
    // validate` rejects; no data edge runs backwards, so --allow-invalid can export it
    let mut file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("s.json")).unwrap()).unwrap();
    let rows = file["rows"].as_array_mut().unwrap();
    let at = |rows: &Vec<serde_json::Value>, t: &str| {
        rows.iter()
            .position(|r| r["task"] == t)
            .unwrap_or_else(|| panic!("no row of {t}"))
    };
    let (b1, b2) = (at(rows, "b1"), at(rows, "b2"));
    let from = rows[b1].as_object().unwrap().clone();
    for (k, v) in from {
        if !matches!(k.as_str(), "task" | "task_id" | "job") {
            rows[b2][k.as_str()] = v;
        }
    }
    std::fs::write(d.join("bad.json"), file.to_string()).unwrap();
    let (valid, report) = worl(
        d,
        &[
            "validate",
            "w.json",
            "--cluster",
            CLUSTER,
            "--schedule",
            "bad.json",
        ],
    );
    assert!(!valid && report.contains("overlap"), "{report}");
    let (done, log) = export("bad.json", "refused.sh", &[]);
    assert!(!done, "{log}");
    assert!(
        log.contains("the schedule is not valid") && log.contains("overlap"),
        "{log}"
    );
    assert!(!d.join("refused.sh").exists());
    let (done, log) = export("bad.json", "allowed.sh", &["--allow-invalid"]);
    assert!(done, "{log}");
    assert!(d.join("allowed.sh").exists());
}
