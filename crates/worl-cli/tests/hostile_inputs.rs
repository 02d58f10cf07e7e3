//! The `worl` binary on inputs an attacker or a careless user gives it (issue 20): files of
//! the wrong kind, empty names, outputs that overwrite inputs, byte-order marks, control
//! characters and huge values in what errors quote. Each error is one line naming the item.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// A chain of three tasks `a -> b -> c` (works 10, 20, 5 reference GPU-seconds) in worl's
/// workload JSON, with 1 GB on each edge.
const CHAIN: &str = r#"{"format": "worl-workload", "version": 1, "name": "chain",
"jobs": [{"name": "j", "tasks": [{"name": "a", "work": 10.0}, {"name": "b", "work": 20.0},
{"name": "c", "work": 5.0}],
"edges": [{"from": "a", "to": "b", "bytes": 1e9}, {"from": "b", "to": "c", "bytes": 1e9}]}]}
"#;

/// Two machines of one A100 each, in the compact cluster form.
const CLUSTER: &str = "name = \"two\"\nmachines = 2\ngpus_per_machine = 1\nmodel = \"A100-80GB\"\n";

fn worl() -> Command {
    Command::cargo_bin("worl").expect("the worl binary")
}

fn write(dir: &Path, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
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
    assert_eq!(
        out.status.code(),
        Some(code),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    err.trim_end().to_owned()
}

/// The chain, the two-machine cluster and HEFT's schedule of it (`s.json`) in `dir`.
fn chain_schedule(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let w = write(dir, "chain.json", CHAIN);
    let c = write(dir, "two.toml", CLUSTER);
    let s = dir.join("s.json");
    stdout(
        worl()
            .arg("schedule")
            .arg(&w)
            .arg("--cluster")
            .arg(&c)
            .arg("--out")
            .arg(&s),
    );
    (w, c, s)
}

#[test]
fn a_workload_given_as_the_schedule_is_named_a_workload_file() {
    let dir = tempfile::tempdir().unwrap();
    let (w, c, _) = chain_schedule(dir.path());
    let e = one_line_error(
        worl()
            .arg("validate")
            .arg(&w)
            .arg("--cluster")
            .arg(&c)
            .arg("--schedule")
            .arg(&w),
        2,
    );
    assert!(
        e.starts_with(&format!(
            "error: not a schedule file: {}: a worl workload file",
            w.display()
        )) && !e.contains("unknown field"),
        "{e}"
    );
}

#[test]
fn an_empty_machine_name_is_refused_naming_the_machine() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _, s) = chain_schedule(dir.path());
    let blank = write(
        dir.path(),
        "blank.toml",
        format!("{CLUSTER}[[machine]]\nindex = 1\nname = \"\"\n"),
    );
    for args in [
        vec!["validate".into(), w.clone(), "--schedule".into(), s.clone()],
        vec![
            "export".into(),
            s.clone(),
            "--workload".into(),
            w.clone(),
            "--to".into(),
            "slurm".into(),
            "--out".into(),
            dir.path().join("x.sh"),
        ],
    ] {
        let e = one_line_error(worl().args(args).arg("--cluster").arg(&blank), 2);
        assert_eq!(
            e,
            format!(
                "error: cluster `{}`: machine 1 has an empty name (schedule files and exports \
                 name machines: give it a name)",
                blank.display()
            )
        );
    }
    assert!(!dir.path().join("x.sh").exists());
}

