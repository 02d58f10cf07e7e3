//! Scripted GPU outages from the command line: `--failures outages:...` and
//! `--failures script:FILE` in `worl simulate` and `worl schedule --simulate`, hand-computed,
//! and one-line errors for bad scripts.

use assert_cmd::Command;
use std::collections::HashMap;
use std::path::Path;

/// One job: `a -> b` (10 reference GPU-seconds each: 10 s on a V100, 1 GB between them, so
/// that every planner keeps both on one GPU).
const CHAIN: &str = r#"{"format": "worl-workload", "version": 1, "name": "chain",
"jobs": [{"name": "j", "tasks": [{"name": "a", "work": 10.0}, {"name": "b", "work": 10.0}],
          "edges": [{"from": "a", "to": "b", "bytes": 1e9}]}]}
"#;

const CLUSTER: &str = "homogeneous:2:V100-16GB";

fn worl() -> Command {
    Command::cargo_bin("worl").expect("the worl binary")
}

/// The rows of `sim.csv`, keyed by policy: column -> value.
fn sim_rows(dir: &Path) -> HashMap<String, HashMap<String, String>> {
    let mut r = csv::Reader::from_path(dir.join("sim.csv")).unwrap();
    let headers = r.headers().unwrap().clone();
    r.records()
        .map(|rec| {
            let row: HashMap<String, String> = headers
                .iter()
                .zip(rec.unwrap().iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect();
            (row["policy"].clone(), row)
        })
        .collect()
}

/// `worl simulate` of the chain with `--failures failures`: (exit code, stdout, stderr).
fn simulate(dir: &Path, failures: &str, out: Option<&Path>) -> (Option<i32>, String, String) {
    let w = dir.join("chain.json");
    std::fs::write(&w, CHAIN).unwrap();
    let mut cmd = worl();
    cmd.arg("simulate")
        .arg(&w)
        .args(["--cluster", CLUSTER, "--policy", "plan:heft,eft"])
        .args(["--contention", "none", "--seeds", "1", "--quiet"])
        .args(["--failures", failures]);
    if let Some(out) = out {
        cmd.arg("--out").arg(out);
    }
    let o = cmd.output().unwrap();
    (
        o.status.code(),
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

#[test]
fn an_outage_list_loses_the_running_task_and_the_table_shows_the_lost_time() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (code, stdout, stderr) = simulate(dir.path(), "outages:0@5+20", Some(&out));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("lost to failures (s)"), "{stdout}");
    let rows = sim_rows(&out);
    let num = |policy: &str, k: &str| rows[policy][k].parse::<f64>().unwrap();
    // HEFT plans a then b on g0 (0..10, 10..20). g0 is down on [5, 25): a is lost after
    // 5 s, sent back to g0, runs 25..35, and b 35..45.
    assert_eq!(num("plan:heft", "planned_makespan"), 20.0);
    assert_eq!(num("plan:heft", "makespan"), 45.0);
    assert_eq!(num("plan:heft", "lost_time"), 5.0);
    // EFT also starts a on g0 (the lowest id of two idle GPUs) and loses it at 5 s; it
    // places it again on the GPU that is up, g1: 5..15, and b after it on g1 (g0 is down
    // until 25 s): 15..25.
    assert_eq!(num("eft", "makespan"), 25.0);
    assert_eq!(num("eft", "lost_time"), 5.0);
    // The table shows the same lost time, in the row of each policy.
    for policy in ["plan:heft", "eft"] {
        let row = stdout
            .lines()
            .find(|l| l.starts_with(&format!("| {policy} |")))
            .unwrap_or_else(|| panic!("no row of {policy} in {stdout}"));
        let header = stdout
            .lines()
            .find(|l| l.contains("lost to failures (s)"))
            .unwrap();
        let col = header
            .split('|')
            .position(|c| c.trim() == "lost to failures (s)")
            .unwrap();
        let cell = row.split('|').nth(col).unwrap().trim();
        assert_eq!(cell.parse::<f64>().unwrap(), 5.0, "{policy}: {row}");
    }
}

#[test]
fn a_script_file_gives_the_same_run_as_the_outage_list() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("outages.csv");
    std::fs::write(&script, "# g0 down for maintenance\ngpu,from,to\ng0,5,25\n").unwrap();
    let (out_a, out_b) = (dir.path().join("a"), dir.path().join("b"));
    let (code, _, stderr) = simulate(
        dir.path(),
        &format!("script:{}", script.display()),
        Some(&out_a),
    );
    assert_eq!(code, Some(0), "{stderr}");
    let (code, _, stderr) = simulate(dir.path(), "outages:0@5+20", Some(&out_b));
    assert_eq!(code, Some(0), "{stderr}");
    let (a, b) = (sim_rows(&out_a), sim_rows(&out_b));
    for policy in ["plan:heft", "eft"] {
        for k in ["makespan", "lost_time", "mean_jct"] {
            assert_eq!(a[policy][k], b[policy][k], "{policy} {k}");
        }
    }
    assert_eq!(a["plan:heft"]["makespan"], "45");
}

