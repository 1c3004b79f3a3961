//! Hostile input (issue 9): every class of malformed, huge or endless input found by probing
//! `navlab bake` gives the right result or a clear error, never an abort or a silently different
//! navmesh. The inputs are generated here; `files` covers the readers and the command line,
//! `builds` the build pipeline, `commands` the crowd, test and tile-cache commands' limits.
mod support;
use support as common;

#[path = "hostile_input/builds.rs"]
mod builds;
#[path = "hostile_input/commands.rs"]
mod commands;
#[path = "hostile_input/files.rs"]
mod files;
#[path = "hostile_input/navmeshes.rs"]
mod navmeshes;
#[path = "hostile_input/outputs.rs"]
mod outputs;
#[path = "hostile_input/readers.rs"]
mod readers;
