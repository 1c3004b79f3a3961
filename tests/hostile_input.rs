//! Hostile input (issue 9): every class of malformed, huge or endless input found by probing
//! `navlab bake` gives the right result or a clear error, never an abort or a silently different
//! navmesh. The inputs are generated here; `files` covers the readers and the command line,
//! `builds` the build pipeline.
mod common;

#[path = "hostile_input/builds.rs"]
mod builds;
#[path = "hostile_input/files.rs"]
mod files;
