//! The SPD–FTG study of Du et al. (J. Supercomputing 2025, BDCC 2025) on
//! Alibaba cluster-trace-v2018 DAG jobs: Pearson's r between the scheduling plan distance
//! (SPD, Euclidean distance of running-time vectors) and the finish time gap (FTG) of plan
//! pairs, per workload size, on 50 and 500 GPUs, idle and busy. The paper reports r between
//! about 0.4 and 0.5.
//!
//! ```sh
//! cargo run --release --example spd_ftg_study
//! cargo run --release --example spd_ftg_study -- --pairs 2000 --sampler independent --distance l1
//! ```
//!
//! Workloads: the DAG jobs (at least 2 tasks, all terminated) of
//! `alibaba-v2018/batch_task_head50k.csv` in file order, merged until the workload holds at
//! least 100, 200, …, 1,000 tasks (whole jobs, so sizes overshoot a little; edge bytes for
//! CCR 1 at 10 Gbit/s). Clusters: [`presets::paper_pool`] (one GPU per machine, PAI GPU mix,
//! links up to 2,000 Mbit/s), idle or in the paper's busy state ([`LoadState::paper_busy`]).
//! Needs the shared data directory (`WORL_DATA_DIR`, default `../shared/data`).

use std::process::ExitCode;
use std::sync::Arc;
use worl::cluster::{LoadState, Problem, presets};
use worl::dag::datasets::data_file;
use worl::dag::formats::alibaba::{AlibabaOptions, load};
use worl::experiment::study::{SpdFtgConfig, spd_ftg_study};

const SEED: u64 = 2025;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut config = SpdFtgConfig {
        pairs: 1000,
        seed: SEED,
        parallel: true,
        ..SpdFtgConfig::default()
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--pairs" => config.pairs = value()?.parse()?,
            "--seed" => config.seed = value()?.parse()?,
            "--sampler" => config.sampler = value()?.parse()?,
            "--distance" => config.distance = value()?.parse()?,
            other => return Err(format!("unknown argument `{other}`").into()),
        }
    }
    let Some(path) = data_file("alibaba-v2018/batch_task_head50k.csv")? else {
        println!("shared data directory absent: nothing to study");
        return Ok(());
    };
    let base = AlibabaOptions::default()
        .only_terminated()
        .task_range(2, usize::MAX);
    let (all, _) = load(&path, &base)?;
    let jobs: Vec<(String, usize)> = all
        .jobs()
        .iter()
        .map(|j| (j.name.clone(), j.tasks.len()))
        .collect();

    let clusters = [(50, false), (50, true), (500, false), (500, true)];
    println!(
        "SPD–FTG Pearson r ({} pairs, {:?} sampler, {:?} SPD; `*`: p >= 0.01)",
        config.pairs, config.sampler, config.distance
    );
    print!("| target | tasks | jobs |");
    for (m, busy) in clusters {
        print!(" {m} GPUs {} |", if busy { "busy" } else { "idle" });
    }
    println!();
    println!("|---|---|---|{}", "---|".repeat(clusters.len()));
    let mut sums = [0.0; 4];
    let mut count = 0;
    for target in (100..=1000).step_by(100) {
        let mut names = Vec::new();
        let mut n = 0;
        for (name, tasks) in &jobs {
            if n >= target {
                break;
            }
            names.push(name.clone());
            n += tasks;
        }
        if n < target {
            println!("| {target} | only {n} tasks in the file | | |");
            break;
        }
        let (workload, _) = load(&path, &base.clone().jobs(names.iter().cloned()))?;
        let workload = Arc::new(workload);
        print!(
            "| {target} | {} | {} |",
            workload.graph().n_tasks(),
            names.len()
        );
        for (k, &(m, busy)) in clusters.iter().enumerate() {
            let mut cluster = presets::paper_pool(m, 2000.0, SEED)?;
            if busy {
                cluster.apply_load(&LoadState::paper_busy(), SEED)?;
            }
            let problem = Problem::new(workload.clone(), Arc::new(cluster))?;
            let study = spd_ftg_study(&problem, &config);
            match study.pearson_r {
                Some(r) => {
                    sums[k] += r;
                    let weak = study.p_value.is_none_or(|p| p >= 0.01);
                    print!(" {r:.3}{} |", if weak { "*" } else { "" });
                }
                None => print!(" undefined |"),
            }
        }
        println!();
        count += 1;
    }
    if count > 0 {
        print!("| mean | | |");
        for s in sums {
            print!(" {:.3} |", s / count as f64);
        }
        println!();
    }
    Ok(())
}
