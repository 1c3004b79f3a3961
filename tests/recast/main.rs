//! Recast's stages, the input readers and the solo and tiled builds, against C++'s dumps.
//! One test binary of several modules (one per former binary), so the suite links fewer
//! executables; `support` is the helpers every binary shares.

#[path = "../support/mod.rs"]
mod support;

mod agent_profiles;
mod contours;
mod detail_mesh;
mod geometry;
mod geometry_reference;
mod geomset;
mod gltf_io;
mod heightfield_layers;
mod incremental_rebuild;
mod overlapping_regions;
mod parallel_solo;
mod partitioned_mesh;
mod poly_mesh;
mod rasterize_filter_compact;
mod recast_unit;
mod reference_loaders;
mod regions;
mod solo_reference;
mod tiled_reference;
