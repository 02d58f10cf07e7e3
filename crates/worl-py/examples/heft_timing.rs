//! The Rust side of the Python overhead benchmark: load a workload and run HEFT on it, all
//! in Rust, and print the best wall times of `REPEATS` runs.
//!
//! ```text
//! cargo run -p worl-py --release --example heft_timing -- WORKLOAD CLUSTER [REPEATS]
//! cargo run -p worl-py --release --example heft_timing -- --generate 10000 /tmp/w10k.json
//! ```
//!
//! `--generate N OUT` writes a seeded layered DAG of `N` tasks (seed 1) as worl's workload
//! JSON, the instance `bench/overhead.py` times from Python.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use worl::dag::generators::layered::{LayeredParams, layered};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let run = || -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        match args.as_slice() {
            [flag, n, out] if flag == "--generate" => {
                let n: usize = n
                    .parse()
                    .map_err(|_| format!("`{n}` is not a task count"))?;
                let w = layered(&LayeredParams::new(n), 1)?;
                worl_py::core::save_workload(&w, None, Path::new(out))?;
                println!("wrote {out} ({n} tasks, {} edges)", w.graph().n_edges());
            }
            [path, cluster, rest @ ..] if rest.len() <= 1 => {
                let repeats = match rest.first() {
                    Some(r) => r.parse().map_err(|_| format!("`{r}` is not a count"))?,
                    None => 5,
                };
                let c = Arc::new(worl_py::core::parse_cluster(cluster)?);
                let (load_s, heft_s) = worl_py::timing(Path::new(path), c, repeats)?;
                println!("load_s {load_s:.6}\nheft_s {heft_s:.6}");
            }
            _ => {
                return Err("usage: heft_timing WORKLOAD CLUSTER [REPEATS] | \
                            heft_timing --generate N OUT"
                    .into());
            }
        }
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", worl::error_line(e.as_ref()));
            ExitCode::from(2)
        }
    }
}
