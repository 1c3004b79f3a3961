//! RecastDemo's harness and the C++ reference's schemas: what proves Navlab equals C++, kept out
//! of the library a game depends on.
//!
//! - [`test_file`] reads a RecastDemo test-case file; [`test_case`] runs it as the demo's
//!   `TestCase` does.
//! - [`text`] holds the tester's and test cases' JSON values (floats printed as C's `%.9g`);
//!   [`tester`] runs the eight Test Navmesh tool modes in the reference's schema.
//! - [`workloads`] are the query workloads of `tests/data/reference/PERF_DETOUR.md`.
//! - [`crowd_scenario`] is the Create Crowds tool over a test file; [`crowd_profiling`] times
//!   crowd updates and spreads random agents over crowd sets.
//! - [`dump`] is `--dump-json`, the stage summary in the C++ dumps' schema.
//! - [`tile_cache_run`] is the Temp Obstacles session of `navlab tilecache` and its report.

pub mod crowd_profiling;
pub mod crowd_scenario;
pub mod dump;
pub mod test_case;
pub mod test_file;
pub mod tester;
pub mod text;
pub mod tile_cache_run;
pub mod workloads;
