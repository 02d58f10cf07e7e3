//! Typed dense ids for GPUs, machines and GPU classes.

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! dense_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal, $what:literal) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(u32);

        impl $name {
            #[doc = concat!("The id of the ", $what, " at dense index `index`.")]
            ///
            /// # Panics
            /// If `index` does not fit in `u32`.
            #[inline]
            pub fn new(index: usize) -> Self {
                Self(u32::try_from(index).expect(concat!($what, " index exceeds u32::MAX")))
            }

            #[doc = concat!("The id of the ", $what, " at dense index `index`, or `None` if `index`")]
            /// does not fit in `u32` (ids read from files go through this, so that an index
            /// such as `4294967296` is a typed error naming the file, not a panic).
            #[inline]
            pub fn try_new(index: usize) -> Option<Self> {
                u32::try_from(index).ok().map(Self)
            }

            #[doc = concat!("The dense index of this ", $what, ".")]
            #[inline]
            pub const fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

dense_id!(
    /// Dense id of a GPU in a [`Cluster`](crate::Cluster): `0..n_gpus`. It indexes every
    /// per-GPU array (ready times, plans' assignments, schedule timelines).
    GpuId,
    "g",
    "GPU"
);

dense_id!(
    /// Dense id of a machine (server) in a [`Cluster`](crate::Cluster): `0..n_machines`.
    /// It indexes the rows and columns of the network's bandwidth and latency matrices.
    MachineId,
    "m",
    "machine"
);

dense_id!(
    /// Dense id of a GPU class of a [`Problem`](crate::Problem): `0..n_classes`. A class is a
    /// set of GPUs with the same execution cost for every task and the same memory (for
    /// related machines: the same effective speed and memory).
    ClassId,
    "c",
    "GPU class"
);
