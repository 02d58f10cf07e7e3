//! `worl simulate --shard K/N --results FILE` for every shard, then `worl merge`: the same
//! runs, in the same order, with the same numbers as one `worl simulate --out` (decision
//! latencies aside); a killed shard's partial last line is redone on resume; files of other
//! grids or of `worl compare` are refused naming the files; a bad `--shard` is refused.

use assert_cmd::Command;
use std::collections::HashMap;
use std::path::Path;

/// Job `j1`: `a -> b` (10 and 20 reference GPU-seconds, 1 GB between them), released at 0;
/// job `late`: one task `x` of 4 s released at 100 s.
const TWO_JOBS: &str = r#"{"format": "worl-workload", "version": 1, "name": "two",
"jobs": [{"name": "j1", "tasks": [{"name": "a", "work": 10.0}, {"name": "b", "work": 20.0}],
          "edges": [{"from": "a", "to": "b", "bytes": 1e9}]},
         {"name": "late", "release": 100.0, "tasks": [{"name": "x", "work": 4.0}], "edges": []}]}
"#;

/// Three jobs: a fork-join, a chain released at 5 s, and a single task at 8 s.
const THREE_JOBS: &str = r#"{"format": "worl-workload", "version": 1, "name": "three",
"jobs": [{"name": "fj", "tasks": [{"name": "s", "work": 3.0}, {"name": "l", "work": 6.0},
                                  {"name": "r", "work": 7.0}, {"name": "e", "work": 2.0}],
          "edges": [{"from": "s", "to": "l", "bytes": 5e8}, {"from": "s", "to": "r", "bytes": 5e8},
                    {"from": "l", "to": "e", "bytes": 2e8}, {"from": "r", "to": "e", "bytes": 2e8}]},
         {"name": "chain", "release": 5.0, "tasks": [{"name": "c0", "work": 4.0}, {"name": "c1", "work": 4.0}],
          "edges": [{"from": "c0", "to": "c1", "bytes": 1e9}]},
         {"name": "one", "release": 8.0, "tasks": [{"name": "o", "work": 1.5}], "edges": []}]}
"#;

/// The cluster and policies of every study here.
const BASE: [&str; 4] = [
    "--cluster",
    "homogeneous:2:V100-16GB",
    "--policy",
    "plan:heft,eft,round-robin",
];

fn setup(d: &Path) {
    std::fs::write(d.join("two.json"), TWO_JOBS).unwrap();
    std::fs::write(d.join("three.json"), THREE_JOBS).unwrap();
}

/// `worl simulate two.json three.json BASE` in `d`, then `args`.
fn simulate_with(d: &Path, args: &[&str]) -> Command {
    let mut c = Command::cargo_bin("worl").expect("the worl binary");
    c.current_dir(d)
        .args(["simulate", "two.json", "three.json"])
        .args(BASE)
        .args(args);
    c
}

/// The study: 2 workloads x 2 seeds x 3 policies = 12 runs, with runtime noise and (by
/// default) fair contention.
fn simulate(d: &Path) -> Command {
    simulate_with(d, &["--seeds", "2", "--noise", "lognormal:0.25"])
}

fn worl(d: &Path) -> Command {
    let mut c = Command::cargo_bin("worl").expect("the worl binary");
    c.current_dir(d);
    c
}

