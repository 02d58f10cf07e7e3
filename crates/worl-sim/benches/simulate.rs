//! Criterion benchmark of the simulator (written with the engine).

fn main() {}
