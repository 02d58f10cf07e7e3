//! `worl`: schedule DAG-structured workloads on GPU clusters from the command line.
//!
//! ```text
//! worl schedule WORKLOAD --cluster CLUSTER --scheduler SPEC [--seed N] [--time T] --out FILE [--gantt SVG]
//! worl compare WORKLOAD... --cluster CLUSTER --schedulers A,B,... --seeds N --out DIR
//! worl compare WORKLOAD... --cluster CLUSTER ... --shard K/N --results FILE.jsonl
//! worl merge FILE.jsonl... --out DIR
//! worl export SCHEDULE --workload W --cluster C --to slurm|argo|ray --out DIR|FILE [--command T] [--hosts MAP]
//! worl validate WORKLOAD --cluster CLUSTER --schedule FILE
//! worl info WORKLOAD [--bandwidth B]
//! worl convert IN OUT
//! worl cluster DESCRIPTION [--out FILE]
//! worl schedulers
//! ```
//!
//! Workload formats are picked by extension or content (Alibaba v2018 CSV, WfCommons JSON,
//! Pegasus DAX, STG, worl's JSON); a cluster is a cluster file or a short description
//! (`pai-mix:16`, `homogeneous:8:A100-80GB`, `dgx:2:H100`). Every error is one line naming
//! the file, line and item.

mod commands;
mod inputs;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// What every command returns.
pub(crate) type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

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
    /// List the registered schedulers and their descriptions.
    Schedulers,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Schedule(a) => commands::schedule::run(&a),
        Command::Compare(a) => commands::compare::run(&a),
        Command::Merge(a) => commands::merge::run(&a),
        Command::Export(a) => commands::export::run(&a),
        Command::Validate(a) => commands::validate::run(&a),
        Command::Info(a) => commands::info::run(&a),
        Command::Convert(a) => commands::convert::run(&a),
        Command::Cluster(a) => commands::cluster::run(&a),
        Command::Schedulers => commands::schedulers(),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", worl::error_line(e.as_ref()));
            ExitCode::from(2)
        }
    }
}
