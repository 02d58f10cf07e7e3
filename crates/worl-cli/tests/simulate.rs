//! `worl simulate` run as a user runs it: a hand-computed case with a late job, the files it
//! writes, and one-line errors for bad settings.

use assert_cmd::Command;
use std::path::Path;

/// Job `j1`: `a -> b` (10 and 20 reference GPU-seconds, 1 GB between them), released at 0;
/// job `late`: one task `x` of 4 s released at 100 s.
const TWO_JOBS: &str = r#"{"format": "worl-workload", "version": 1, "name": "two",
"jobs": [{"name": "j1", "tasks": [{"name": "a", "work": 10.0}, {"name": "b", "work": 20.0}],
          "edges": [{"from": "a", "to": "b", "bytes": 1e9}]},
         {"name": "late", "release": 100.0, "tasks": [{"name": "x", "work": 4.0}], "edges": []}]}
"#;

fn worl() -> Command {
    Command::cargo_bin("worl").expect("the worl binary")
}

/// The rows of `sim.csv` as (policy, column -> value).
fn sim_rows(dir: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(dir.join("sim.csv")).unwrap();
    let headers = r.headers().unwrap().clone();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            headers
                .iter()
                .zip(rec.iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

#[test]
fn a_late_job_waits_for_its_release_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("two.json");
    std::fs::write(&w, TWO_JOBS).unwrap();
    let out = dir.path().join("out");
    let o = worl()
        .arg("simulate")
        .arg(&w)
        .args(["--cluster", "homogeneous:2:V100-16GB"])
        .args(["--policy", "plan:heft,eft", "--contention", "none"])
        .args(["--seeds", "1", "--events", "--quiet", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(stdout.contains("| plan:heft |"), "{stdout}");
    let rows = sim_rows(&out);
    assert_eq!(rows.len(), 2);
    for row in &rows {
        // a then b on one V100 (no transfer): j1 ends at 30 s; x runs 100..104 on an idle
        // GPU: makespan 104 s, JCTs 30 and 4 s, no wait.
        let num = |k: &str| row[k].parse::<f64>().unwrap();
        assert_eq!(num("makespan"), 104.0, "{row:?}");
        assert_eq!(num("mean_jct"), 17.0, "{row:?}");
        assert_eq!(num("mean_wait"), 0.0, "{row:?}");
        assert_eq!(num("contention_delay"), 0.0, "{row:?}");
    }
    // HEFT planned the batch with every job at 0: 30 s
    assert_eq!(rows[0]["policy"], "plan:heft");
    assert_eq!(rows[0]["planned_makespan"], "30");
    assert_eq!(rows[1]["planned_makespan"], "");
    for f in [
        "simulation.md",
        "runs.csv",
        "results.json",
        "jct-cdf.svg",
        "gantt-plan-heft.svg",
        "gantt-plan-heft-planned.svg",
        "gantt-eft.svg",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let events = std::fs::read_to_string(out.join("events-eft.csv")).unwrap();
    assert!(
        events.starts_with("time,event,job,task,gpu,peer_task\n"),
        "{events}"
    );
    assert!(events.contains("100,released,late,,,"), "{events}");
    assert!(events.contains("100,started,late,late/x,"), "{events}");
    assert!(events.contains("104,finished,late,late/x,"), "{events}");
}

#[test]
fn bad_settings_are_one_line_errors_naming_the_spec() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("two.json");
    std::fs::write(&w, TWO_JOBS).unwrap();
    for (flag, value) in [
        ("--noise", "lognormal:-1"),
        ("--policy", "fastest"),
        ("--arrivals", "poisson:0"),
        ("--failures", "mtbf:0"),
        ("--contention", "shared"),
    ] {
        let o = worl()
            .arg("simulate")
            .arg(&w)
            .args(["--cluster", "homogeneous:2:V100-16GB", flag, value])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{flag} {value}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(&format!("`{value}`")), "{flag}: {err}");
    }
}

#[test]
fn schedule_simulate_prints_the_realised_makespan_beside_the_planned() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("two.json");
    std::fs::write(&w, TWO_JOBS).unwrap();
    let o = worl()
        .arg("schedule")
        .arg(&w)
        .args(["--cluster", "homogeneous:2:V100-16GB", "--out"])
        .arg(dir.path().join("s.json"))
        .args(["--simulate", "--contention", "none"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    // HEFT plans 30 s with every job at 0; executed, the late job runs 100..104 s
    assert!(out.contains("HEFT: makespan 30.000 s"), "{out}");
    assert!(
        out.contains("realised makespan 104.000 s = 3.4667 x planned, mean JCT 17.000 s"),
        "{out}"
    );
    let o = worl()
        .arg("schedule")
        .arg(&w)
        .args(["--cluster", "homogeneous:2:V100-16GB", "--out"])
        .arg(dir.path().join("s2.json"))
        .args(["--noise", "lognormal:0.3"])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(2),
        "--noise without --simulate is refused"
    );
}
