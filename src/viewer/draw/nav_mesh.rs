//! Draw plugin for the Detour navmesh: "Navmesh" (polygons by area, edges, off-mesh links),
//! "Navmesh Trans" (the same without the input mesh under it), "Navmesh Invis" (only the
//! disabled polygons' veil), "Navmesh BVTree", "Navmesh Nodes" (the last Test Navmesh query's
//! search nodes) and "Navmesh Portals" (tile portals), as RecastDemo draws them, with the
//! query's closed list tinted. Shows a loaded navmesh file when there is one.

use std::hash::{Hash, Hasher};

use bevy::prelude::*;

use super::{DrawMode, DrawSystems, LayerParams, sync_layer};
use crate::viewer::build::BuildState;
use crate::viewer::navmesh::ShownNavMesh;
use crate::viewer::tools::QueryNodes;
use navlab::bake::sample_areas::flags;
use navlab::debug_draw::detour::{self as detour_draw, NavMeshDrawFlags};
use navlab::debug_draw::rgba;

pub struct NavMeshDrawPlugin;

impl Plugin for NavMeshDrawPlugin {
    fn build(&self, app: &mut App) {
        // The Test Navmesh tool fills the search nodes; without tools they stay empty.
        app.init_resource::<QueryNodes>()
            .add_systems(Update, sync_nav_mesh.in_set(DrawSystems));
    }
}

fn sync_nav_mesh(
    mode: Res<DrawMode>,
    state: Res<BuildState>,
    shown: Res<ShownNavMesh>,
    nodes: Res<QueryNodes>,
    mut params: LayerParams,
) {
    let mode = *mode;
    let mesh = shown.get(&state);
    // A world's navmesh is drawn in blocks around the camera instead (`world`).
    let whole = mesh.is_some_and(|m| !super::world::shows_world(&shown, m));
    let version = (mode.shows_nav_mesh() && whole).then(|| {
        let mut key = std::collections::hash_map::DefaultHasher::new();
        (shown.version(&state), mode, nodes.version).hash(&mut key);
        key.finish()
    });
    let closed = nodes.pool.as_ref();
    sync_layer(&mut params, "Navmesh", version, || {
        let Some(mesh) = mesh else {
            return Default::default();
        };
        let mut drawing = if mode == DrawMode::NavmeshInvis {
            Default::default()
        } else {
            detour_draw::nav_mesh_with_closed_list(mesh, NavMeshDrawFlags::default(), closed)
        };
        match mode {
            DrawMode::NavmeshBVTree => drawing.append(detour_draw::nav_mesh_bv_tree(mesh)),
            DrawMode::NavmeshNodes => {
                if let Some(pool) = closed {
                    drawing.append(detour_draw::nav_mesh_nodes(pool));
                }
            }
            DrawMode::NavmeshPortals => drawing.append(detour_draw::nav_mesh_portals(mesh)),
            _ => {}
        }
        drawing.append(detour_draw::nav_mesh_polys_with_flags(
            mesh,
            flags::DISABLED,
            rgba(0, 0, 0, 128),
        ));
        drawing
    });
}
