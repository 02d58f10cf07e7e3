//! Loads a workload file with the reader its name picks (`formats::load_path`) and prints its
//! size and load report, or the typed error: `cargo run --release -p worl-dag --example
//! load_file -- FILE`. Used to measure a loader's time and memory on large or hostile inputs
//! (e.g. under `/usr/bin/time -v`).

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: load_file FILE");
        std::process::exit(2);
    };
    match worl_dag::formats::load_path(&path) {
        Ok((w, report)) => {
            let g = w.graph();
            println!(
                "{} tasks, {} edges, {} jobs",
                g.n_tasks(),
                g.n_edges(),
                w.n_jobs()
            );
            let text = report.to_string();
            // Items can be long: show the head of the report only.
            let head: String = text.chars().take(2000).collect();
            println!("{head}");
        }
        Err(e) => {
            let text = e.to_string();
            let head: String = text.chars().take(500).collect();
            println!("error: {head}");
            std::process::exit(1);
        }
    }
}
