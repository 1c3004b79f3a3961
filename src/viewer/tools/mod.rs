//! Tools: each is a plugin registering one [`Tool`], which gets a panel in the Tools window, the
//! clicks on the mesh and a call every frame while active, and a chance to draw: gizmos each frame,
//! and a retained overlay ([`ToolOutput::overlay`]) for what RecastDemo fills in (polygons,
//! paths). The framework is [`framework`]; each tool has a file of its own ([`test_nav_mesh`],
//! [`prune`], [`off_mesh_links`], [`convex_volumes`], [`create_tiles`], [`crowds`], [`temp_obstacles`],
//! [`highlight_tile_cache`], [`pick`], [`explain`], [`jump_links`]). Test Navmesh comes first, RecastDemo's
//! tool after a build. As in RecastDemo, each sample lists only its own tools ([`Tools::listed`]),
//! Navlab's own (Pick, Explain, Jump Links) after them.

pub mod convex_volumes;
pub mod create_tiles;
pub mod crowds;
pub mod explain;
mod framework;
pub mod highlight_tile_cache;
pub mod jump_links;
pub mod off_mesh_links;
pub mod pick;
pub mod prune;
pub mod temp_obstacles;
pub mod test_nav_mesh;

use bevy::prelude::*;

use convex_volumes::ConvexVolumeToolPlugin;
use create_tiles::CreateTilesToolPlugin;
use crowds::CrowdToolPlugin;
use explain::ExplainToolPlugin;
use highlight_tile_cache::HighlightTileCacheToolPlugin;
use jump_links::JumpLinkToolPlugin;
use off_mesh_links::OffMeshLinkToolPlugin;
use pick::PickToolPlugin;
use prune::PruneToolPlugin;
use temp_obstacles::TempObstacleToolPlugin;
use test_nav_mesh::TestNavMeshToolPlugin;

use framework::ToolFrameworkPlugin;
pub use framework::{
    EditHistory, QueryNodes, Tool, ToolAppExt, ToolContext, ToolOutput, Tools, tool_context,
};

/// The tools' framework and every tool, Test Navmesh first.
pub struct ToolsPlugin;

impl Plugin for ToolsPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(ToolFrameworkPlugin).add_plugins((
            TestNavMeshToolPlugin,
            PruneToolPlugin,
            OffMeshLinkToolPlugin,
            ConvexVolumeToolPlugin,
            CreateTilesToolPlugin,
            CrowdToolPlugin,
            TempObstacleToolPlugin,
            HighlightTileCacheToolPlugin,
            PickToolPlugin,
            ExplainToolPlugin,
            JumpLinkToolPlugin,
        ));
    }
}