/// Runs `cmd`, asserts success, returns (stdout, stderr).
fn ok(cmd: &mut Command) -> (String, String) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Runs `cmd`, asserts it fails with exit code 2 (or clap's usage error, also 2), returns
/// stderr.
fn fails(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{cmd:?} should fail");
    String::from_utf8(out.stderr).unwrap()
}

/// sim.csv's rows without the decision latency columns (wall-clock times).
fn sim_rows(dir: &Path) -> Vec<HashMap<String, String>> {
    let mut r = csv::Reader::from_path(dir.join("sim.csv")).unwrap();
    let headers = r.headers().unwrap().clone();
    r.records()
        .map(|rec| {
            headers
                .iter()
                .zip(rec.unwrap().iter())
                .filter(|(h, _)| !h.starts_with("decision_latency"))
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

/// results.json's records without wall times (a simulated run's is its decision latency).
fn records(dir: &Path) -> Vec<serde_json::Value> {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    let mut recs = v["records"].as_array().expect("records").clone();
    for r in &mut recs {
        // what a clock measured
        r.as_object_mut().unwrap().remove("wall_time_s");
        for c in r["convergence"].as_array_mut().into_iter().flatten() {
            c.as_object_mut().unwrap().remove("cpu_seconds");
        }
    }
    recs
}

/// Runs shards 0/3, 1/3, 2/3 into `s-K.jsonl`; returns the file names.
fn run_shards(d: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for k in 0..3 {
        let f = format!("s-{k}.jsonl");
        let (_, err) = ok(simulate(d).args(["--shard", &format!("{k}/3"), "--results", &f]));
        // progress lines (stderr is no terminal here), then the summary
        assert_eq!(
            err.lines().last().unwrap(),
            format!("shard {k}/3: 4 runs, 0 already in {f}, 4 done now"),
            "{err}"
        );
        files.push(f);
    }
    files
}

#[test]
fn three_shards_merge_to_the_outputs_of_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    let (single_md, _) = ok(simulate(d).args(["--quiet", "--out", "single"]));
    let files = run_shards(d);
    let (merged_md, err) = ok(worl(d).arg("merge").args(&files).args(["--out", "merged"]));
    assert!(
        err.contains("merged 12 simulated runs from 3 file(s)"),
        "{err}"
    );
    assert!(
        err.contains("wrote merged/{simulation.md,sim.csv,runs.csv,results.json,jct-cdf.svg}"),
        "{err}"
    );
    let (single, merged) = (d.join("single"), d.join("merged"));
    let rows = sim_rows(&single);
    assert_eq!(rows.len(), 12);
    assert_eq!(sim_rows(&merged), rows);
    // canonical order: workloads, then seeds, then policies
    let order: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["problem"].as_str(),
                r["seed"].as_str(),
                r["policy"].as_str(),
            )
        })
        .collect();
    assert_eq!(order[0], ("two.json", "1", "plan:heft"));
    assert_eq!(order[4], ("two.json", "2", "eft"));
    assert_eq!(order[11], ("three.json", "2", "round-robin"));
    assert_eq!(records(&merged), records(&single));
    assert_eq!(
        std::fs::read_to_string(merged.join("runs.csv"))
            .unwrap()
            .lines()
            .count(),
        13
    );
    // the same tables: the realised-makespan table (no latencies) is identical
    let makespans = |md: &str| md[md.find("## Realised makespan").unwrap()..].to_owned();
    assert_eq!(makespans(&merged_md), makespans(&single_md));
    assert!(merged_md.contains("| plan:heft |"), "{merged_md}");
    // the JCT CDF is drawn from the lines; Gantt charts need the tasks: single run only
    assert!(merged.join("jct-cdf.svg").is_file() && merged.join("simulation.md").is_file());
    assert!(single.join("gantt-eft.svg").is_file());
    assert!(!merged.join("gantt-eft.svg").exists());
    let cdf = std::fs::read_to_string(merged.join("jct-cdf.svg")).unwrap();
    assert!(
        cdf.contains("round-robin") && cdf.contains("two.json"),
        "{cdf}"
    );
}

