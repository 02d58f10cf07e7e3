//! Job arrival processes: [`Arrivals`] sets the release times ([`worl_dag::Job::release`])
//! of a workload's jobs before it is simulated.
//!
//! * [`Arrivals::Batch`]: every job released at 0 (the static schedulers' view).
//! * [`Arrivals::Trace`]: the releases the workload carries (read from a trace, e.g. the
//!   Alibaba loader's first task starts, or a native JSON file's `release`).
//! * [`Arrivals::Poisson`]: an open arrival stream as in online cluster schedulers (Decima,
//!   Mao et al., SIGCOMM 2019): jobs arrive in job-id order with independent exponential
//!   inter-arrival gaps of mean `3600 / rate_per_hour` seconds, drawn from a ChaCha8 stream
//!   seeded by the caller. The **first job arrives at 0** and job `i` at the sum of the first
//!   `i` gaps, so a run never starts with an idle gap and the releases of `n` jobs span
//!   `n − 1` gaps.
//!
//! ```
//! use worl_sim::arrivals::Arrivals;
//! use worl_dag::WorkloadBuilder;
//! let mut b = WorkloadBuilder::new("w");
//! for j in 0..3 {
//!     let job = b.add_job(format!("j{j}"))?;
//!     b.add_task(job, "t", 1.0, None)?;
//! }
//! let w = b.build()?;
//! let arrivals: Arrivals = "poisson:60".parse()?; // one job a minute on average
//! let streamed = arrivals.apply(&w, 7)?;
//! let r: Vec<f64> = streamed.jobs().iter().map(|j| j.release).collect();
//! assert_eq!(r[0], 0.0);
//! assert!(r[0] < r[1] && r[1] < r[2]);
//! assert_eq!(arrivals.apply(&w, 7)?, streamed); // a function of the seed
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::{Result, SimError};
use crate::noise::parse_f64;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp};
use std::fmt;
use std::str::FromStr;
use worl_dag::{JobId, Workload};

/// How jobs arrive: the release times [`Arrivals::apply`] gives a workload's jobs.
///
/// Text form (`FromStr`/`Display`): `batch`, `trace`, `poisson:R` (`R` jobs per hour,
/// finite `> 0`; e.g. `poisson:120`).
///
/// ```
/// use worl_sim::arrivals::Arrivals;
/// assert_eq!("poisson:120".parse::<Arrivals>().unwrap(), Arrivals::Poisson { rate_per_hour: 120.0 });
/// assert!("poisson:0".parse::<Arrivals>().is_err());
/// assert_eq!(Arrivals::Poisson { rate_per_hour: 2.5 }.to_string(), "poisson:2.5");
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub enum Arrivals {
    /// Every job released at 0.
    #[default]
    Batch,
    /// The workload's own releases, unchanged.
    Trace,
    /// A Poisson process of `rate_per_hour` jobs per hour in job-id order, the first job at
    /// 0 (see the module docs).
    Poisson {
        /// Mean arrivals per hour, finite `> 0`; the mean gap is `3600 / rate_per_hour` s.
        rate_per_hour: f64,
    },
}

impl Arrivals {
    /// Checks the parameters.
    ///
    /// Errors: [`SimError::InvalidSpec`] (`arrivals`) for a Poisson rate that is not finite
    /// and `> 0`, or whose mean gap `3600 / rate` is not finite.
    pub fn validate(&self) -> Result<()> {
        if let Self::Poisson { rate_per_hour: r } = *self
            && !(r.is_finite() && r > 0.0 && (3600.0 / r).is_finite())
        {
            return Err(SimError::InvalidSpec {
                what: "arrivals",
                spec: self.to_string(),
                reason: "the rate (jobs per hour) must be finite and > 0".to_string(),
            });
        }
        Ok(())
    }

    /// The releases of `n_jobs` jobs in job-id order, s, drawn with `seed` (unused by
    /// `Batch`; `Trace` has no releases of its own and gives 0s, see [`Arrivals::apply`]).
    ///
    /// Errors: those of [`Arrivals::validate`]; [`SimError::InvalidSpec`] naming the job
    /// index if the sum of the gaps overflows (a rate so small that a release is not a
    /// finite number).
    pub fn releases(&self, n_jobs: usize, seed: u64) -> Result<Vec<f64>> {
        self.releases_named(n_jobs, seed, |i| format!("job {i}"))
    }

    /// [`Arrivals::releases`], naming job `i` as `name(i)` in errors.
    fn releases_named(
        &self,
        n_jobs: usize,
        seed: u64,
        name: impl Fn(usize) -> String,
    ) -> Result<Vec<f64>> {
        self.validate()?;
        let Self::Poisson { rate_per_hour } = *self else {
            return Ok(vec![0.0; n_jobs]);
        };
        let exp = Exp::new(rate_per_hour / 3600.0).map_err(|e| SimError::InvalidSpec {
            what: "arrivals",
            spec: self.to_string(),
            reason: e.to_string(),
        })?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut out = Vec::with_capacity(n_jobs);
        let mut t = 0.0f64;
        for i in 0..n_jobs {
            if i > 0 {
                t += exp.sample(&mut rng);
            }
            if !t.is_finite() {
                return Err(SimError::InvalidSpec {
                    what: "arrivals",
                    spec: self.to_string(),
                    reason: format!("the release of {} overflows (rate too small)", name(i)),
                });
            }
            out.push(t);
        }
        Ok(out)
    }

    /// `workload` with its jobs' releases set by this process: all 0 (`Batch`), unchanged
    /// (`Trace`) or a seeded Poisson stream in job-id order (`Poisson`). Tasks, edges and
    /// names are unchanged.
    ///
    /// Errors: those of [`Arrivals::releases`], naming the job (`job `j_7``) whose release
    /// overflows; [`SimError::Dag`] if rebuilding the workload fails (it does not for a
    /// valid one).
    pub fn apply(&self, workload: &Workload, seed: u64) -> Result<Workload> {
        if *self == Self::Trace {
            return Ok(workload.clone());
        }
        let jobs = workload.jobs();
        let releases =
            self.releases_named(jobs.len(), seed, |i| format!("job `{}`", jobs[i].name))?;
        let mut b = workload.to_builder();
        for (i, &r) in releases.iter().enumerate() {
            b.set_release(JobId::new(i), r)?;
        }
        Ok(b.build()?)
    }
}

impl fmt::Display for Arrivals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Batch => write!(f, "batch"),
            Self::Trace => write!(f, "trace"),
            Self::Poisson { rate_per_hour } => write!(f, "poisson:{rate_per_hour}"),
        }
    }
}

impl FromStr for Arrivals {
    type Err = SimError;

    /// Parses `batch`, `trace` or `poisson:R` (case-insensitive kind, spaces trimmed), then
    /// validates.
    ///
    /// Errors: [`SimError::InvalidSpec`] (`arrivals`) naming the string.
    fn from_str(s: &str) -> Result<Self> {
        let (kind, arg) = crate::noise::kind_and_arg(s);
        let arrivals = match (kind.as_str(), arg) {
            ("batch", None) => Self::Batch,
            ("trace", None) => Self::Trace,
            ("poisson", Some(a)) => Self::Poisson {
                rate_per_hour: parse_f64("arrivals", s, "rate (jobs per hour)", a)?,
            },
            _ => {
                return Err(SimError::InvalidSpec {
                    what: "arrivals",
                    spec: s.to_string(),
                    reason: "expected batch, trace or poisson:R (R jobs per hour)".to_string(),
                });
            }
        };
        arrivals
            .validate()
            .map_err(|e| crate::noise::as_given(e, s))?;
        Ok(arrivals)
    }
}
