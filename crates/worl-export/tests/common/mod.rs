//! Shared by the export tests: problems with arbitrary names and valid schedules for them,
//! and readers of the three artifacts that run or parse them as the engines would (bash
//! against a stand-in `sbatch`, a YAML parser, Python's `ast`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use worl_cluster::{ClusterBuilder, GpuId, GpuModel, Problem, Schedule, ScheduledTask};
use worl_dag::{TaskId, WorkloadBuilder};
use worl_export::{DevicePolicy, ExportPlan};

/// The names of a test problem: everything the exporters write.
#[derive(Clone, Debug)]
pub struct Names {
    /// The workload's name.
    pub workload: String,
    /// The cluster's name.
    pub cluster: String,
    /// Job names (distinct).
    pub jobs: Vec<String>,
    /// `(job index, task name)` (distinct per job).
    pub tasks: Vec<(usize, String)>,
    /// Machine names (distinct), two GPUs each.
    pub machines: Vec<String>,
    /// Edges `(from, to)` between task indices, `from < to`.
    pub edges: Vec<(usize, usize)>,
    /// GPU of each task (0-based over the cluster).
    pub gpus: Vec<usize>,
}

/// `name` if the workload model takes it as a job, task or workload name, else `name` with
/// each character the model refuses (control characters: C0, DEL, C1) replaced by U+2028,
/// a line separator to YAML 1.1 that the model takes. The exporters must keep such
/// characters as data too (hosts, cluster and machine names may hold them), but workloads
/// can no longer carry them.
pub fn model_name(name: &str) -> String {
    if WorkloadBuilder::new("probe").add_job(name).is_ok() {
        name.to_owned()
    } else {
        name.chars()
            .map(|c| if c.is_control() { '\u{2028}' } else { c })
            .collect()
    }
}

/// The problem of `names` and a valid schedule of it: tasks in index order (a topological
/// order, as every edge goes forward), each on its GPU as early as its GPU and its data
/// allow. Workload, job and task names go through [`model_name`].
pub fn problem(names: &Names) -> (Problem, Schedule) {
    let mut b = WorkloadBuilder::new(model_name(&names.workload));
    let jobs: Vec<_> = names
        .jobs
        .iter()
        .map(|j| b.add_job(model_name(j)).unwrap())
        .collect();
    let ids: Vec<TaskId> = names
        .tasks
        .iter()
        .enumerate()
        .map(|(i, (j, t))| {
            b.add_task(jobs[*j], model_name(t), 1.0 + (i % 3) as f64, None)
                .unwrap()
        })
        .collect();
    for &(f, t) in &names.edges {
        b.add_edge(ids[f], ids[t], 1e6).unwrap();
    }
    let w = Arc::new(b.build().unwrap());
    let mut c = ClusterBuilder::new(names.cluster.clone());
    for m in &names.machines {
        let id = c.add_machine(m.clone());
        c.add_gpus(id, &GpuModel::v100_16gb(), 2).unwrap();
    }
    let p = Problem::new(w, Arc::new(c.build().unwrap())).unwrap();
    let n_gpus = p.n_gpus();
    let mut free = vec![0.0f64; n_gpus];
    let mut entries: Vec<ScheduledTask> = Vec::with_capacity(ids.len());
    for (i, &v) in ids.iter().enumerate() {
        let g = GpuId::new(names.gpus[i] % n_gpus);
        let mut start = free[g.index()].max(p.ready_time(g));
        for &(f, t) in &names.edges {
            if t == i {
                let e: ScheduledTask = entries[f];
                start = start.max(e.finish + p.comm_time(1e6, e.gpu, g));
            }
        }
        let finish = start + p.exec_time(v, g);
        free[g.index()] = finish;
        entries.push(ScheduledTask {
            gpu: g,
            start,
            finish,
        });
    }
    let s = Schedule::new(n_gpus, entries).unwrap();
    (p, s)
}

/// The template the tests export with: one call of `record` with every placeholder.
pub const RECORD: &str = "record {task} {job} {machine} {host} {name} {gpu} {id}";

