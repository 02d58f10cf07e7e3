//! `worl`: schedule DAG-structured workloads on GPU clusters from the command line.
//!
//! ```text
//! worl schedule WORKLOAD --cluster CLUSTER --scheduler SPEC [--seed N] [--time T] --out FILE [--gantt SVG]
//! worl compare WORKLOAD... --cluster CLUSTER --schedulers A,B,... --seeds N --out DIR
//! worl compare WORKLOAD... --cluster CLUSTER ... --shard K/N --results FILE.jsonl
//! worl merge FILE.jsonl... --out DIR
//! worl simulate WORKLOAD... --cluster CLUSTER [--policy plan:heft,eft,...] [--arrivals poisson:R|trace|batch] [--noise lognormal:CV] [--contention fair|none] [--failures mtbf:H] [--seeds N] [--out DIR]
//! worl export SCHEDULE --workload W --cluster C --to slurm|argo|ray --out DIR|FILE [--command T] [--hosts MAP]
//! worl validate WORKLOAD --cluster CLUSTER --schedule FILE
//! worl info WORKLOAD [--bandwidth B]
//! worl convert IN OUT
//! worl cluster DESCRIPTION [--out FILE]
//! worl schedulers [NAME]
//! ```
//!
//! Workload formats are picked by extension or content (Alibaba v2018 CSV, Alibaba GPU v2023
//! pod lists and the PAI v2020 derived case, WfCommons JSON, Pegasus DAX, STG, worl's JSON); a cluster is a cluster file or a short description
//! (`pai-mix:16`, `homogeneous:8:A100-80GB`, `dgx:2:H100`). Every error is one line naming
//! the file, line and item.
//!
//! A closed stdout (`worl info X | head -1`: the reader has what it wanted) is not an
//! error: what is left to print is dropped, the command finishes its work (files are still
//! written) and exits with its usual status, 0 on success.

mod commands;
mod error;
mod inputs;

use clap::{Parser, Subcommand};
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

/// What every command returns.
pub(crate) type Result<T> = std::result::Result<T, error::Error>;

/// Set once a write to stdout found the pipe closed: later output is dropped.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `text` to stdout and flushes. A closed pipe (`EPIPE`) is not an error: the text
/// and all later output are dropped (see the crate docs).
///
/// Errors: any other write error (a full disk behind a redirection), naming stdout.
pub(crate) fn write_stdout(text: std::fmt::Arguments<'_>) -> Result<()> {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    match out.write_fmt(text).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        Err(e) => Err(worl::Error::io("stdout", e).into()),
        Ok(()) => Ok(()),
    }
}

/// `println!` to stdout through [`write_stdout`]: evaluates to `Result<()>`.
macro_rules! outln {
    () => {
        $crate::write_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use outln;

/// `eprintln!` that ignores a failed write: a closed or full stderr (`worl merge ... 2>&1 |
/// head -1`) loses the message but changes neither the work done nor the exit status.
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}
pub(crate) use errln;

/// Safety net for output not written through [`write_stdout`]: `println!` panics on a
/// closed stdout; that panic ends the process quietly with status 0 instead of a panic
/// message and status 101.
fn exit_quietly_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}

/// Schedule DAG-structured workloads on heterogeneous GPU clusters (HEFT, CPOP, PEFT,
/// Min-Min, RTGS, WORL-RTGS, ...).
#[derive(Parser, Debug)]
#[command(name = "worl", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Schedule one workload on a cluster and write the schedule (JSON or CSV by extension).
    Schedule(commands::schedule::Args),
    /// Run several schedulers on workloads and write the comparison (tables, CSV, JSON).
    Compare(commands::compare::Args),
    /// Join the results files of sharded `compare --shard K/N` runs and write compare's outputs.
    Merge(commands::merge::Args),
    /// Execute workloads in a discrete-event simulation (job arrivals, runtime noise, shared
    /// links, GPU failures) under static plans and online policies; print and write the
    /// measures (makespan, JCT, slowdown, utilisation, contention delay, ...).
    Simulate(commands::simulate::Args),
    /// Write a schedule as a runnable Slurm script, Argo Workflow or Ray driver, every task
    /// pinned to its planned machine and GPU.
    Export(commands::export::Args),
    /// Check a schedule file made by any tool against a workload and a cluster.
    Validate(commands::validate::Args),
    /// Print a workload's size and shape: tasks, edges, jobs, depth, width, critical path, CCR.
    Info(commands::info::Args),
    /// Convert a workload between formats (by the output's extension).
    Convert(commands::convert::Args),
    /// Print or write a cluster file from a preset or a short description.
    Cluster(commands::cluster::Args),
    /// List the registered schedulers and their options, or one scheduler's option table.
    Schedulers(commands::SchedulersArgs),
}

fn main() -> ExitCode {
    exit_quietly_on_closed_stdout();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Schedule(a) => commands::schedule::run(&a),
        Command::Compare(a) => commands::compare::run(&a),
        Command::Merge(a) => commands::merge::run(&a),
        Command::Simulate(a) => commands::simulate::run(&a),
        Command::Export(a) => commands::export::run(&a),
        Command::Validate(a) => commands::validate::run(&a),
        Command::Info(a) => commands::info::run(&a),
        Command::Convert(a) => commands::convert::run(&a),
        Command::Cluster(a) => commands::cluster::run(&a),
        Command::Schedulers(a) => commands::schedulers(&a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            errln!("error: {}", worl::error_line(&e));
            ExitCode::from(2)
        }
    }
}