#[test]
fn resuming_a_truncated_shard_redoes_its_last_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    ok(simulate(d).args(["--quiet", "--out", "single"]));
    let files = run_shards(d);
    // a killed shard 1: its last line (run 10) cut in half
    let f = d.join(&files[1]);
    let text = std::fs::read_to_string(&f).unwrap();
    let last = text.lines().last().unwrap();
    std::fs::write(&f, &text[..text.len() - last.len() / 2 - 1]).unwrap();
    let err = fails(worl(d).arg("merge").args(&files).args(["--out", "merged"]));
    assert!(
        err.contains("1 of 12 runs missing; the first is run 11 of 12 (index 10), of shard 1/3"),
        "{err}"
    );
    let (_, err) = ok(simulate(d).args(["--shard", "1/3", "--results", &files[1]]));
    assert_eq!(
        err.lines().filter(|l| l.starts_with("run ")).count(),
        1,
        "{err}"
    );
    assert_eq!(
        err.lines().last().unwrap(),
        "shard 1/3: 4 runs, 3 already in s-1.jsonl, 1 done now (a partial last line was cut off and redone)",
    );
    assert_eq!(std::fs::read_to_string(&f).unwrap().lines().count(), 4);
    ok(worl(d).arg("merge").args(&files).args(["--out", "merged"]));
    assert_eq!(sim_rows(&d.join("merged")), sim_rows(&d.join("single")));
    assert_eq!(records(&d.join("merged")), records(&d.join("single")));
}

#[test]
fn other_grids_and_compare_shards_do_not_merge() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    ok(simulate(d).args(["--quiet", "--shard", "0/2", "--results", "a.jsonl"]));
    // another noise level is another grid: refused when merging and when appending
    ok(
        simulate_with(d, &["--seeds", "2", "--noise", "lognormal:0.3", "--quiet"]).args([
            "--shard",
            "1/2",
            "--results",
            "b.jsonl",
        ]),
    );
    let err = fails(worl(d).args(["merge", "a.jsonl", "b.jsonl", "--out", "m"]));
    assert!(
        err.contains("b.jsonl:1: a run of grid") && err.contains("but a.jsonl holds grid"),
        "{err}"
    );
    let err = fails(simulate(d).args([
        "--arrivals",
        "batch",
        "--shard",
        "1/2",
        "--results",
        "a.jsonl",
    ]));
    assert!(err.contains("a.jsonl:1: a run of another grid"), "{err}");
    // a compare shard with a simulate shard
    ok(worl(d).args([
        "compare",
        "two.json",
        "--cluster",
        "homogeneous:2:V100-16GB",
        "--schedulers",
        "heft",
        "--seeds",
        "1",
        "--quiet",
        "--shard",
        "0/1",
        "--results",
        "c.jsonl",
    ]));
    let err = fails(worl(d).args(["merge", "a.jsonl", "c.jsonl", "--out", "m"]));
    assert!(
        err.contains(
            "c.jsonl:1: a run of an experiment, but a.jsonl holds runs of a simulation study"
        ),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    // and the compare shard alone still merges into compare's outputs
    let (_, err) = ok(worl(d).args(["merge", "c.jsonl", "--out", "m"]));
    assert!(err.contains("merged 1 runs from 1 file(s)"), "{err}");
    assert!(d.join("m/summary.md").is_file());
}

#[test]
fn a_shard_out_of_range_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    for bad in ["3/3", "0/0", "1", "a/2"] {
        let err = fails(simulate(d).args(["--shard", bad, "--results", "r.jsonl"]));
        assert!(
            err.contains(&format!("--shard `{bad}`: expected K/N with 0 <= K < N")),
            "{bad}: {err}"
        );
        assert!(!d.join("r.jsonl").exists(), "{bad}: nothing run");
    }
    // --shard needs --results, and takes no --out
    let err = fails(simulate(d).args(["--shard", "0/2"]));
    assert!(err.contains("--results"), "{err}");
    let err = fails(simulate(d).args(["--shard", "0/2", "--results", "r.jsonl", "--out", "o"]));
    assert!(err.contains("--out"), "{err}");
}

#[test]
fn progress_is_one_line_per_run_off_a_terminal_and_nothing_when_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    let (_, err) = ok(&mut simulate_with(d, &["--seeds", "1"]));
    let runs: Vec<&str> = err.lines().filter(|l| l.starts_with("run ")).collect();
    assert_eq!(runs.len(), 6, "{err}");
    assert_eq!(runs[0], "run 1/6: plan:heft · two.json · seed 1");
    assert_eq!(runs[5], "run 6/6: round-robin · three.json · seed 1");
    let (_, err) = ok(&mut simulate_with(d, &["--seeds", "1", "--quiet"]));
    assert_eq!(err, "");
    // a shard counts its own runs
    let (_, err) = ok(&mut simulate_with(
        d,
        &["--seeds", "1", "--shard", "1/2", "--results", "r.jsonl"],
    ));
    let runs: Vec<&str> = err.lines().filter(|l| l.starts_with("run ")).collect();
    assert_eq!(
        runs,
        [
            "run 1/3: eft · two.json · seed 1",
            "run 2/3: plan:heft · three.json · seed 1",
            "run 3/3: round-robin · three.json · seed 1"
        ]
    );
}

