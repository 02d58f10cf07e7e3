//! worl quickstart: a generated workload and any trace files given on the command line,
//! with their statistics and load reports.
//!
//! ```sh
//! cargo run --release --example quickstart
//! cargo run --release --example quickstart -- ../shared/data/stg/robot.stg Montage_25.xml
//! ```
//!
//! The format of each file comes from its extension: `.csv` Alibaba v2018 `batch_task`,
//! `.json` WfCommons WfFormat or worl's native JSON, `.xml`/`.dax` Pegasus DAX, `.stg`
//! Standard Task Graph (see `docs/formats.md`).

use std::process::ExitCode;
use worl_dag::generators::alibaba_like::{AlibabaLikeParams, alibaba_like};
use worl_dag::{REFERENCE_BANDWIDTH, Workload, load_path};

/// Seed of the built-in workload.
const SEED: u64 = 2025;

fn show(title: &str, w: &Workload) -> Result<(), worl_dag::DagError> {
    println!("== {title}: {}", w.name());
    println!("{}", w.stats(REFERENCE_BANDWIDTH)?);
    Ok(())
}

fn main() -> ExitCode {
    // 100 jobs shaped like the Alibaba v2018 batch DAGs (a few hundred tasks), CCR 1 at
    // 10 Gbit/s.
    let built_in = match alibaba_like(&AlibabaLikeParams::new(100), SEED) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut failed = false;
    if let Err(e) = show(&format!("built-in workload (seed {SEED})"), &built_in) {
        eprintln!("error: {e}");
        failed = true;
    }
    for path in std::env::args().skip(1) {
        println!();
        match load_path(&path).and_then(|(w, report)| {
            show(&path, &w)?;
            println!("{report}");
            Ok(())
        }) {
            Ok(()) => {}
            Err(e) => {
                eprintln!("error: {e}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
