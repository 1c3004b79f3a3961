//! Recast's output as Detour's input: the poly mesh and detail mesh handed to the tile builder
//! as the plain arrays `dtNavMeshCreateParams` takes, the way RecastDemo's samples fill them.

use crate::detour::nav_mesh_builder::DetailMeshParams;
use crate::detour::{DetourError, NavMeshCreateParams, OffMeshConnectionParams};
use crate::input::GeomSet;
use crate::recast::detail_mesh::PolyMeshDetail;
use crate::recast::poly_mesh::PolyMesh;

/// The parameters RecastDemo's samples pass: the poly mesh's arrays, areas, flags, bounds and
/// cell sizes, the detail mesh, agent dimensions in world units, a BV tree, and tile (0, 0, 0).
/// Set `tile_x`/`tile_y` for tiled builds.
pub fn nav_mesh_create_params<'a>(
    pmesh: &'a PolyMesh,
    dmesh: &'a PolyMeshDetail,
    off_mesh_connections: &'a [OffMeshConnectionParams],
    walkable_height: f32,
    walkable_radius: f32,
    walkable_climb: f32,
) -> Result<NavMeshCreateParams<'a>, DetourError> {
    let short = |what: &str| {
        DetourError::InvalidCreateParams(format!("the poly mesh {what} array is too short"))
    };
    let npolys = pmesh.npolys;
    let poly_len = npolys
        .checked_mul(2 * pmesh.nvp)
        .ok_or_else(|| short("polys"))?;
    let vert_len = pmesh.nverts.checked_mul(3).ok_or_else(|| short("verts"))?;
    Ok(NavMeshCreateParams {
        verts: pmesh.verts.get(..vert_len).ok_or_else(|| short("verts"))?,
        polys: pmesh.polys.get(..poly_len).ok_or_else(|| short("polys"))?,
        poly_flags: pmesh.flags.get(..npolys).ok_or_else(|| short("flags"))?,
        poly_areas: pmesh.areas.get(..npolys).ok_or_else(|| short("areas"))?,
        nvp: pmesh.nvp,
        detail: Some(DetailMeshParams {
            meshes: &dmesh.meshes,
            verts: &dmesh.verts,
            tris: &dmesh.tris,
        }),
        off_mesh_connections,
        user_id: 0,
        tile_x: 0,
        tile_y: 0,
        tile_layer: 0,
        bmin: pmesh.bmin,
        bmax: pmesh.bmax,
        walkable_height,
        walkable_radius,
        walkable_climb,
        cs: pmesh.cs,
        ch: pmesh.ch,
        build_bv_tree: true,
    })
}

/// A geometry set's off-mesh connections as Detour takes them, with RecastDemo's user ids.
pub fn off_mesh_connections(geom_set: &GeomSet) -> Vec<OffMeshConnectionParams> {
    geom_set
        .off_mesh_connections
        .iter()
        .enumerate()
        .map(|(i, c)| OffMeshConnectionParams {
            start: c.start,
            end: c.end,
            radius: c.radius,
            bidirectional: c.bidirectional,
            area: c.area,
            flags: c.flags,
            user_id: GeomSet::off_mesh_user_id(i),
        })
        .collect()
}