#[test]
fn outputs_naming_one_file_or_an_input_are_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let (w, c, s) = chain_schedule(dir.path());
    let schedule = |extra: &[&std::ffi::OsStr]| {
        let mut cmd = worl();
        cmd.arg("schedule")
            .arg(&w)
            .arg("--cluster")
            .arg(&c)
            .args(extra);
        cmd
    };
    // --out and --gantt the same (new) file, spelt two ways
    let x = dir.path().join("x.svg");
    let x2 = dir.path().join(".").join("x.svg");
    let e = one_line_error(
        &mut schedule(&[
            "--out".as_ref(),
            x.as_os_str(),
            "--gantt".as_ref(),
            x2.as_os_str(),
        ]),
        2,
    );
    assert_eq!(
        e,
        format!(
            "error: --out and --gantt name the same file `{}`: give each its own file",
            x2.display()
        )
    );
    assert!(!x.exists());
    // --out over the workload: refused, the workload left as it was
    let e = one_line_error(&mut schedule(&["--out".as_ref(), w.as_os_str()]), 2);
    assert!(
        e.starts_with("error: the workload and --out name the same file `"),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&w).unwrap(), CHAIN);
    // --gantt over the cluster file
    let g = dir.path().join("sub").join("..").join("two.toml");
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let out = dir.path().join("o.json");
    let e = one_line_error(
        &mut schedule(&[
            "--out".as_ref(),
            out.as_os_str(),
            "--gantt".as_ref(),
            g.as_os_str(),
        ]),
        2,
    );
    assert!(e.starts_with("error: --cluster and --gantt name"), "{e}");
    assert_eq!(std::fs::read_to_string(&c).unwrap(), CLUSTER);
    // export's --out over its schedule
    let e = one_line_error(
        worl()
            .arg("export")
            .arg(&s)
            .arg("--workload")
            .arg(&w)
            .arg("--cluster")
            .arg(&c)
            .args(["--to", "slurm", "--out"])
            .arg(&s),
        2,
    );
    assert!(
        e.starts_with("error: the schedule and --out name the same file"),
        "{e}"
    );
    // convert onto its own input
    let e = one_line_error(worl().arg("convert").arg(&w).arg(&w), 2);
    assert!(
        e.starts_with("error: the input and the output name the same file"),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&w).unwrap(), CHAIN);
    // compare's --results over a workload
    let e = one_line_error(
        worl()
            .arg("compare")
            .arg(&w)
            .arg("--cluster")
            .arg(&c)
            .args(["--schedulers", "heft", "--seeds", "1", "--results"])
            .arg(&w)
            .arg("--out")
            .arg(dir.path().join("cmp")),
        2,
    );
    assert!(
        e.starts_with("error: a workload and --results name the same file"),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&w).unwrap(), CHAIN);
}

#[test]
fn an_empty_workload_error_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(
        dir.path(),
        "empty.json",
        r#"{"format": "worl-workload", "version": 1, "name": "e", "jobs": []}"#,
    );
    let e = one_line_error(worl().arg("info").arg(&empty), 2);
    assert!(
        e.starts_with(&format!("error: {}: ", empty.display())) && e.contains("no task"),
        "{e}"
    );
}

#[test]
fn inputs_starting_with_a_utf8_byte_order_mark_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let (w, c, s) = chain_schedule(dir.path());
    let bom = |name: &str, path: &Path| {
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend(std::fs::read(path).unwrap());
        write(dir.path(), name, bytes)
    };
    // a workload (JSON), a cluster file (TOML and JSON), schedules (JSON and CSV)
    let wb = bom("w-bom.json", &w);
    let cb = bom("c-bom.toml", &c);
    let cj = dir.path().join("c.json");
    stdout(worl().arg("cluster").arg(&c).arg("--out").arg(&cj));
    let cjb = bom("c-bom.json", &cj);
    let csv = dir.path().join("s.csv");
    stdout(
        worl()
            .arg("schedule")
            .arg(&w)
            .arg("--cluster")
            .arg(&c)
            .arg("--out")
            .arg(&csv),
    );
    let sb = bom("s-bom.json", &s);
    let csvb = bom("s-bom.csv", &csv);
    for cluster in [&cb, &cjb] {
        for schedule in [&sb, &csvb] {
            let out = stdout(
                worl()
                    .arg("validate")
                    .arg(&wb)
                    .arg("--cluster")
                    .arg(cluster)
                    .arg("--schedule")
                    .arg(schedule),
            );
            assert!(out.contains("valid, makespan"), "{out}");
        }
    }
    // a workload in STG and DOT, and a host map file
    let stg = write(dir.path(), "w.stg", "\u{FEFF}1\n0 0 0\n1 5 1 0\n2 0 1 1\n");
    let info = stdout(worl().arg("info").arg(&stg));
    assert!(info.contains("tasks               1"), "{info}");
    let dot = write(dir.path(), "w.dot", "\u{FEFF}digraph g { a [work=3]; }\n");
    let info = stdout(worl().arg("info").arg(&dot));
    assert!(info.contains("tasks               1"), "{info}");
    let hosts = write(
        dir.path(),
        "hosts.txt",
        "\u{FEFF}node-0=gpu-a\nnode-1=gpu-b\n",
    );
    let sh = dir.path().join("x.sh");
    stdout(
        worl()
            .arg("export")
            .arg(&s)
            .arg("--workload")
            .arg(&w)
            .arg("--cluster")
            .arg(&c)
            .args(["--to", "slurm", "--hosts"])
            .arg(&hosts)
            .arg("--out")
            .arg(&sh),
    );
    let script = std::fs::read_to_string(&sh).unwrap();
    // the map applies (read with `\u{FEFF}node-0` as its first machine, export would refuse
    // it as a machine the cluster lacks)
    assert!(
        script.contains("gpu-a") || script.contains("gpu-b"),
        "{script}"
    );
}

