//! Loads a workload file with the reader its name picks (`formats::load_path`) and prints its
//! size and load report, or the typed error: `cargo run --release -p worl-dag --example
//! load_file -- FILE`. Used to measure a loader's time and memory on large or hostile inputs
//! (e.g. under `/usr/bin/time -v`).

use std::io::Write as _;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: load_file FILE");
        std::process::exit(2);
    };
    // Written with `writeln!`, errors ignored: a closed pipe (`| head`) is no failure here.
    let mut out = std::io::stdout().lock();
    match worl_dag::formats::load_path(&path) {
        Ok((w, report)) => {
            let g = w.graph();
            let _ = writeln!(
                out,
                "{} tasks, {} edges, {} jobs",
                g.n_tasks(),
                g.n_edges(),
                w.n_jobs()
            );
            // Items can be long: show the head of the report only.
            let text = report.to_string();
            let head: String = text.chars().take(2000).collect();
            let _ = writeln!(out, "{head}");
        }
        Err(e) => {
            let text = e.to_string();
            let head: String = text.chars().take(500).collect();
            let _ = writeln!(out, "error: {head}");
            std::process::exit(1);
        }
    }
}
