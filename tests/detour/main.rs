//! Detour: tile data, navmesh files and edits, and every query, against C++'s runs.
//! One test binary of several modules (one per former binary), so the suite links fewer
//! executables; `support` is the helpers every binary shares.

#[path = "../support/mod.rs"]
mod support;

mod detour_builder;
mod detour_file;
mod detour_mutation;
mod detour_query_bad_input;
mod detour_query_props;
mod detour_query_reference;
mod detour_query_threads;
mod detour_query_unit;
mod detour_query_workloads;
mod poly_refs64;
mod prune;
