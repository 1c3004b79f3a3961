//! DetourCrowd's building blocks: the pieces `dtCrowd` moves its agents with.
//!
//! - [`proximity_grid`] hashes agent ids into an xz grid to find neighbours
//!   (`dtProximityGrid`).
//!
//! Like [`crate::detour::query`], every piece performs C++'s f32 operations in the same order
//! and keeps its fixed-size buffers, so results equal C++ DetourCrowd's bit for bit. This
//! module sits on [`crate::detour`] only.

pub mod proximity_grid;

pub use proximity_grid::ProximityGrid;