/// `worl simulate two.json three.json --cluster CLUSTER --policy plan:heft,eft`, then `args`.
fn simulate_on(d: &Path, cluster: &str, args: &[&str]) -> Command {
    let mut c = worl(d);
    c.args(["simulate", "two.json", "three.json", "--cluster", cluster])
        .args(["--policy", "plan:heft,eft", "--quiet"])
        .args(args);
    c
}

#[test]
fn resuming_with_another_cluster_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    ok(&mut simulate_on(
        d,
        "homogeneous:2:A100-80GB",
        &["--results", "r.jsonl"],
    ));
    let before = std::fs::read_to_string(d.join("r.jsonl")).unwrap();
    assert_eq!(
        before.lines().count(),
        12,
        "2 workloads x 3 seeds x 2 policies"
    );
    // the same size, another GPU model: another grid, not a resume of stale runs
    let err = fails(&mut simulate_on(
        d,
        "homogeneous:2:V100-32GB",
        &["--results", "r.jsonl"],
    ));
    assert!(err.contains("r.jsonl:1: a run of another grid"), "{err}");
    assert_eq!(std::fs::read_to_string(d.join("r.jsonl")).unwrap(), before);
    // a task's work changed in place (4 -> 400 s): refused too
    std::fs::write(
        d.join("two.json"),
        TWO_JOBS.replace("\"work\": 4.0", "\"work\": 400.0"),
    )
    .unwrap();
    let err = fails(&mut simulate_on(
        d,
        "homogeneous:2:A100-80GB",
        &["--results", "r.jsonl"],
    ));
    assert!(err.contains("r.jsonl:1: a run of another grid"), "{err}");
}

#[test]
fn bad_policy_options_fail_before_any_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    let mut c = worl(d);
    c.args(["simulate", "two.json", "three.json", "--cluster"])
        .args([
            "homogeneous:2:V100-16GB",
            "--policy",
            "plan:heft,replan:heft[foo=1]",
        ])
        .args(["--results", "r.jsonl"]);
    let err = fails(&mut c);
    assert!(err.contains("foo"), "{err}");
    assert!(!err.contains("run 1/"), "no run started: {err}");
    assert!(!d.join("r.jsonl").exists(), "nothing written");
}

#[cfg(unix)]
#[test]
fn a_results_file_that_cannot_hold_runs_is_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    let err = fails(&mut simulate_on(
        d,
        "homogeneous:2:V100-16GB",
        &["--results", "/dev/null"],
    ));
    assert!(
        err.contains("/dev/null: the results file is not a regular file"),
        "{err}"
    );
    assert!(!err.contains("merge"), "{err}");
    assert!(!err.contains("run 1/"), "no run started: {err}");
}

#[test]
fn schedule_simulate_checks_failures_before_scheduling_and_writing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    let err = fails(worl(d).args([
        "schedule",
        "two.json",
        "--cluster",
        "homogeneous:2:V100-16GB",
        "--out",
        "s.json",
        "--simulate",
        "--failures",
        "outages:9@5+20",
    ]));
    assert!(err.contains('9'), "{err}");
    assert!(!d.join("s.json").exists(), "--out not written: {err}");
    // a valid outage still schedules and simulates
    ok(worl(d).args([
        "schedule",
        "two.json",
        "--cluster",
        "homogeneous:2:V100-16GB",
        "--out",
        "s.json",
        "--simulate",
        "--failures",
        "outages:1@5+20",
    ]));
    assert!(d.join("s.json").exists());
}
