//! Placeholder main job; filled by the worl-dag issue.
fn main() {}
