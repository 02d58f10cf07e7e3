//! The `worl` binary run as a user runs it: every subcommand on hand-made files and on real
//! workloads of the shared data directory (when present), checking outputs and one-line
//! errors.

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use worl::dag::datasets::data_file;

/// A chain of three tasks `a -> b -> c` (works 10, 20, 5 reference GPU-seconds) in worl's
/// workload JSON, with 1 GB on each edge.
const CHAIN: &str = r#"{"format": "worl-workload", "version": 1, "name": "chain",
"jobs": [{"name": "j", "tasks": [{"name": "a", "work": 10.0}, {"name": "b", "work": 20.0},
{"name": "c", "work": 5.0}],
"edges": [{"from": "a", "to": "b", "bytes": 1e9}, {"from": "b", "to": "c", "bytes": 1e9}]}]}
"#;

fn worl() -> Command {
    Command::cargo_bin("worl").expect("the worl binary")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn stdout(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{:?} failed: {}",
        cmd,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `cmd`, expects exit status `code` and one stderr line; returns it.
fn one_line_error(cmd: &mut Command, code: i32) -> String {
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(code), "{cmd:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    err.trim_end().to_owned()
}

#[test]
fn schedulers_lists_each_with_its_options_and_prints_one_schedulers_table() {
    let all = stdout(worl().arg("schedulers"));
    let ils = all.lines().find(|l| l.starts_with("ils ")).unwrap();
    assert!(
        ils.ends_with(
            "options: policy, steps, patience, kick, restart, noise, eval, time, evaluations"
        ),
        "{ils}"
    );
    let ga = stdout(worl().args(["schedulers", "GA"]));
    let mut lines = ga.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("ga: random-key GA (Bean 1994"),
        "{ga}"
    );
    let population = lines.next().unwrap();
    assert_eq!(
        population.split_whitespace().take(4).collect::<Vec<_>>(),
        ["population", "2..=10000;", "default", "30:"],
        "{ga}"
    );
    assert!(
        ga.contains("gpu-choices") && ga.lines().last().unwrap().trim().starts_with("evaluations")
    );
    let e = one_line_error(worl().args(["schedulers", "hefty"]), 2);
    assert!(
        e.contains("unknown scheduler `hefty`") && e.contains("heft"),
        "{e}"
    );
}

#[test]
fn info_prints_the_shape_of_a_workload() {
    let dir = tempfile::tempdir().unwrap();
    let w = write(dir.path(), "chain.json", CHAIN);
    let out = stdout(worl().args(["info"]).arg(&w));
    assert!(out.contains("workload            chain"), "{out}");
    assert!(out.contains("tasks               3"), "{out}");
    assert!(out.contains("edges               2"), "{out}");
    assert!(out.contains("depth x width       3 x 1"), "{out}");
    assert!(out.contains("total work          35.0 ref GPU-s"), "{out}");
    assert!(out.contains("critical path work  35.0 ref GPU-s"), "{out}");
}

#[test]
fn schedule_heft_on_a_chain_gives_the_hand_computed_makespan() {
    // One V100-16GB (relative speed 1): the chain runs back to back, 10 + 20 + 5 = 35 s.
    let dir = tempfile::tempdir().unwrap();
    let w = write(dir.path(), "chain.json", CHAIN);
    let out = dir.path().join("s.json");
    let gantt = dir.path().join("g.svg");
    let text = stdout(
        worl()
            .args(["schedule"])
            .arg(&w)
            .args([
                "--cluster",
                "homogeneous:1:V100-16GB",
                "--scheduler",
                "heft",
                "--out",
            ])
            .arg(&out)
            .arg("--gantt")
            .arg(&gantt),
    );
    assert!(
        text.starts_with("HEFT: makespan 35.000 s, lower bound 35.000 s"),
        "{text}"
    );
    assert!(out.exists() && gantt.exists());
    // and the file it wrote validates
    let text = stdout(
        worl()
            .args(["validate"])
            .arg(&w)
            .args(["--cluster", "homogeneous:1:V100-16GB", "--schedule"])
            .arg(&out),
    );
    assert!(text.contains("valid, makespan 35.000 s"), "{text}");
}

#[test]
fn convert_round_trips_through_worl_json() {
    let dir = tempfile::tempdir().unwrap();
    let w = write(dir.path(), "chain.json", CHAIN);
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    stdout(worl().arg("convert").arg(&w).arg(&a));
    stdout(worl().arg("convert").arg(&a).arg(&b));
    assert_eq!(
        std::fs::read_to_string(&a).unwrap(),
        std::fs::read_to_string(&b).unwrap()
    );
    let dot = dir.path().join("c.dot");
    stdout(worl().arg("convert").arg(&w).arg(&dot));
    assert!(
        std::fs::read_to_string(&dot)
            .unwrap()
            .starts_with("digraph")
    );
}

#[test]
fn cluster_prints_a_cluster_file_that_loads_back() {
    let dir = tempfile::tempdir().unwrap();
    let toml = stdout(worl().args(["cluster", "dgx:2:A100-80GB"]));
    let path = write(dir.path(), "c.toml", &toml);
    // the printed file is a cluster argument itself: 16 GPUs
    let w = write(dir.path(), "chain.json", CHAIN);
    let text = stdout(
        worl()
            .args(["schedule"])
            .arg(&w)
            .arg("--cluster")
            .arg(&path)
            .arg("--out")
            .arg(dir.path().join("s.json")),
    );
    assert!(text.contains("3 tasks on 16 GPUs"), "{text}");
}

#[test]
fn compare_writes_the_normalised_table_and_skips_friedman_for_one_problem() {
    let dir = tempfile::tempdir().unwrap();
    let w = write(dir.path(), "chain.json", CHAIN);
    let out = dir.path().join("cmp");
    let text = stdout(
        worl()
            .arg("compare")
            .arg(&w)
            .args([
                "--cluster",
                "pai-mix:4",
                "--schedulers",
                "heft,peft,rtgs[whales=4,iterations=3]",
                "--seeds",
                "2",
                "--out",
            ])
            .arg(&out),
    );
    assert!(
        text.contains("| problem (makespan ÷ HEFT) | HEFT | PEFT | rtgs[whales=4,iterations=3] |"),
        "{text}"
    );
    assert!(text.contains("| chain.json | **1.0000** |"), "{text}");
    assert!(text.contains("Friedman test skipped"), "{text}");
    for f in ["summary.md", "normalised.csv", "runs.csv", "results.json"] {
        assert!(out.join(f).exists(), "{f}");
    }
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 1 + 1 + 1 + 2, "{runs}");
}

