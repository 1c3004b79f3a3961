//! Navlab in Bevy: add [`NavlabPlugin`], mark the level's meshes [`NavMeshSource`], give
//! characters a [`NavAgent`] and a [`NavTarget`], and they walk.
//!
//! - The navmesh is baked from every [`NavMeshSource`] (its `Mesh3d` placed by its
//!   `GlobalTransform`) on Bevy's `AsyncComputeTaskPool`, as a tiled tile cache with the
//!   [`NavMeshSettings`]. When a source appears, moves or goes, only the tiles it touches are
//!   baked again, in the background, and swapped in whole: no frame waits for a bake.
//! - Agents are a `navlab` crowd stepped in `FixedUpdate`, which writes their `Transform` and
//!   sends [`TargetReached`] or [`TargetUnreachable`].
//! - [`NavObstacle`]s (cylinders and boxes) are carved into the navmesh through the tile cache
//!   when they are added, moved or removed.
//! - [`NavlabDebugPlugin`] draws the navmesh, the agents' paths and the obstacles with gizmos.
//! - [`NavMeshAsset`] loads a baked navmesh file (MSET or NLMZ, as `navlab bake` and the viewer
//!   write them); put it in the [`Navigation`] resource with [`Navigation::use_baked`].
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_navlab::prelude::*;
//!
//! App::new()
//!     .add_plugins((MinimalPlugins, bevy::asset::AssetPlugin::default(), NavlabPlugin))
//!     .run();
//! ```

mod agents;
mod asset;
mod bake;
pub mod debug_draw;
mod obstacles;
#[cfg(feature = "remote")]
pub mod remote;

use bevy::prelude::*;
use navlab::bake::BuildSettings;
use navlab::detour::NavMesh;
use navlab::game::{Crowd, TileCache};

pub use agents::{AgentSet, NavAgent, NavTarget, TargetReached, TargetUnreachable};
pub use asset::{NavMeshAsset, NavMeshAssetLoader, NavMeshLoadError};
pub use bake::{NavMeshSource, NavMeshUpdated};
pub use debug_draw::NavlabDebugPlugin;
pub use obstacles::NavObstacle;

/// What most games import: the plugin, its components, resource and messages.
pub mod prelude {
    pub use crate::{
        NavAgent, NavMeshAsset, NavMeshSettings, NavMeshSource, NavMeshUpdated, NavObstacle,
        NavTarget, Navigation, NavlabDebugPlugin, NavlabPlugin, TargetReached, TargetUnreachable,
    };
    pub use navlab::prelude::{BuildSettings, QueryFilter};
}

/// How the navmesh is baked and how many agents it carries.
#[derive(Resource, Clone, Debug)]
pub struct NavMeshSettings {
    /// The agent profile and voxel sizes (RecastDemo's settings, in metres by default).
    pub build: BuildSettings,
    /// Tile edge, in cells: a moved source re-bakes the tiles it touches.
    pub tile_size: i32,
    /// The most agents the crowd carries at once.
    pub max_agents: usize,
    /// The largest agent radius the crowd plans for, world units.
    pub max_agent_radius: f32,
}

impl Default for NavMeshSettings {
    fn default() -> Self {
        NavMeshSettings {
            build: BuildSettings::default(),
            tile_size: 32,
            max_agents: 256,
            max_agent_radius: 0.6,
        }
    }
}

/// The navmesh and what runs on it: the tile cache that carves obstacles, and the crowd.
#[derive(Resource, Default)]
pub struct Navigation {
    nav_mesh: Option<NavMesh>,
    tile_cache: Option<TileCache>,
    crowd: Option<Crowd>,
    /// The obstacles carved into `tile_cache`, by entity.
    obstacles: obstacles::AppliedObstacles,
    /// Counts navmesh swaps, so that systems see a new one.
    generation: u64,
    /// Counts every change of the navmesh (swaps and carved obstacles), for redrawing it.
    revision: u64,
    /// Whether a navmesh put in by hand ([`Navigation::use_baked`]) holds until
    /// [`Navigation::resume_baking`]: the sources are not baked meanwhile.
    pinned: bool,
    /// Set by [`Navigation::resume_baking`] until the next bake starts.
    resume_requested: bool,
}

impl Navigation {
    /// The navmesh, once one is baked or loaded; query it from any system
    /// (`nav.find_path(start, end, &QueryFilter::default())`).
    pub fn nav_mesh(&self) -> Option<&NavMesh> {
        self.nav_mesh.as_ref()
    }

    /// The crowd that moves the agents.
    pub fn crowd(&self) -> Option<&Crowd> {
        self.crowd.as_ref()
    }

    /// How many times a navmesh was swapped in.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Changes whenever the navmesh does (a swap, or tiles carved around obstacles).
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Uses a baked navmesh (from a [`NavMeshAsset`], or pushed by a tool) instead of baking
    /// the sources, until [`Navigation::resume_baking`]: agents move over it, and obstacles
    /// wait for a bake (a loaded file has no tile cache).
    pub fn use_baked(&mut self, nav_mesh: NavMesh) {
        self.swap(nav_mesh, None);
        self.pinned = true;
    }

    /// Bakes the sources again, after [`Navigation::use_baked`].
    pub fn resume_baking(&mut self) {
        if self.pinned {
            self.pinned = false;
            self.resume_requested = true;
        }
    }

    /// Whether a navmesh put in by hand holds and the sources are not baked.
    pub fn is_pinned(&self) -> bool {
        self.pinned
    }

    /// Puts in a new navmesh; the agents are placed on it again by the next fixed update.
    fn swap(&mut self, nav_mesh: NavMesh, tile_cache: Option<TileCache>) {
        self.nav_mesh = Some(nav_mesh);
        self.tile_cache = tile_cache;
        self.obstacles.clear();
        self.crowd = None;
        self.generation += 1;
        self.revision += 1;
    }
}

/// Bakes the navmesh from the sources, runs the crowd and the obstacles, and loads navmesh
/// assets. Needs `AssetPlugin` (Bevy's `DefaultPlugins`, or `MinimalPlugins` plus it). An app
/// driven by hand (`app.update()` in a test) calls `app.finish()` and `app.cleanup()` first,
/// as `app.run()` does.
pub struct NavlabPlugin;

impl Plugin for NavlabPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<NavMeshSettings>()
            .init_resource::<Navigation>();
        bake::build(app);
        agents::build(app);
        obstacles::build(app);
        asset::build(app);
    }

    /// Once every plugin is built: mesh assets for an app without Bevy's mesh plugin (the
    /// sources' meshes live there), and with the `remote` feature the game's remote protocol
    /// methods (Bevy's `RemotePlugin`, added before or after this plugin).
    fn finish(&self, app: &mut App) {
        if !app.world().contains_resource::<Assets<Mesh>>() {
            app.init_asset::<Mesh>();
        }
        #[cfg(feature = "remote")]
        remote::register(app);
    }
}
