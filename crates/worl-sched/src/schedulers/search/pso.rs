//! **PSO** scheduling baseline: particle swarm optimisation (J. Kennedy & R. Eberhart,
//! *Particle swarm optimization*, Proc. IEEE ICNN 1995, pp. 1942–1948) with the inertia
//! weight of Y. Shi & R. Eberhart (*A modified particle swarm optimizer*, Proc. IEEE ICEC
//! 1998, pp. 69–73), over a [`SearchSpace`](super::SearchSpace) shared with WOA and GA: by default random keys
//! in `[0, 1]` decoded by a list scheduler ([`ListDecoder`](super::ListDecoder)), one
//! particle starting at HEFT's position (never worse than HEFT); `decoder=position` keeps the
//! original baseline (one coordinate in `[0, m]` per task floored to a GPU).
//!
//! Per iteration `t = 1..=T` and particle `i`, per coordinate `j` with fresh `r1, r2 ~ U(0,1)`:
//! `v ← w_t·v + c1·r1·(pbest_i − x) + c2·r2·(gbest − x)`, clamped to `[−v_max, v_max]`;
//! `x ← x + v`, clamped to `[0, U]` (`U` = 1 for the list decoder, `m` for the position
//! decoder). The inertia weight falls linearly from `w_start` to `w_end` over the run (Shi &
//! Eberhart's linearly decreasing schedule, 0.9 → 0.4 by default): over the iterations, or
//! under a CPU-time budget over the time, the run then going on until the time is spent
//! ([`RunContext::time_clock`](crate::RunContext::time_clock)). Initial positions are
//! uniform in `[0, U)` (particle 0 at the HEFT position with `heft-seed`), velocities
//! uniform in `[−v_max, v_max]`.
//!
//! **Synchronous update.** The global best used in iteration `t` is the one after iteration
//! `t − 1` (Kennedy & Eberhart update it after each particle): required for parallel,
//! thread-count-independent results. Particle `i` in iteration `t` draws from its own ChaCha8
//! stream [`whale_rng`]`(seed, t, i)`.

use rand::Rng;
use serde::{Deserialize, Serialize};
use worl_cluster::{Problem, Schedule};
use worl_woa::whale_rng;

use super::codec::{SearchDecoderConfig, SearchDecoderKind, sanitize};
use super::list_decoder::ListDecoderConfig;
use super::options::{MAX_ITERATIONS, MAX_POPULATION, take_count, take_in_range};
use crate::error::Result;
use crate::options::{OptionDoc, Options, PARALLEL};
use crate::scheduler::{Progress, RunContext, Scheduler};

/// Configuration of [`Pso`].
///
/// Defaults: 30 particles, 100 iterations, `w` 0.9 → 0.4, `c1 = c2 = 2` (Kennedy & Eberhart
/// 1995), the default [`SearchDecoderConfig`] (list decoder, insertion, HEFT seed), and
/// `v_max = 0.1 · U` with the list decoder (measured: mean makespan / HEFT at 3,000
/// evaluations, the two instance sets of the [`list_decoder`](super::list_decoder) module
/// docs: `v_max` 0.05, 0.1, 0.2, 0.3, 1 → 0.959, 0.961, 0.967, 0.975, 0.974 and 0.797, 0.788,
/// 0.797, 0.799, 0.801; a full-range velocity drives keys to the bounds), `v_max = U` with
/// the position decoder (the whole coordinate range, `v_max = x_max` as in Shi & Eberhart
/// 1998).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PsoConfig {
    /// Swarm size (option `particles`, at least 1).
    pub particles: usize,
    /// Iterations after the initial swarm (option `iterations`, at least 1).
    pub iterations: usize,
    /// Inertia weight of the first iteration (option `w-start`, in `[0, 2]`).
    pub w_start: f64,
    /// Inertia weight of the last iteration (option `w-end`, in `[0, 2]`).
    pub w_end: f64,
    /// Cognitive acceleration `c1` (option `c1`, in `[0, 4]`).
    pub c1: f64,
    /// Social acceleration `c2` (option `c2`, in `[0, 4]`).
    pub c2: f64,
    /// Velocity limit `v_max` as a fraction of the coordinate range `U` (option `vmax`, in
    /// `(0, 1]`); `None` = 0.1 with the list decoder, 1 with the position decoder.
    pub vmax_fraction: Option<f64>,
    /// Decoder, placement policy and HEFT seed (options `decoder`, `policy`, `heft-seed`,
    /// `priority`, `sigma`, `gpu-threshold`, `gpu-choices`).
    pub decoding: SearchDecoderConfig,
    /// Parallel evaluation (option `parallel`).
    pub parallel: bool,
}