#[test]
fn bad_outage_specs_are_one_line_errors_naming_the_item() {
    let dir = tempfile::tempdir().unwrap();
    for (spec, names) in [
        (
            "outages:0@5+inf",
            "outage 1 `0@5+inf`: the duration must be finite",
        ),
        (
            "outages:0@5+20;x@1+1",
            "outage 2 `x@1+1`: GPU `x` is not a GPU index",
        ),
        (
            "outages:0@5..2",
            "the repair time must be finite and after the failure",
        ),
        ("outages:0@-1+2", "the failure time must be finite and >= 0"),
        (
            "outage:0@5+20",
            "expected none, mtbf:HOURS[:REPAIR_S], outages:",
        ),
    ] {
        let (code, _, stderr) = simulate(dir.path(), spec, None);
        assert_eq!(code, Some(2), "{spec}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{spec}: {stderr}");
        assert!(stderr.contains(&format!("`{spec}`")), "{spec}: {stderr}");
        assert!(stderr.contains(names), "{spec}: {stderr}");
    }
    // A GPU the cluster does not have: named, with the cluster's size.
    let (code, _, stderr) = simulate(dir.path(), "outages:1@0+1;2@0+1", None);
    assert_ne!(code, Some(0), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("invalid outage of GPU 2 from 0 s to 1 s: outage 2 `2@0+1`: GPU g2 is not in the cluster, which has 2 GPUs"),
        "{stderr}"
    );
}

#[test]
fn a_bad_line_of_a_script_file_is_a_one_line_error_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("outages.csv");
    std::fs::write(&script, "gpu,from,to\n0,5,25\n\n1,later,30\n").unwrap();
    let (code, _, stderr) = simulate(dir.path(), &format!("script:{}", script.display()), None);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "outage script `{}`, line 4: failure time (from) `later` is not a number",
            script.display()
        )),
        "{stderr}"
    );
    let missing = dir.path().join("missing.csv");
    let (code, _, stderr) = simulate(dir.path(), &format!("script:{}", missing.display()), None);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("outage script `{}`: ", missing.display())),
        "{stderr}"
    );
}

#[test]
fn schedule_simulate_takes_outages_too() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("chain.json");
    std::fs::write(&w, CHAIN).unwrap();
    let o = worl()
        .arg("schedule")
        .arg(&w)
        .args(["--cluster", CLUSTER, "--out"])
        .arg(dir.path().join("s.json"))
        .args(["--simulate", "--contention", "none"])
        .args(["--failures", "outages:g0@5+20"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("HEFT: makespan 20.000 s"), "{out}");
    assert!(out.contains("failures outages:g0@5+20, seed"), "{out}");
    assert!(
        out.contains("realised makespan 45.000 s = 2.2500 x planned"),
        "{out}"
    );
    assert!(out.contains("lost to failures 5.000 s"), "{out}");
}
