//! Moves evaluated per second by the iterated local search (`ils`), with incremental
//! evaluation (heads and tails, the default) and with full re-evaluation of every tried
//! move (`eval=full`), on layered DAGs of 100, 1,000 and 10,000 tasks on PAI GPU mixes of
//! 8, 16 and 64 GPUs. Each run starts from HEFT (included in the time) and stops after a
//! fixed number of tried moves; criterion reports them as elements per second. Both modes
//! give the same schedule (a unit test checks it), so the ratio is the speed-up.
//!
//! Target (issue 23): at least 10x more moves per CPU-second than full evaluation at 1,000
//! and 10,000 tasks.
//!
//! Measured on the 2-core development machine. "Before": the ILS of the previous release
//! (full evaluation, swap partner any task), 2 s time-budget runs of the same instances;
//! "full" and "incremental": this benchmark (HEFT's start included, which understates the
//! incremental rate at 10,000 tasks).
//!
//! | tasks | before | full | incremental | vs before | vs full |
//! |---:|---:|---:|---:|---:|---:|
//! | 100 | 459 k/s | 505 k/s | 1,505 k/s | 3.3x | 3.0x |
//! | 1,000 | 34.6 k/s | 42.0 k/s | 390 k/s | 11.3x | 9.3x |
//! | 10,000 | 1.04 k/s | 0.94 k/s | 26.8 k/s | 26x | 28x |

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;
use worl::cluster::{Problem, presets};
use worl::dag::generators::layered::{LayeredParams, layered};
use worl::sched::schedulers::local::{Evaluation, Ils, IlsConfig};
use worl::sched::{Budget, RunContext, Scheduler};

fn problem(n: usize, m: usize) -> Problem {
    let w = Arc::new(layered(&LayeredParams::new(n), 1).unwrap());
    Problem::new(w, Arc::new(presets::pai_mix(m, 1).unwrap())).unwrap()
}

fn bench(c: &mut Criterion) {
    for (n, m, full_moves, fast_moves) in [
        (100, 8, 20_000u64, 50_000u64),
        (1_000, 16, 2_000, 20_000),
        (10_000, 64, 200, 5_000),
    ] {
        let p = problem(n, m);
        let mut g = c.benchmark_group(format!("ils_moves_{n}_tasks"));
        g.sample_size(10).measurement_time(Duration::from_secs(5));
        for (eval, moves) in [
            (Evaluation::Full, full_moves),
            (Evaluation::Incremental, fast_moves),
        ] {
            g.throughput(Throughput::Elements(moves));
            g.bench_function(eval.to_string(), |b| {
                b.iter(|| {
                    let mut ils = Ils::new(IlsConfig {
                        eval,
                        ..IlsConfig::default()
                    });
                    let mut ctx = RunContext::new(1).with_budget(Budget::evaluations(moves));
                    black_box(ils.schedule(&p, &mut ctx).unwrap().makespan())
                })
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