/// `name` on `PATH`, or `None`. Under `CI=true` a missing tool is a failure: the checks
/// that need it must run in CI.
pub fn tool(name: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "`{name}` is not on PATH: CI must run this check (install it)"
        );
        eprintln!("skipped: `{name}` is not on PATH (these checks run in CI)");
    }
    found
}

/// One `sbatch` call as the stand-in recorded it, and the `record` call its batch script
/// made when run.
#[derive(Debug, PartialEq)]
pub struct Submitted {
    /// The options given to `sbatch`.
    pub args: Vec<String>,
    /// The batch script (its standard input).
    pub script: String,
    /// The arguments of `record` (the command's placeholder values).
    pub command_args: Vec<String>,
    /// `WORL_TASK`, `WORL_JOB`, `WORL_HOST`, `WORL_GPU`, `CUDA_VISIBLE_DEVICES` in the
    /// batch script's environment (`<unset>` for an unset one).
    pub env: Vec<String>,
}

/// Bash functions standing in for `sbatch` and the task's command. `fake_sbatch` appends
/// `S`, its argument count, its arguments and its standard input (the batch script) to
/// `$REC` (fields ended by NUL) and prints the job name as the job id. After the submit
/// script is done, every recorded batch script runs in submission order as its job would
/// (one `eval` each in this shell: each sets every `WORL_*` variable it exports, and none
/// sets `CUDA_VISIBLE_DEVICES` but under the planned policy); its command `record` appends
/// `R`, its arguments and the `WORL_*` variables to `$RUN`. Everything is builtins: `PATH`
/// holds only a `canary` program that says it ran.
const HARNESS: &str = r#"
fake_sbatch() {
  local body=''
  IFS= read -r -d '' body || true
  { printf 'S\0%s\0' "$#"; printf '%s\0' "$@" "$body"; } >> "$REC"
  printf '%s;fake\n' "${2#--job-name=}"
}
record() {
  { printf 'R\0%s\0' "$#"; printf '%s\0' "$@" "${WORL_TASK-<unset>}" "${WORL_JOB-<unset>}" \
      "${WORL_HOST-<unset>}" "${WORL_GPU-<unset>}" "${CUDA_VISIBLE_DEVICES-<unset>}"; } >> "$RUN"
}
export -f fake_sbatch
SBATCH=fake_sbatch "$BASH" "$1" || exit
: > "$RUN"
[ -f "$REC" ] || exit 0
while IFS= read -r -d '' tag; do
  IFS= read -r -d '' n
  for ((k = 0; k < n; k++)); do IFS= read -r -d '' _; done
  IFS= read -r -d '' body
  eval "$body" > /dev/null
done < "$REC"
"#;

/// A directory with the harness, a `canary` program (the only program on `PATH`) and an
/// empty working directory for the scripts run, which must stay empty.
pub struct Sandbox {
    dir: tempfile::TempDir,
    bash: PathBuf,
}