impl Default for PsoConfig {
    fn default() -> Self {
        PsoConfig {
            particles: 30,
            iterations: 100,
            w_start: 0.9,
            w_end: 0.4,
            c1: 2.0,
            c2: 2.0,
            vmax_fraction: None,
            decoding: SearchDecoderConfig::default(),
            parallel: false,
        }
    }
}

impl PsoConfig {
    /// PSO's own options.
    pub const PSO_OPTIONS: [OptionDoc; 7] = [
        OptionDoc::new("particles", "1..=10000", "30", "swarm size"),
        OptionDoc::new(
            "iterations",
            "1..=1000000",
            "100",
            "iterations (a time budget overrides them)",
        ),
        OptionDoc::new(
            "w-start",
            "[0, 2]",
            "0.9",
            "inertia weight of the first iteration",
        ),
        OptionDoc::new(
            "w-end",
            "[0, 2]",
            "0.4",
            "inertia weight of the last iteration",
        ),
        OptionDoc::new(
            "c1",
            "[0, 4]",
            "2",
            "cognitive coefficient (pull to the particle's best)",
        ),
        OptionDoc::new(
            "c2",
            "[0, 4]",
            "2",
            "social coefficient (pull to the swarm's best)",
        ),
        OptionDoc::new(
            "vmax",
            "(0, 1]",
            "(no clamp)",
            "velocity clamp, as a share of each coordinate's range",
        ),
    ];

    /// Every option [`from_options`](Self::from_options) reads.
    pub const OPTIONS: &'static [&'static [OptionDoc]] = &[
        &Self::PSO_OPTIONS,
        &SearchDecoderConfig::OPTIONS,
        &ListDecoderConfig::OPTIONS,
        &PARALLEL,
    ];

    /// Reads `particles`, `iterations`, `w-start`, `w-end`, `c1`, `c2`, `vmax`, `parallel`
    /// and the decoding options ([`SearchDecoderConfig`]: `decoder`, `policy`, `heft-seed`,
    /// `priority`, `sigma`, `gpu-threshold`, `gpu-choices`).
    ///
    /// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption),
    /// [`ScheduleError::UnknownOption`](crate::ScheduleError::UnknownOption).
    pub fn from_options(mut opts: Options) -> Result<Self> {
        let d = PsoConfig::default();
        let config = PsoConfig {
            particles: take_count(&mut opts, "particles", d.particles, 1, MAX_POPULATION)?,
            iterations: take_count(&mut opts, "iterations", d.iterations, 1, MAX_ITERATIONS)?,
            w_start: take_in_range(&mut opts, "w-start", d.w_start, 0.0, 2.0)?,
            w_end: take_in_range(&mut opts, "w-end", d.w_end, 0.0, 2.0)?,
            c1: take_in_range(&mut opts, "c1", d.c1, 0.0, 4.0)?,
            c2: take_in_range(&mut opts, "c2", d.c2, 0.0, 4.0)?,
            vmax_fraction: match opts.take::<f64>("vmax")? {
                None => None,
                Some(v) if v.is_finite() && (1e-9..=1.0).contains(&v) => Some(v),
                Some(v) => {
                    return Err(opts.invalid("vmax", v, "must be a finite number in (0, 1]"));
                }
            },
            decoding: SearchDecoderConfig::take(&mut opts)?,
            parallel: opts.take_or("parallel", d.parallel)?,
        };
        opts.finish()?;
        Ok(config)
    }
}

/// The PSO scheduler (registered as `pso`).
#[derive(Clone, Debug, Default)]
pub struct Pso {
    config: PsoConfig,
}

config_scheduler!(
    Pso,
    PsoConfig,
    "pso",
    "PSO",
    Search,
    "particles=4,iterations=3",
    "PSO (Kennedy & Eberhart 1995, inertia weight of Shi & Eberhart 1998) over random keys decoded by a list scheduler, one particle at HEFT's position"
);

/// One particle.
struct Particle {
    x: Vec<f64>,
    v: Vec<f64>,
    best: Vec<f64>,
    best_fit: f64,
}

impl Scheduler for Pso {
    fn name(&self) -> &str {
        "PSO"
    }

