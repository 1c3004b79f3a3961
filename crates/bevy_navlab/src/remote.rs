//! The Bevy Remote Protocol methods that let a tool (the Navlab viewer, `navlab remote`) work
//! on a running game: pull the level's sources, push a baked navmesh back, and read the
//! plugin's state. They join the game's `RemotePlugin` (feature `remote`):
//!
//! | method | params | result |
//! |---|---|---|
//! | `navlab.sources` | none | `{"sources": [{"entity", "name", "vertices": [x, y, z, ...], "indices": [...]}]}`, world space |
//! | `navlab.use_navmesh` | `{"navmesh": BASE64}` (an MSET or NLMZ file) | `{"generation", "tiles"}` |
//! | `navlab.status` | none | `{"has_navmesh", "generation", "revision", "agents", "pinned"}` |

use base64::Engine;
use bevy::mesh::Mesh3d;
use bevy::prelude::*;
use bevy::remote::{BrpError, BrpResult, RemoteMethodSystemId, RemoteMethods, error_codes};
use serde_json::{Value, json};

use crate::bake::world_geometry;
use crate::{NavMeshSource, Navigation};

/// Method names, as a tool calls them.
pub const SOURCES_METHOD: &str = "navlab.sources";
/// See [`SOURCES_METHOD`].
pub const USE_NAVMESH_METHOD: &str = "navlab.use_navmesh";
/// See [`SOURCES_METHOD`].
pub const STATUS_METHOD: &str = "navlab.status";

/// Adds the methods to the game's `RemoteMethods`, if it has Bevy's `RemotePlugin`.
pub(crate) fn register(app: &mut App) {
    let world = app.world_mut();
    if !world.contains_resource::<RemoteMethods>() {
        return;
    }
    let sources = world.register_system(sources);
    let use_navmesh = world.register_system(use_navmesh);
    let status = world.register_system(status);
    let mut methods = world.resource_mut::<RemoteMethods>();
    methods.insert(SOURCES_METHOD, RemoteMethodSystemId::Instant(sources));
    methods.insert(
        USE_NAVMESH_METHOD,
        RemoteMethodSystemId::Instant(use_navmesh),
    );
    methods.insert(STATUS_METHOD, RemoteMethodSystemId::Instant(status));
}

fn invalid_params(message: impl Into<String>) -> BrpError {
    BrpError {
        code: error_codes::INVALID_PARAMS,
        message: message.into(),
        data: None,
    }
}

/// Every source's world-space triangles.
fn sources(
    In(_): In<Option<Value>>,
    sources: Query<(Entity, &Mesh3d, &GlobalTransform, Option<&Name>), With<NavMeshSource>>,
    meshes: Res<Assets<Mesh>>,
) -> BrpResult {
    let list: Vec<Value> = sources
        .iter()
        .filter_map(|(entity, mesh, transform, name)| {
            let geometry = world_geometry(meshes.get(&mesh.0)?, transform)?;
            let vertices: Vec<f32> = geometry.vertices.iter().flatten().copied().collect();
            Some(json!({
                "entity": entity.to_bits(),
                "name": name.map(|n| n.as_str().to_owned()),
                "vertices": vertices,
                "indices": geometry.indices,
            }))
        })
        .collect();
    Ok(json!({ "sources": list }))
}

/// Puts a pushed navmesh to use, until the level changes.
fn use_navmesh(In(params): In<Option<Value>>, mut navigation: ResMut<Navigation>) -> BrpResult {
    let text = params
        .as_ref()
        .and_then(|p| p.get("navmesh"))
        .and_then(Value::as_str)
        .ok_or_else(|| invalid_params("navlab.use_navmesh wants {\"navmesh\": BASE64}"))?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| invalid_params(format!("navlab: the navmesh is not base64: {e}")))?;
    let nav = navlab::detour::nav_mesh_from_bytes(&bytes)
        .map_err(|e| invalid_params(format!("navlab: {e}")))?;
    let tiles = nav.tiles().count();
    navigation.use_baked(nav);
    Ok(json!({ "generation": navigation.generation(), "tiles": tiles }))
}

fn status(In(_): In<Option<Value>>, navigation: Res<Navigation>) -> BrpResult {
    Ok(json!({
        "has_navmesh": navigation.nav_mesh().is_some(),
        "generation": navigation.generation(),
        "revision": navigation.revision(),
        "agents": navigation.crowd().map_or(0, |c| c.len()),
        "pinned": navigation.is_pinned(),
    }))
}
