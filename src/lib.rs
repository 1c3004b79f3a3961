//! The Navlab application: the `navlab` command line's shared parts, RecastDemo's test harness
//! ([`demo`]) and the Bevy viewer (feature `viewer`), on the [`navlab`] library.
//!
//! | module | what lives there | C++ counterpart |
//! |---|---|---|
//! | [`demo`] | RecastDemo's and the C++ reference's harness: the test-case runner, the tester modes in the reference's JSON, the query, crowd and tile-cache workloads, the stage dumps, the crowd tool's scenario and the profiling crowd sets | RecastDemo's `TestCase`, `NavMeshTesterTool`, `CrowdTool` |
//! | [`remote`] | a running Bevy game over the Bevy Remote Protocol: its level pulled, a navmesh pushed (`bevy_navlab`'s `remote` methods) | — |
//! | [`session_script`] | the viewer's scripted sessions (one JSON action per line), read without Bevy so they are fuzzed | — |
//! | `viewer` (feature `viewer`) | the Bevy desktop viewer, one plugin per concern, one file per tool | RecastDemo |
//!
//! The `navlab` binary (`src/main.rs`, `src/cli/`) sits on top of both.

pub mod demo;
pub mod remote;
pub mod session_script;
#[cfg(feature = "viewer")]
pub mod viewer;