    fn supports_gangs(&self) -> bool {
        true
    }

    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule> {
        ctx.check_budget(self.name(), self.config.particles)?;
        let c = &self.config;
        let codec = c.decoding.space(problem);
        let seeds = c.decoding.seeds(&codec)?;
        let (n, m) = (codec.dim(), codec.upper());
        let vmax = c.vmax_fraction.unwrap_or(match c.decoding.decoder {
            SearchDecoderKind::List => 0.1,
            SearchDecoderKind::Position => 1.0,
        }) * m;
        let seed = ctx.seed();
        let budget = ctx.budget().max_evaluations.unwrap_or(u64::MAX);
        let total = c.iterations as u64;
        let mut scratch = codec.scratch();

        // Initial swarm (iteration 0): the whole swarm (the budget covers it, `check_budget`).
        let count = c.particles;
        let mut swarm: Vec<Particle> = (0..count)
            .map(|_| Particle {
                x: Vec::with_capacity(n),
                v: Vec::with_capacity(n),
                best: Vec::new(),
                best_fit: f64::INFINITY,
            })
            .collect();
        codec.for_each(&mut swarm, c.parallel, &mut scratch, |i, p, s| {
            let mut rng = whale_rng(seed, 0, i);
            match seeds.get(i) {
                Some(x) => p.x.extend_from_slice(x),
                None => codec.random_position(&mut rng, &mut p.x),
            }
            p.v.extend((0..n).map(|_| rng.random_range(-vmax..=vmax)));
            p.best.clone_from(&p.x);
            p.best_fit = sanitize(codec.makespan(&p.x, s));
        });
        let mut evaluations = count as u64;
        let first = best_index(&swarm);
        let mut gbest = swarm[first].best.clone();
        let mut gbest_fit = swarm[first].best_fit;
        let mut stop = ctx
            .report(Progress {
                step: 0,
                total_steps: total,
                evaluations,
                best_makespan: gbest_fit,
            })
            .is_break();

        // Under a CPU-time budget the time drives the run (`RunContext::time_clock`).
        let clock = ctx.time_clock();
        let mut t = 0;
        while !stop
            && evaluations < budget
            && clock.map_or(t < c.iterations, |k| k.fraction() < 1.0)
        {
            t += 1;
            // Under an evaluation budget only the first particles may move.
            let movers = usize::try_from(budget - evaluations).map_or(count, |r| r.min(count));
            let progress = match clock {
                Some(k) => k.fraction().min(1.0),
                None if c.iterations > 1 => (t - 1) as f64 / (c.iterations - 1) as f64,
                None => 0.0,
            };
            let w = c.w_start - (c.w_start - c.w_end) * progress;
            let leader = &gbest;
            codec.for_each(&mut swarm, c.parallel, &mut scratch, |i, p, s| {
                if i >= movers {
                    return;
                }
                let mut rng = whale_rng(seed, t as u64, i);
                let coords = p.x.iter_mut().zip(p.v.iter_mut()).zip(&p.best).zip(leader);
                for (((x, v), &own), &global) in coords {
                    let (r1, r2): (f64, f64) = (rng.random(), rng.random());
                    let next = w * *v + c.c1 * r1 * (own - *x) + c.c2 * r2 * (global - *x);
                    *v = next.clamp(-vmax, vmax);
                    *x += *v;
                }
                codec.clamp(&mut p.x);
                let f = sanitize(codec.makespan(&p.x, s));
                if f < p.best_fit {
                    p.best_fit = f;
                    p.best.copy_from_slice(&p.x);
                }
            });
            evaluations += movers as u64;
            let best = best_index(&swarm);
            if swarm[best].best_fit < gbest_fit {
                gbest_fit = swarm[best].best_fit;
                gbest.copy_from_slice(&swarm[best].best);
            }
            stop = ctx
                .report(Progress {
                    step: t as u64,
                    total_steps: total,
                    evaluations,
                    best_makespan: gbest_fit,
                })
                .is_break();
        }
        codec.schedule(&gbest)
    }

    fn is_stochastic(&self) -> bool {
        true
    }
}

/// The particle with the best personal best (the smallest index among ties).
fn best_index(swarm: &[Particle]) -> usize {
    (1..swarm.len()).fold(0, |b, i| {
        if swarm[i].best_fit < swarm[b].best_fit {
            i
        } else {
            b
        }
    })
}
