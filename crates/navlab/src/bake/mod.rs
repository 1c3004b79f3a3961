//! RecastDemo's samples as pipelines: the settings a user tunes ([`settings`]), the solo build
//! that keeps every stage for drawing and re-runs only what a change affects ([`solo`]), the
//! tiled build ([`tiled`]), RecastDemo's area and flag conventions ([`sample_areas`]), the rules
//! of its authoring tools ([`authoring`]), the detail mesh written as OBJ or glTF
//! ([`export`]), RecastDemo's Temp Obstacles sample ([`temp_obstacles`]), two builds compared
//! ([`compare`]), and why a spot of a build is not walkable ([`explain`]). This is where
//! Recast's output becomes Detour's input.

pub mod authoring;
pub mod compare;
pub mod detour_input;
pub mod explain;
pub mod export;
pub mod jump_links;
pub mod merge;
pub mod nothing_walkable;
pub mod profiles;
pub mod progress;
pub mod prune;
pub mod sample_areas;
pub mod settings;
pub mod solo;
pub mod temp_obstacles;
pub mod tiled;
pub mod validate;

pub use settings::BuildSettings;
pub use solo::Build;
pub use tiled::TiledBuild;