#[test]
fn export_template_errors_escape_control_characters() {
    let dir = tempfile::tempdir().unwrap();
    let (w, c, s) = chain_schedule(dir.path());
    let e = one_line_error(
        worl()
            .arg("export")
            .arg(&s)
            .arg("--workload")
            .arg(&w)
            .arg("--cluster")
            .arg(&c)
            .args(["--to", "slurm", "--command", "echo {task}\r\x1b[2K{nope}"])
            .arg("--out")
            .arg(dir.path().join("x.sh")),
        2,
    );
    assert!(!e.chars().any(char::is_control), "{e:?}");
    assert!(
        e.starts_with(
            "error: command template `echo {task}\\r\\u{1b}[2K{nope}`: unknown placeholder `{nope}`"
        ),
        "{e}"
    );
}

#[test]
fn a_repeated_policy_key_is_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let (w, c, s) = chain_schedule(dir.path());
    let export = |policies: &[&str]| {
        let mut cmd = worl();
        cmd.arg("export")
            .arg(&s)
            .arg("--workload")
            .arg(&w)
            .arg("--cluster")
            .arg(&c)
            .args(["--to", "ray", "--out"])
            .arg(dir.path().join("d.py"));
        for p in policies {
            cmd.args(["--policy", p]);
        }
        cmd
    };
    for policies in [
        &["devices=planned", "devices=slurm"][..],
        &["devices=planned,devices=slurm"][..],
    ] {
        let e = one_line_error(&mut export(policies), 2);
        assert_eq!(
            e,
            "error: policy `devices=slurm`: policy key `devices` is given twice (first as \
             `devices=planned`): give each key once"
        );
    }
    assert!(!dir.path().join("d.py").exists());
    stdout(&mut export(&["devices=planned"]));
    let driver = std::fs::read_to_string(dir.path().join("d.py")).unwrap();
    assert!(driver.contains("CUDA_VISIBLE_DEVICES"), "{driver}");
}

#[test]
fn a_10_mb_schedule_value_is_clipped_in_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let (w, c, _) = chain_schedule(dir.path());
    let big = "7".repeat(10 << 20);
    let s = write(
        dir.path(),
        "big.csv",
        format!("task,job,start,finish\na,j,0,{big}s\n"),
    );
    let e = one_line_error(
        worl()
            .arg("validate")
            .arg(&w)
            .arg("--cluster")
            .arg(&c)
            .arg("--schedule")
            .arg(&s),
        2,
    );
    assert_eq!(
        e,
        format!(
            "error: {}:2: column `finish`: `{}… ({} bytes)` is not a number",
            s.display(),
            "7".repeat(80),
            big.len() + 1
        )
    );
}
