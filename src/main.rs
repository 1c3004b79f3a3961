//! The `navlab` command line.

fn main() {}
