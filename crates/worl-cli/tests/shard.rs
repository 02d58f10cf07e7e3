//! `worl compare --shard K/N --results FILE` in four parallel processes, then `worl merge`:
//! the same runs, in the same order, with the same numbers as one `worl compare` (wall
//! times aside); and a killed shard's partial last line is redone on resume.

use assert_cmd::Command;
use std::path::Path;

/// Three workloads of different shapes, all in worl's JSON.
fn workload(name: &str, n: usize) -> String {
    // a fork-join: s -> t0..t{n-1} -> e, works 1..n
    let mut tasks = vec!["{\"name\": \"s\", \"work\": 2.0}".to_owned()];
    let mut edges = Vec::new();
    for i in 0..n {
        tasks.push(format!("{{\"name\": \"t{i}\", \"work\": {}.5}}", i + 1));
        edges.push(format!(
            "{{\"from\": \"s\", \"to\": \"t{i}\", \"bytes\": 2e8}}"
        ));
        edges.push(format!(
            "{{\"from\": \"t{i}\", \"to\": \"e\", \"bytes\": 1e8}}"
        ));
    }
    tasks.push("{\"name\": \"e\", \"work\": 1.0}".to_owned());
    format!(
        "{{\"format\": \"worl-workload\", \"version\": 1, \"name\": \"{name}\", \"jobs\": [{{\"name\": \"j\", \"tasks\": [{}], \"edges\": [{}]}}]}}",
        tasks.join(", "),
        edges.join(", ")
    )
}

const GRID: [&str; 8] = [
    "--cluster",
    "pai-mix:6",
    "--schedulers",
    "heft,cpop,min-min,rtgs[whales=6,iterations=5],ga",
    "--seeds",
    "3",
    "--evaluations",
    "400",
];

fn setup(d: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for (name, n) in [("fj4", 4), ("fj7", 7), ("fj11", 11)] {
        std::fs::write(d.join(format!("{name}.json")), workload(name, n)).unwrap();
        files.push(format!("{name}.json"));
    }
    files
}

/// results.json's records without wall times and CPU times.
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

fn ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn four_parallel_shards_merge_to_the_single_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let workloads = setup(d);
    let bin = assert_cmd::cargo::cargo_bin("worl");

    ok(Command::new(&bin)
        .current_dir(d)
        .arg("compare")
        .args(&workloads)
        .args(GRID)
        .args(["--out", "single"]));

    // four processes at once, one shard each
    let children: Vec<std::process::Child> = (0..4)
        .map(|k| {
            std::process::Command::new(&bin)
                .current_dir(d)
                .arg("compare")
                .args(&workloads)
                .args(GRID)
                .args([
                    "--shard",
                    format!("{k}/4").as_str(),
                    "--results",
                    format!("shard-{k}.jsonl").as_str(),
                ])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut lines = 0;
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        lines += 1;
    }
    assert_eq!(lines, 4);
    // 3 problems x (3 deterministic + 2 stochastic x 3 seeds) = 27 runs: 7, 7, 7, 6
    let counts: Vec<usize> = (0..4)
        .map(|k| {
            std::fs::read_to_string(d.join(format!("shard-{k}.jsonl")))
                .unwrap()
                .lines()
                .count()
        })
        .collect();
    assert_eq!(counts, [7, 7, 7, 6]);

    let err = ok(Command::new(&bin)
        .current_dir(d)
        .args([
            "merge",
            "shard-2.jsonl",
            "shard-0.jsonl",
            "shard-3.jsonl",
            "shard-1.jsonl",
        ])
        .args(["--out", "merged"]));
    assert!(err.contains("merged 27 runs from 4 file(s)"), "{err}");
    let single = records(&d.join("single"));
    assert_eq!(single.len(), 27);
    assert_eq!(records(&d.join("merged")), single);
    for f in ["summary.md", "normalised.csv"] {
        let a = std::fs::read_to_string(d.join("single").join(f)).unwrap();
        let b = std::fs::read_to_string(d.join("merged").join(f)).unwrap();
        if f == "normalised.csv" {
            assert_eq!(a, b, "{f}");
        } else {
            // the summary's tables hold wall times; the normalised table comes first
            let head = |s: &str| s.split("## Per workload").next().unwrap().to_owned();
            assert_eq!(head(&a), head(&b), "{f}");
        }
    }

    // a shard killed mid-line: resume cuts the partial line and redoes that one run
    let f = d.join("shard-1.jsonl");
    let text = std::fs::read_to_string(&f).unwrap();
    let last = text.lines().last().unwrap().len();
    std::fs::write(&f, &text[..text.len() - 1 - last / 2]).unwrap();
    let err = Command::new(&bin)
        .current_dir(d)
        .args([
            "merge",
            "shard-0.jsonl",
            "shard-1.jsonl",
            "shard-2.jsonl",
            "shard-3.jsonl",
        ])
        .args(["--out", "bad"])
        .output()
        .unwrap();
    assert_eq!(err.status.code(), Some(2));
    let msg = String::from_utf8_lossy(&err.stderr);
    assert!(msg.contains("1 of 27 runs missing"), "{msg}");
    let err = ok(Command::new(&bin)
        .current_dir(d)
        .arg("compare")
        .args(&workloads)
        .args(GRID)
        .args(["--shard", "1/4", "--results", "shard-1.jsonl"]));
    assert!(
        err.contains("shard 1/4: 7 runs, 6 already in shard-1.jsonl, 1 done now (a partial last line was cut off and redone)"),
        "{err}"
    );
    ok(Command::new(&bin)
        .current_dir(d)
        .args([
            "merge",
            "shard-0.jsonl",
            "shard-1.jsonl",
            "shard-2.jsonl",
            "shard-3.jsonl",
        ])
        .args(["--out", "merged2"]));
    assert_eq!(records(&d.join("merged2")), single);
}

#[test]
fn shard_flags_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let workloads = setup(d);
    let bin = assert_cmd::cargo::cargo_bin("worl");
    let out = Command::new(&bin)
        .current_dir(d)
        .arg("compare")
        .args(&workloads)
        .args(GRID)
        .args(["--shard", "4/4", "--results", "r.jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(
        msg.contains("--shard `4/4`: expected K/N with 0 <= K < N"),
        "{msg}"
    );
    // a results file of another grid is refused, naming file and line
    ok(Command::new(&bin)
        .current_dir(d)
        .arg("compare")
        .args(&workloads[..1])
        .args(GRID)
        .args(["--shard", "0/2", "--results", "r.jsonl"]));
    let out = Command::new(&bin)
        .current_dir(d)
        .arg("compare")
        .args(&workloads)
        .args(GRID)
        .args(["--shard", "0/2", "--results", "r.jsonl"])
        .output()
        .unwrap();
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(msg.contains("r.jsonl:1: a run of another grid"), "{msg}");
}