impl Sandbox {
    /// A new sandbox for `bash`.
    pub fn new(bash: &Path) -> Self {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let canary = bin.join("canary");
        std::fs::write(
            &canary,
            format!(
                "#!{}\nprintf 'canary ran: %s\\n' \"$*\" >> \"$CANARY\"\n",
                bash.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&canary, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(dir.path().join("harness.sh"), HARNESS).unwrap();
        std::fs::create_dir(dir.path().join("work")).unwrap();
        Self {
            dir,
            bash: bash.to_owned(),
        }
    }

    /// Path of the canary's log: it exists only if `canary` ran.
    pub fn canary_log(&self) -> PathBuf {
        self.dir.path().join("canary.log")
    }

    /// Runs the Slurm `script` with bash as `bash submit.sh` on a login node would, with
    /// `SBATCH` the stand-in; returns every submission in order. Panics (with the script's
    /// stderr) if the script fails or prints to stderr, or if the canary ran.
    pub fn run_slurm(&self, script: &str) -> Vec<Submitted> {
        let d = self.dir.path();
        let path = d.join("submit.sh");
        let rec = d.join("rec");
        let run = d.join("run");
        std::fs::write(&path, script).unwrap();
        let _ = std::fs::remove_file(&rec);
        let out = Command::new(&self.bash)
            .arg(d.join("harness.sh"))
            .arg(&path)
            .env_clear()
            .env("PATH", d.join("bin"))
            .current_dir(d.join("work"))
            .env("REC", &rec)
            .env("RUN", &run)
            .env("CANARY", self.canary_log())
            .output()
            .unwrap();
        self.assert_canary_silent();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stderr.is_empty(),
            "submit script failed ({}): {stderr}",
            out.status
        );
        parse_records(
            &std::fs::read(&rec).unwrap_or_default(),
            &std::fs::read(&run).unwrap_or_default(),
        )
    }

    /// Runs each of `commands` (strings Argo runs with `sh -c` and Ray with `/bin/sh`)
    /// with `sh`, one after the other in one process, `record` a function; returns each
    /// call's arguments. Panics if sh fails, prints to stderr, or the canary ran.
    pub fn run_sh(&self, sh: &Path, commands: &[String]) -> Vec<Vec<String>> {
        let d = self.dir.path();
        let rec = d.join("rec-sh");
        let _ = std::fs::remove_file(&rec);
        let mut script = String::from(
            "set -e\nrecord() { { printf 'R\\0%s\\0' \"$#\"; printf '%s\\0' \"$@\"; } >> \"$REC\"; }\n",
        );
        for c in commands {
            // each command as its own `sh -c` would run it: one complete command
            script.push_str(c);
            script.push('\n');
        }
        let path = d.join("commands.sh");
        std::fs::write(&path, script).unwrap();
        let out = Command::new(sh)
            .arg(&path)
            .env_clear()
            .env("PATH", d.join("bin"))
            .current_dir(d.join("work"))
            .env("REC", &rec)
            .env("CANARY", self.canary_log())
            .output()
            .unwrap();
        self.assert_canary_silent();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stderr.is_empty(),
            "sh failed ({}): {stderr}",
            out.status
        );
        let bytes = std::fs::read(&rec).unwrap_or_default();
        let fields: Vec<String> = split_nul(&bytes);
        let mut calls = Vec::new();
        let mut i = 0;
        while i < fields.len() {
            assert_eq!(fields[i], "R", "{fields:?}");
            let n: usize = fields[i + 1].parse().unwrap();
            calls.push(fields[i + 2..i + 2 + n].to_vec());
            i += 2 + n;
        }
        calls
    }

    /// Empties the working directory.
    pub fn clear_work(&self) {
        let work = self.dir.path().join("work");
        std::fs::remove_dir_all(&work).unwrap();
        std::fs::create_dir(&work).unwrap();
    }

