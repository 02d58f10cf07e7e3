//! `worl export`: a schedule file as a runnable Slurm script, Argo Workflow or Ray driver.

use crate::{Result, inputs};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use worl_export::{CommandTemplate, Engine, ExportOptions, ExportPlan};

/// Arguments of `worl export`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// The schedule file (`.json` or `.csv`) made by `worl schedule` or another tool.
    schedule: PathBuf,
    /// The workload the schedule is of.
    #[arg(long)]
    workload: PathBuf,
    /// The cluster: a cluster file or a description; optional for a saga instance.
    #[arg(long)]
    cluster: Option<String>,
    /// The engine: `slurm` (bash submit script), `argo` (Workflow YAML) or `ray` (Python
    /// driver).
    #[arg(long)]
    to: String,
    /// Output: a file, or a directory (created if needed) to write `submit.sh`,
    /// `workflow.yaml` or `driver.py` into. A path ending in `/` or naming a directory is a
    /// directory.
    #[arg(long)]
    out: PathBuf,
    /// Each task's command, with placeholders {task} {job} {gpu} {machine} {host} {name} {id}
    /// (default: a no-op echo).
    #[arg(long)]
    command: Option<String>,
    /// Machine → host names: `machine=host,...` or a file of such entries (one per line,
    /// `#` comments); other machines keep their names.
    #[arg(long)]
    hosts: Option<String>,
    /// The workflow's name (default: the workload's).
    #[arg(long)]
    name: Option<String>,
    /// Container image of the Argo pods (default `busybox:1.36`).
    #[arg(long)]
    image: Option<String>,
    /// Export policies, `key=value[,...]`: `devices=slurm` (default: the engine chooses
    /// each task's GPU; the planned index is in WORL_GPU) or `devices=planned` (Slurm and
    /// Ray jobs set CUDA_VISIBLE_DEVICES to the planned index; only where jobs see every
    /// GPU, not under Slurm's ConstrainDevices=yes).
    #[arg(long)]
    policy: Vec<String>,
    /// Export a schedule that `worl validate` rejects (by default export refuses it and
    /// lists the violations); the order must still be consistent.
    #[arg(long)]
    allow_invalid: bool,
}

/// Writes the artifact and prints where, with the task count.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    let engine: Engine = args.to.parse()?;
    let as_dir = args.out.is_dir() || args.out.to_string_lossy().ends_with(['/', '\\']);
    let path = if as_dir {
        args.out.join(engine.file_name())
    } else {
        args.out.clone()
    };
    let hosts_file = args
        .hosts
        .as_deref()
        .filter(|h| !h.contains('='))
        .map(Path::new);
    inputs::distinct_files(
        &[("--out", Some(&path))],
        &[
            ("the schedule", Some(&args.schedule)),
            ("--workload", Some(&args.workload)),
            ("--cluster", args.cluster.as_deref().map(Path::new)),
            ("--hosts", hosts_file),
        ],
    )?;
    let problem = inputs::problem_of(&args.workload, args.cluster.as_deref())?;
    let file = inputs::schedule_file(&args.schedule)?;
    let mut options = ExportOptions::default();
    if let Some(c) = &args.command {
        options.command = CommandTemplate::new(c)?;
    }
    if let Some(h) = &args.hosts {
        options.hosts = inputs::host_map(h)?;
    }
    options.name.clone_from(&args.name);
    if let Some(i) = &args.image {
        options.image.clone_from(i);
    }
    options.set_policies(args.policy.iter().map(String::as_str))?;
    options.allow_invalid = args.allow_invalid;
    let plan = ExportPlan::from_file(&problem, &file, &options)?;
    let text = plan.render(engine);
    write(&path, &text, engine != Engine::Argo)?;
    crate::errln!(
        "wrote {} ({} tasks, {engine})",
        path.display(),
        plan.tasks().len()
    );
    Ok(ExitCode::SUCCESS)
}

/// Writes `text` to `path` (parents created), executable when `exec` (Unix).
fn write(path: &Path, text: &str, exec: bool) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| worl::Error::io(dir, e))?;
    }
    std::fs::write(path, text).map_err(|e| worl::Error::io(path, e))?;
    #[cfg(unix)]
    if exec {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| worl::Error::io(path, e))?;
    }
    #[cfg(not(unix))]
    let _ = exec;
    Ok(())
}
