//! The `navlab` command line (bake, merge, test, crowd, tilecache, explain, gen and store, run
//! as a user runs them) and the repository as a reader meets it (every cited file exists).
//! One test binary of several modules (one per former binary), so the suite links fewer
//! executables; `support` is the helpers every binary shares.

#[path = "../support/mod.rs"]
mod support;

mod bake_profiles;
mod bake_split;
mod cited_files;
mod cli;
mod cli_test;
mod diff;
mod explain_cli;
mod gen_world;
mod jump_links_cli;
mod long_links_cli;
mod remote;
mod store_cli;
mod tilecache_cli;