    /// Panics if the canary ran, or if anything was written to the working directory
    /// (injected code need not run a program: a redirection is enough).
    fn assert_canary_silent(&self) {
        if let Ok(log) = std::fs::read_to_string(self.canary_log()) {
            panic!("injected code ran: {log}");
        }
        let stray: Vec<_> = std::fs::read_dir(self.dir.path().join("work"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(stray.is_empty(), "injected code wrote {stray:?}");
    }
}

fn split_nul(bytes: &[u8]) -> Vec<String> {
    let mut fields: Vec<String> = bytes
        .split(|&b| b == 0)
        .map(|f| String::from_utf8(f.to_vec()).unwrap())
        .collect();
    // the last field ends with NUL: drop the empty rest
    assert_eq!(
        fields.pop().as_deref(),
        Some(""),
        "record not NUL-terminated"
    );
    fields
}

/// The submissions in `rec` (`S` records) with the command calls in `run` (`R` records),
/// one per job in the same order.
fn parse_records(rec: &[u8], run: &[u8]) -> Vec<Submitted> {
    let f = if rec.is_empty() {
        Vec::new()
    } else {
        split_nul(rec)
    };
    let mut out: Vec<Submitted> = Vec::new();
    let mut i = 0;
    while i < f.len() {
        assert_eq!(f[i], "S", "{f:?}");
        let n: usize = f[i + 1].parse().unwrap();
        out.push(Submitted {
            args: f[i + 2..i + 2 + n].to_vec(),
            script: f[i + 2 + n].clone(),
            command_args: Vec::new(),
            env: Vec::new(),
        });
        i += 3 + n;
    }
    let r = if run.is_empty() {
        Vec::new()
    } else {
        split_nul(run)
    };
    let mut calls = 0;
    let mut i = 0;
    while i < r.len() {
        assert_eq!(r[i], "R", "{r:?}");
        let n: usize = r[i + 1].parse().unwrap();
        let job = out
            .get_mut(calls)
            .unwrap_or_else(|| panic!("more commands ran than jobs: {r:?}"));
        job.command_args = r[i + 2..i + 2 + n].to_vec();
        job.env = r[i + 2 + n..i + 7 + n].to_vec();
        calls += 1;
        i += 7 + n;
    }
    assert_eq!(calls, out.len(), "one command per job");
    out
}

/// Checks every submission against `plan`: the `sbatch` options (job name, node,
/// dependencies by job name), the command's arguments (every placeholder's value, as data)
/// and the job's `WORL_*` / `CUDA_VISIBLE_DEVICES` environment.
pub fn check_slurm(plan: &ExportPlan, got: &[Submitted]) {
    let tasks = plan.tasks();
    assert_eq!(got.len(), tasks.len(), "one sbatch per task");
    for (t, s) in tasks.iter().zip(got) {
        let mut want = vec![
            "--parsable".to_owned(),
            format!("--job-name={}", t.name),
            format!("--nodelist={}", t.host),
            "--nodes=1".into(),
            "--ntasks=1".into(),
            format!("--gres=gpu:{}", t.gpus.len()),
        ];
        if !t.after.is_empty() {
            let deps: Vec<&str> = t.after.iter().map(|&d| tasks[d].name.as_str()).collect();
            want.push(format!("--dependency=afterok:{}", deps.join(":")));
            want.push("--kill-on-invalid-dep=yes".into());
        }
        assert_eq!(s.args, want, "sbatch options of {:?}", t.task);
        assert_eq!(
            s.command_args,
            [
                t.task.clone(),
                t.job.clone(),
                t.machine.clone(),
                t.host.clone(),
                t.name.clone(),
                t.gpu_list(),
                t.id.index().to_string(),
            ],
            "command arguments of {:?}, batch script:\n{}",
            t.task,
            s.script
        );
        let visible = match plan.devices() {
            DevicePolicy::Planned => t.gpu_list(),
            _ => "<unset>".to_owned(),
        };
        assert_eq!(
            s.env,
            [
                t.task.clone(),
                t.job.clone(),
                t.host.clone(),
                t.gpu_list(),
                visible
            ],
            "environment of {:?}",
            t.task
        );
    }
}

/// What `tests/py_ast_check.py` says of one driver.
#[derive(Debug)]
pub struct PyDriver {
    /// The module's AST with the data (`WORKLOAD`, `CLUSTER`, `TASKS`) blanked out.
    pub skeleton: String,
    /// `WORKLOAD`.
    pub workload: String,
    /// `CLUSTER`.
    pub cluster: String,
    /// `PIN_DEVICES`.
    pub pin: bool,
    /// `TASKS`.
    pub tasks: serde_json::Value,
}

/// Runs `python3 tests/py_ast_check.py` once on `drivers`; `None` without python3 (a
/// failure under `CI=true`).
pub fn parse_python(drivers: &[String]) -> Option<Vec<PyDriver>> {
    let python = tool("python3")?;
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = drivers
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let p = dir.path().join(format!("driver{i}.py"));
            std::fs::write(&p, text).unwrap();
            p
        })
        .collect();
    let out = Command::new(python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/py_ast_check.py"))
        .args(&files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "py_ast_check.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    Some(
        v.into_iter()
            .map(|d| PyDriver {
                skeleton: d["skeleton"].as_str().unwrap().to_owned(),
                workload: d["workload"].as_str().unwrap().to_owned(),
                cluster: d["cluster"].as_str().unwrap().to_owned(),
                pin: d["pin"].as_bool().unwrap(),
                tasks: d["tasks"].clone(),
            })
            .collect(),
    )
}

/// Checks a parsed driver against `plan`: the data is the plan's, `skeleton` the code's.
pub fn check_python(plan: &ExportPlan, d: &PyDriver, skeleton: &str) {
    assert_eq!(
        d.skeleton, skeleton,
        "the driver's code changed with its names"
    );
    assert_eq!(d.workload, plan.workload());
    assert_eq!(d.cluster, plan.cluster());
    assert_eq!(d.pin, plan.devices() == DevicePolicy::Planned);
    let want: Vec<serde_json::Value> = plan
        .tasks()
        .iter()
        .map(|t| {
            if plan.has_gangs() {
                serde_json::json!({
                    "name": t.name, "task": t.task, "job": t.job, "host": t.host,
                    "gpus": t.gpus, "num_gpus": t.gpus.len(), "command": t.command,
                    "after": t.after,
                })
            } else {
                serde_json::json!({
                    "name": t.name, "task": t.task, "job": t.job, "host": t.host,
                    "gpu": t.gpu, "command": t.command, "after": t.after,
                })
            }
        })
        .collect();
    assert_eq!(d.tasks, serde_json::Value::Array(want));
}

/// Parses `yaml` (one document) with yaml-rust2 into JSON: mappings with string keys,
/// strings, integers; panics on anything else.
pub fn parse_yaml(yaml: &str) -> serde_json::Value {
    use yaml_rust2::{Yaml, YamlLoader};
    fn conv(y: &Yaml) -> serde_json::Value {
        match y {
            Yaml::String(s) => serde_json::Value::String(s.clone()),
            Yaml::Integer(i) => serde_json::Value::from(*i),
            Yaml::Array(a) => serde_json::Value::Array(a.iter().map(conv).collect()),
            Yaml::Hash(h) => serde_json::Value::Object(
                h.iter()
                    .map(|(k, v)| match k {
                        Yaml::String(k) => (k.clone(), conv(v)),
                        other => panic!("non-string key {other:?}"),
                    })
                    .collect(),
            ),
            other => panic!("unexpected YAML node {other:?}"),
        }
    }
    let docs = YamlLoader::load_from_str(yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
    assert_eq!(docs.len(), 1, "one YAML document");
    conv(&docs[0])
}

/// Checks an Argo export of `plan` read back by [`parse_yaml`]: exactly the top-level keys
/// of a Workflow in order, the structure the exporter meant, and every name as data in its
/// place. The text must be printable ASCII and line feeds. Returns the parsed document.
pub fn check_argo(plan: &ExportPlan, yaml: &str) -> serde_json::Value {
    assert!(
        yaml.bytes()
            .all(|b| b == b'\n' || (b' '..=b'~').contains(&b)),
        "not printable ASCII"
    );
    let v = parse_yaml(yaml);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["apiVersion", "kind", "metadata", "spec"]);
    // the order as written
    let top: Vec<&str> = yaml
        .lines()
        .filter(|l| !l.starts_with([' ', '#', '-']))
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(top, ["apiVersion", "kind", "metadata", "spec"]);
    assert_eq!(v, worl_export::argo::workflow_value(plan));
    let prefix = v["metadata"]["generateName"].as_str().unwrap();
    assert!(
        prefix.len() <= 53
            && prefix.ends_with('-')
            && prefix.starts_with(|c: char| c.is_ascii_lowercase())
            && prefix
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
        "generateName {prefix:?}"
    );
    assert_eq!(
        v["metadata"]["annotations"]["worl/workload"],
        plan.workload()
    );
    assert_eq!(v["metadata"]["annotations"]["worl/cluster"], plan.cluster());
    let templates = v["spec"]["templates"].as_array().unwrap();
    assert_eq!(templates.len(), plan.tasks().len() + 1);
    for (t, tpl) in plan.tasks().iter().zip(&templates[1..]) {
        assert_eq!(
            tpl["nodeSelector"]["kubernetes.io/hostname"],
            t.host.as_str()
        );
        let c = &tpl["container"];
        assert_eq!(c["image"], plan.image());
        assert_eq!(
            c["command"],
            serde_json::json!(["sh", "-c", t.command.as_str()])
        );
        assert_eq!(
            c["resources"]["limits"]["nvidia.com/gpu"],
            t.gpus.len().to_string(),
            "GPUs of {:?}",
            t.task
        );
        assert_eq!(tpl["metadata"]["labels"]["worl/gpu"], t.gpu.to_string());
        let annotation = tpl["metadata"]["annotations"]["worl/gpus"].clone();
        if t.is_gang() {
            assert_eq!(annotation, t.gpu_list());
        } else {
            assert_eq!(annotation, serde_json::Value::Null);
        }
        assert_eq!(
            c["env"],
            serde_json::json!([
                {"name": "WORL_GPU", "value": t.gpu_list()},
                {"name": "WORL_TASK", "value": t.task},
                {"name": "WORL_JOB", "value": t.job},
                {"name": "WORL_HOST", "value": t.host},
            ])
        );
    }
    v
}

/// The commands of an Argo export as the YAML parser read them ([`parse_yaml`]).
pub fn argo_commands(v: &serde_json::Value) -> Vec<String> {
    v["spec"]["templates"].as_array().unwrap()[1..]
        .iter()
        .map(|t| t["container"]["command"][2].as_str().unwrap().to_owned())
        .collect()
}

/// The arguments `record` must get for each task of `plan`, in order.
pub fn record_args(plan: &ExportPlan) -> Vec<Vec<String>> {
    plan.tasks()
        .iter()
        .map(|t| {
            vec![
                t.task.clone(),
                t.job.clone(),
                t.machine.clone(),
                t.host.clone(),
                t.name.clone(),
                t.gpu_list(),
                t.id.index().to_string(),
            ]
        })
        .collect()
}

/// The gang problem of `names`: the workload of [`problem`] with task `i` needing
/// `gangs[i]` GPUs (span `span` where more than one), on machines `names.machines` with
/// `machine_gpus[k]` GPUs each, of the catalog model `models[k] % 3` (V100, T4, A100-40GB:
/// HEFT sees different speeds).
pub fn gang_problem(
    names: &Names,
    machine_gpus: &[usize],
    models: &[usize],
    gangs: &[u32],
    span: worl_dag::Span,
) -> Problem {
    let (p, _) = problem(names);
    let mut b = p.workload().to_builder();
    for (i, &g) in gangs.iter().enumerate() {
        if g > 1 {
            let params = worl_dag::GangParams {
                span,
                ..Default::default()
            };
            b.set_gang(TaskId::new(i), g, params).unwrap();
        }
    }
    let catalog = [GpuModel::v100_16gb(), GpuModel::t4(), GpuModel::a100_40gb()];
    let mut c = ClusterBuilder::new(names.cluster.clone());
    for ((m, &n), &k) in names.machines.iter().zip(machine_gpus).zip(models) {
        let id = c.add_machine(m.clone());
        c.add_gpus(id, &catalog[k % 3], n).unwrap();
    }
    Problem::new(Arc::new(b.build().unwrap()), Arc::new(c.build().unwrap())).unwrap()
}

/// HEFT's schedule of `p` (it places a gang on the GPU set with the earliest common
/// finish); checked valid.
pub fn heft(p: &Problem) -> Schedule {
    let mut heft = worl_sched::Registry::with_builtins()
        .build_spec("heft")
        .unwrap();
    let s = heft
        .schedule(p, &mut worl_sched::RunContext::new(7))
        .unwrap();
    let violations = s.validate(p);
    assert!(violations.is_empty(), "HEFT: {violations:?}");
    s
}

/// Each task's GPU set in `s` as the engines must see it, by task id: the indices of its
/// GPUs on their machine, in the set's order (lead first), comma-separated. Computed from
/// the schedule and the cluster, not from the export.
pub fn planned_lists(p: &Problem, s: &Schedule) -> Vec<String> {
    let c = p.cluster();
    (0..p.n_tasks())
        .map(|v| {
            s.gpus(TaskId::new(v))
                .iter()
                .map(|&k| {
                    let on = c.gpus_of(p.machine_of(k));
                    on.iter().position(|&x| x == k).unwrap().to_string()
                })
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect()
}
