//! The problems an experiment runs on: [`NamedProblem`] (a [`Problem`] with a unique name,
//! tags and optional own seeds) and [`ProblemSet`].

use crate::error::{ExperimentError, Result};
use std::collections::BTreeMap;
use std::sync::Arc;
use worl_cluster::Problem;

/// The tag naming a problem's block in rank tests ([`NamedProblem::block`]).
pub const BLOCK_TAG: &str = "block";

/// A problem of an experiment: a unique name, free-form tags (e.g. `cell = "10G/ccr0.5/idle"`,
/// `workload = "alibaba"`), and optionally its own run seeds.
///
/// Tags group results ([`GroupBy::Tag`](crate::GroupBy::Tag)) and become
/// `tag:<key>` columns in CSV. A problem with its own seeds runs every stochastic scheduler
/// with those seeds instead of the experiment's (e.g. one scheduler seed per problem instance
/// drawn with that seed).
#[derive(Clone, Debug)]
pub struct NamedProblem {
    /// Unique name within its [`ProblemSet`].
    pub name: String,
    /// Tags, key → value (an empty value reads back from CSV as an absent tag).
    pub tags: BTreeMap<String, String>,
    /// The problem (shared, never copied per run).
    pub problem: Arc<Problem>,
    /// Seeds of this problem's runs; `None` uses the experiment's seeds.
    pub seeds: Option<Vec<u64>>,
}

impl NamedProblem {
    /// `problem` under `name`, without tags and with the experiment's seeds.
    pub fn new(name: impl Into<String>, problem: impl Into<Arc<Problem>>) -> Self {
        Self {
            name: name.into(),
            tags: BTreeMap::new(),
            problem: problem.into(),
            seeds: None,
        }
    }

    /// Adds (or replaces) tag `key = value`.
    pub fn tag(mut self, key: impl Into<String>, value: impl ToString) -> Self {
        self.tags.insert(key.into(), value.to_string());
        self
    }

    /// Puts this problem in rank-test block `name` (tag [`BLOCK_TAG`]): problems sharing a
    /// block name form one block of the Friedman test and Nemenyi critical difference
    /// ([`Results::blocks`](crate::Results::blocks)), the geometric mean of each
    /// scheduler's mean makespans over them. Blocks must be independent problems: give
    /// variants of one workload (the same DAG on an idle and a busy cluster, say) one block
    /// name. A problem without a block name is a block of its own.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use worl_cluster::{presets, Problem};
    /// # use worl_dag::generators::shapes;
    /// use worl_experiment::NamedProblem;
    /// # let c = Arc::new(presets::homogeneous(2, &worl_cluster::GpuModel::v100_16gb())?);
    /// # let p = Problem::new(Arc::new(shapes::chain(3, 1.0, 0.0)?), c)?;
    /// let idle = NamedProblem::new("montage (idle)", p.clone()).block("montage");
    /// let busy = NamedProblem::new("montage (busy)", p).block("montage");
    /// assert_eq!(idle.tags["block"], busy.tags["block"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn block(self, name: impl ToString) -> Self {
        self.tag(BLOCK_TAG, name)
    }

    /// Runs this problem with `seeds` instead of the experiment's.
    pub fn with_seeds(mut self, seeds: impl Into<Vec<u64>>) -> Self {
        self.seeds = Some(seeds.into());
        self
    }

    /// Number of tasks (the "DAG size" of size plots).
    pub fn n_tasks(&self) -> usize {
        self.problem.n_tasks()
    }
}

/// An ordered set of [`NamedProblem`]s with unique names. Results keep this order.
#[derive(Clone, Debug, Default)]
pub struct ProblemSet {
    problems: Vec<NamedProblem>,
}

impl ProblemSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `problem`.
    ///
    /// Errors: [`ExperimentError::Duplicate`] if its name is taken.
    pub fn push(&mut self, problem: NamedProblem) -> Result<()> {
        if self.get(&problem.name).is_some() {
            return Err(ExperimentError::Duplicate {
                what: "problem",
                name: problem.name,
            });
        }
        self.problems.push(problem);
        Ok(())
    }

    /// `self` with `problem` appended (see [`push`](Self::push)).
    ///
    /// Errors: as [`push`](Self::push).
    pub fn with(mut self, problem: NamedProblem) -> Result<Self> {
        self.push(problem)?;
        Ok(self)
    }

    /// The problem named `name`, if any.
    pub fn get(&self, name: &str) -> Option<&NamedProblem> {
        self.problems.iter().find(|p| p.name == name)
    }

    pub(crate) fn at(&self, index: usize) -> &NamedProblem {
        &self.problems[index]
    }

    /// The problems in order.
    pub fn iter(&self) -> std::slice::Iter<'_, NamedProblem> {
        self.problems.iter()
    }

    /// Number of problems.
    pub fn len(&self) -> usize {
        self.problems.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.problems.is_empty()
    }
}

impl<'a> IntoIterator for &'a ProblemSet {
    type Item = &'a NamedProblem;
    type IntoIter = std::slice::Iter<'a, NamedProblem>;
    fn into_iter(self) -> Self::IntoIter {
        self.problems.iter()
    }
}