#[test]
fn errors_are_one_line_naming_the_item() {
    let dir = tempfile::tempdir().unwrap();
    let w = write(dir.path(), "chain.json", CHAIN);
    let e = one_line_error(worl().args(["info", "missing.json"]), 2);
    assert!(
        e.starts_with("error: ") && e.contains("missing.json"),
        "{e}"
    );
    let e = one_line_error(
        worl()
            .arg("schedule")
            .arg(&w)
            .args(["--cluster", "homogeneous:2:B200", "--out", "x.json"]),
        2,
    );
    assert!(e.contains("unknown GPU model `B200`"), "{e}");
    let e = one_line_error(
        worl()
            .arg("schedule")
            .arg(&w)
            .args([
                "--cluster",
                "pai-mix:2",
                "--scheduler",
                "heft[policy=sideways]",
            ])
            .args(["--out", "x.json"]),
        2,
    );
    assert!(e.contains("policy"), "{e}");
    let bad = write(dir.path(), "bad.stg", "2\n0 0 0\n1 x 0\n");
    let e = one_line_error(worl().arg("info").arg(&bad), 2);
    assert!(e.contains("bad.stg:3"), "{e}");
    let e = one_line_error(
        worl().arg("convert").arg(&w).arg(dir.path().join("o.yaml")),
        2,
    );
    assert!(e.contains("o.yaml") && e.contains(".yaml"), "{e}");
}

#[test]
fn real_workloads_of_every_format_load_and_schedule() {
    for rel in [
        "pegasus-dax-workflowsim/Montage_25.xml",
        "wfcommons-wfinstances/blast-chameleon-large-001.json",
        "stg/robot.stg",
    ] {
        let Some(path) = data_file(rel).expect("shared data directory") else {
            eprintln!("skipping {rel}: no shared data");
            continue;
        };
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("s.json");
        let text = stdout(
            worl()
                .arg("schedule")
                .arg(&path)
                .args(["--cluster", "pai-mix:8", "--out"])
                .arg(&out),
        );
        assert!(text.starts_with("HEFT: makespan"), "{rel}: {text}");
        let text = stdout(
            worl()
                .arg("validate")
                .arg(&path)
                .args(["--cluster", "pai-mix:8", "--schedule"])
                .arg(&out),
        );
        assert!(text.contains("valid"), "{rel}: {text}");
    }
}

