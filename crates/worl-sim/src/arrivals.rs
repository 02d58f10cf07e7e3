//! Job arrival processes (written separately).