#[test]
fn a_saga_instance_brings_its_network_and_heft_gives_the_hand_computed_makespan() {
    // The instance of worl-sched's saga_heft test: HEFT by hand gives makespan 9.
    let instance =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../worl-io/tests/fixtures/saga/diamond3.json");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.csv");
    let text = stdout(worl().arg("schedule").arg(&instance).arg("--out").arg(&out));
    assert!(text.starts_with("HEFT: makespan 9.000 s"), "{text}");
    assert!(text.contains("4 tasks on 3 GPUs"), "{text}");
    let text = stdout(
        worl()
            .arg("validate")
            .arg(&instance)
            .arg("--schedule")
            .arg(&out),
    );
    assert!(text.contains("valid, makespan 9.000 s"), "{text}");
    // a hand-broken copy: the last task starts 1 s early
    let csv = std::fs::read_to_string(&out).unwrap();
    let broken: String = csv
        .lines()
        .map(|l| {
            if l.contains(",D,") {
                let mut f: Vec<String> = l.split(',').map(str::to_owned).collect();
                let n = f.len();
                f[n - 2] = (f[n - 2].parse::<f64>().unwrap() - 1.0).to_string();
                f[n - 1] = (f[n - 1].parse::<f64>().unwrap() - 1.0).to_string();
                f.join(",")
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let bad = write(dir.path(), "bad.csv", &(broken + "\n"));
    let out = worl()
        .arg("validate")
        .arg(&instance)
        .arg("--schedule")
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("precedence"), "{text}");
}

#[test]
fn the_platform_engineer_task_in_three_commands() {
    // a cluster of 4 machines with 8 A100s each on 100 Gbit/s Ethernet
    let dir = tempfile::tempdir().unwrap();
    let cluster = dir.path().join("cluster.toml");
    stdout(
        worl()
            .args(["cluster", "4x8:A100-80GB:100GbE", "--out"])
            .arg(&cluster),
    );
    let text = std::fs::read_to_string(&cluster).unwrap();
    assert!(text.lines().count() <= 10, "{text}");
    let w = write(dir.path(), "chain.json", CHAIN);
    let out = dir.path().join("schedule.csv");
    let text = stdout(
        worl()
            .arg("schedule")
            .arg(&w)
            .arg("--cluster")
            .arg(&cluster)
            .arg("--out")
            .arg(&out)
            .arg("--gantt")
            .arg(dir.path().join("gantt.svg")),
    );
    assert!(text.contains("3 tasks on 32 GPUs"), "{text}");
    let csv = std::fs::read_to_string(&out).unwrap();
    assert!(csv.contains("node-0"), "{csv}");
    assert!(csv.contains("A100-80GB"), "{csv}");
    let svg = std::fs::read_to_string(dir.path().join("gantt.svg")).unwrap();
    assert!(svg.contains("<title>b (job j) on GPU"), "{svg}");
    assert!(svg.contains("colour: task type"), "{svg}");
}

#[test]
fn schedules_and_workloads_are_written_as_wfformat_that_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let w = write(dir.path(), "chain.json", CHAIN);
    // The workload alone: reference run times, read back with the same tasks and edges.
    let wf = dir.path().join("chain.wf.json");
    let back = dir.path().join("back.json");
    stdout(worl().arg("convert").arg(&w).arg(&wf));
    stdout(worl().arg("convert").arg(&wf).arg(&back));
    let wf2 = dir.path().join("again.wfformat.json");
    stdout(worl().arg("convert").arg(&back).arg(&wf2));
    let spec = |p: &Path| {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        v["workflow"].clone()
    };
    assert_eq!(spec(&wf), spec(&wf2));
    assert_eq!(spec(&wf)["execution"]["makespanInSeconds"], 35.0);

    // A schedule on two machines of one V100 each (the reference GPU): HEFT keeps the
    // chain on one GPU, so the tasks run for 10, 20 and 5 s back to back.
    let out = dir.path().join("plan.wf.json");
    stdout(
        worl()
            .arg("schedule")
            .arg(&w)
            .args(["--cluster", "2x1:V100-16GB", "--out"])
            .arg(&out),
    );
    let x = spec(&out)["execution"].clone();
    assert_eq!(x["makespanInSeconds"], 35.0);
    let tasks = x["tasks"].as_array().unwrap();
    // WfFormat 1.5's own fields: `executedAt` (ISO 8601, from the epoch) and `machines`
    let starts: Vec<&str> = tasks
        .iter()
        .map(|t| t["executedAt"].as_str().unwrap())
        .collect();
    let runs: Vec<f64> = tasks
        .iter()
        .map(|t| t["runtimeInSeconds"].as_f64().unwrap())
        .collect();
    assert_eq!(
        starts,
        [
            "1970-01-01T00:00:00Z",
            "1970-01-01T00:00:10Z",
            "1970-01-01T00:00:30Z"
        ]
    );
    assert_eq!(runs, [10.0, 20.0, 5.0]);
    let machines: Vec<&str> = x["machines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["nodeName"].as_str().unwrap())
        .collect();
    assert_eq!(machines.len(), 2);
    assert!(tasks.iter().all(|t| t["machines"] == tasks[0]["machines"]));
    assert!(machines.contains(&tasks[0]["machines"][0].as_str().unwrap()));
    // WfCommons readers (and worl's) take it as a workload with the planned run times.
    let info = stdout(worl().arg("info").arg(&out));
    assert!(
        info.contains("total work          35.0 ref GPU-s"),
        "{info}"
    );
}

#[test]
fn convert_writes_saga_instances_with_a_network() {
    let dir = tempfile::tempdir().unwrap();
    let w = write(dir.path(), "chain.json", CHAIN);
    let saga = dir.path().join("chain.saga.json");
    let err = one_line_error(worl().arg("convert").arg(&w).arg(&saga), 2);
    assert!(err.contains("needs a network: give a cluster"), "{err}");
    // saga's links have no latency; worl's presets do, and nothing is dropped silently.
    let err = one_line_error(
        worl()
            .arg("convert")
            .arg(&w)
            .arg(&saga)
            .args(["--cluster", "2x1:V100-16GB"]),
        2,
    );
    assert!(err.contains("latency") && err.contains("node-0"), "{err}");
    // A saga instance converts to saga with its own network, and HEFT on the copy gives
    // the hand-computed makespan 9 of the original.
    let instance =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../worl-io/tests/fixtures/saga/diamond3.json");
    let a = dir.path().join("a.saga.json");
    let b = dir.path().join("b.saga.json");
    stdout(worl().arg("convert").arg(&instance).arg(&a));
    stdout(worl().arg("convert").arg(&a).arg(&b));
    assert_eq!(
        std::fs::read_to_string(&a).unwrap(),
        std::fs::read_to_string(&b).unwrap()
    );
    let out = dir.path().join("s.csv");
    let text = stdout(worl().arg("schedule").arg(&b).arg("--out").arg(&out));
    assert!(text.starts_with("HEFT: makespan 9.000 s"), "{text}");
}

/// A fork-join of `n` branches (`n + 2` tasks) in worl's workload JSON.
fn fork_join(n: usize) -> String {
    let mut tasks = vec![r#"{"name": "s", "work": 2.0}"#.to_owned()];
    let mut edges = Vec::new();
    for i in 0..n {
        tasks.push(format!(r#"{{"name": "t{i}", "work": {}.5}}"#, i + 1));
        edges.push(format!(r#"{{"from": "s", "to": "t{i}", "bytes": 2e8}}"#));
        edges.push(format!(r#"{{"from": "t{i}", "to": "e", "bytes": 1e8}}"#));
    }
    tasks.push(r#"{"name": "e", "work": 1.0}"#.to_owned());
    format!(
        r#"{{"format": "worl-workload", "version": 1, "name": "fj{n}", "jobs": [{{"name": "j", "tasks": [{}], "edges": [{}]}}]}}"#,
        tasks.join(", "),
        edges.join(", ")
    )
}

/// Runs `worl ARGS` with stdout a pipe whose reading end is already closed: every write to
/// stdout fails with EPIPE. Returns the exit status and stderr.
fn run_into_closed_pipe(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("worl"))
        .args(args)
        .stdout(writer)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn info_into_closed_pipe_exits_cleanly() {
    // `worl info X | head -1` panicked on the broken pipe (exit 101)
    let dir = tempfile::tempdir().unwrap();
    let w = write(dir.path(), "chain.json", CHAIN);
    let (code, err) = run_into_closed_pipe(&["info".as_ref(), w.as_os_str()]);
    assert_eq!((code, err.as_str()), (Some(0), ""));
    let (code, err) = run_into_closed_pipe(&["schedulers".as_ref()]);
    assert_eq!((code, err.as_str()), (Some(0), ""));
    // a command with files to write still writes them, then exits 0
    let out = dir.path().join("plan.json");
    let (code, err) = run_into_closed_pipe(&[
        "schedule".as_ref(),
        w.as_os_str(),
        "--cluster".as_ref(),
        "pai-mix:2".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!((code, err.as_str()), (Some(0), ""));
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .contains("\"makespan\"")
    );
    let cmp = dir.path().join("cmp");
    let (code, err) = run_into_closed_pipe(&[
        "compare".as_ref(),
        w.as_os_str(),
        "--cluster".as_ref(),
        "pai-mix:2".as_ref(),
        "--schedulers".as_ref(),
        "heft,peft".as_ref(),
        "--quiet".as_ref(),
        "--out".as_ref(),
        cmp.as_os_str(),
    ]);
    assert_eq!((code, err.as_str()), (Some(0), ""));
    assert_eq!(
        std::fs::read_to_string(cmp.join("runs.csv"))
            .unwrap()
            .lines()
            .count(),
        3
    );
}

#[test]
fn compare_defaults_skip_exact_on_large_instances() {
    let dir = tempfile::tempdir().unwrap();
    let small = write(dir.path(), "chain.json", CHAIN);
    let large = write(dir.path(), "fj12.json", &fork_join(12)); // 14 tasks
    let args = [
        "--cluster",
        "pai-mix:4",
        "--seeds",
        "1",
        "--evaluations",
        "60",
    ];
    // 14 tasks: `exact` is left out with a notice naming the workload and the limits
    let cmp = dir.path().join("large");
    let out = worl()
        .arg("compare")
        .arg(&large)
        .args(args)
        .arg("--out")
        .arg(&cmp)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("note: `exact` is left out of the default schedulers: `fj12.json` has 14 tasks on 4 GPUs"),
        "{err}"
    );
    let runs = std::fs::read_to_string(cmp.join("runs.csv")).unwrap();
    assert!(runs.contains("HEFT") && !runs.contains("Exact"), "{runs}");
    // 3 tasks: every registered scheduler runs, `exact` included, without the notice
    let cmp = dir.path().join("small");
    let out = worl()
        .arg("compare")
        .arg(&small)
        .args(args)
        .arg("--out")
        .arg(&cmp)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("left out"), "{err}");
    let runs = std::fs::read_to_string(cmp.join("runs.csv")).unwrap();
    assert!(
        runs.lines().any(|l| l.contains(",exact[nodes=1000000],")),
        "{runs}"
    );
    // named explicitly, `exact` runs on the large workload too (here within a node budget)
    let cmp = dir.path().join("named");
    let text = stdout(
        worl()
            .arg("compare")
            .arg(&large)
            .args([
                "--cluster",
                "pai-mix:4",
                "--schedulers",
                "heft,exact[nodes=2000]",
            ])
            .arg("--out")
            .arg(&cmp),
    );
    assert!(text.contains("exact[nodes=2000]"), "{text}");
}

#[test]
fn compare_reports_progress_per_run_on_stderr_unless_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let w = write(dir.path(), "chain.json", CHAIN);
    let base = [
        "--cluster",
        "pai-mix:2",
        "--schedulers",
        "heft,rtgs[whales=3,iterations=2]",
        "--seeds",
        "2",
    ];
    let out = worl()
        .arg("compare")
        .arg(&w)
        .args(base)
        .arg("--out")
        .arg(dir.path().join("a"))
        .output()
        .unwrap();
    assert!(out.status.success());
    // stderr is a pipe here, not a terminal: plain lines, one per run as it starts
    let err = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("run ")).collect();
    assert_eq!(
        lines,
        [
            "run 1/3: HEFT · chain.json · seed 1",
            "run 2/3: rtgs[whales=3,iterations=2] · chain.json · seed 1",
            "run 3/3: rtgs[whales=3,iterations=2] · chain.json · seed 2",
        ],
        "{err}"
    );
    assert!(err.contains("wrote "), "{err}");
    let out = worl()
        .arg("compare")
        .arg(&w)
        .args(base)
        .arg("--quiet")
        .arg("--out")
        .arg(dir.path().join("b"))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stderr).unwrap(), "");
    assert!(String::from_utf8(out.stdout).unwrap().contains("| HEFT |"));
}

#[test]
fn merge_missing_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let w = write(dir.path(), "chain.json", CHAIN);
    let results = dir.path().join("r.jsonl");
    stdout(
        worl()
            .arg("compare")
            .arg(&w)
            .args([
                "--cluster",
                "pai-mix:2",
                "--schedulers",
                "heft,peft",
                "--quiet",
            ])
            .args(["--shard", "0/1", "--results"])
            .arg(&results),
    );
    let e = one_line_error(
        worl()
            .arg("merge")
            .arg(&results)
            .arg(dir.path().join("r2.jsonl"))
            .arg("--out")
            .arg(dir.path().join("m")),
        2,
    );
    assert!(e.starts_with("error: ") && e.contains("r2.jsonl"), "{e}");
    // a conflicting second record of run 0 is refused, naming both lines
    let first = std::fs::read_to_string(&results).unwrap();
    let line = first.lines().next().unwrap();
    let makespan = line.split("\"makespan\":").nth(1).unwrap();
    let value: String = makespan.chars().take_while(|c| *c != ',').collect();
    let changed = line.replacen(&format!("\"makespan\":{value}"), "\"makespan\":12345.5", 1);
    let other = write(dir.path(), "other.jsonl", &format!("{changed}\n"));
    let e = one_line_error(
        worl()
            .arg("merge")
            .arg(&results)
            .arg(&other)
            .arg("--out")
            .arg(dir.path().join("m")),
        2,
    );
    assert!(
        e.contains("other.jsonl:1 and ")
            && e.contains("r.jsonl:1: two different records of run 1 (index 0;"),
        "{e}"
    );
    // the last line without its newline is kept: both runs merge
    std::fs::write(&results, first.trim_end()).unwrap();
    let out = worl()
        .arg("merge")
        .arg(&results)
        .arg("--out")
        .arg(dir.path().join("m"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("merged 2 runs from 1 file(s)"), "{err}");
}

#[test]
fn out_of_range_scheduler_options_are_one_line_errors_naming_the_option() {
    let dir = tempfile::tempdir().unwrap();
    let w = write(dir.path(), "chain.json", CHAIN);
    for (spec, needle) in [
        ("rtgs[iterations=18446744073709551616]", "`iterations`"),
        ("rtgs[iterations=10000000]", "at most 1000000"),
        ("rtgs[b=1e400]", "`b`"),
        ("rtgs[window=NaN]", "`window`"),
        ("dqn[hidden=100000000]", "at most 4096"),
        ("dqn[batch=100000]", "`batch`"),
        ("pso[particles=1000000000]", "`particles`"),
    ] {
        let e = one_line_error(
            worl()
                .arg("schedule")
                .arg(&w)
                .args(["--cluster", "pai-mix:2", "--scheduler", spec, "--out"])
                .arg(dir.path().join("x.json")),
            2,
        );
        assert!(
            e.starts_with("error: ") && e.contains(needle),
            "{spec}: {e}"
        );
    }
    let e = one_line_error(
        worl()
            .arg("compare")
            .arg(&w)
            .args([
                "--cluster",
                "pai-mix:2",
                "--seeds",
                "18446744073709551615",
                "--out",
            ])
            .arg(dir.path().join("c")),
        2,
    );
    assert!(e.contains("--seeds"), "{e}");
}

/// Runs `worl ARGS` with stderr a pipe whose reading end is already closed. Returns the
/// exit status.
fn run_with_closed_stderr(args: &[&std::ffi::OsStr]) -> Option<i32> {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    std::process::Command::new(assert_cmd::cargo::cargo_bin("worl"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(writer)
        .status()
        .unwrap()
        .code()
}

#[test]
fn closed_stderr_keeps_the_exit_status() {
    // `worl merge ... 2>&1 | head -1` panicked (exit 101) on its first note to stderr
    let dir = tempfile::tempdir().unwrap();
    let w = write(dir.path(), "chain.json", CHAIN);
    let missing = dir.path().join("missing.json");
    // an error: status 2, its message lost
    assert_eq!(
        run_with_closed_stderr(&["info".as_ref(), missing.as_os_str()]),
        Some(2)
    );
    // progress lines on stderr: status 0, the results written
    let cmp = dir.path().join("cmp");
    assert_eq!(
        run_with_closed_stderr(&[
            "compare".as_ref(),
            w.as_os_str(),
            "--cluster".as_ref(),
            "pai-mix:2".as_ref(),
            "--schedulers".as_ref(),
            "heft,peft".as_ref(),
            "--out".as_ref(),
            cmp.as_os_str(),
        ]),
        Some(0)
    );
    assert!(cmp.join("runs.csv").exists());
}
