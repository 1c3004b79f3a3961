//! Tile creation from a polygon mesh given as plain arrays (`dtCreateNavMeshData`).

use super::common::{self, Vec3};
use super::tile::{
    BvNode, Link, MeshHeader, MeshTile, OffMeshConnection, Poly, PolyDetail, PolyType,
};
use super::{DetourError, EXT_LINK, NULL_LINK, OFFMESH_CON_BIDIR, RefWidth, VERTS_PER_POLYGON};

/// An unused vertex or neighbour slot in the polygon arrays (Detour's builder calls it
/// `MESH_NULL_IDX`, like Recast).
const MESH_NULL_IDX: u16 = 0xffff;

/// An off-mesh connection to store in a tile (one entry of `dtNavMeshCreateParams`' off-mesh
/// arrays).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OffMeshConnectionParams {
    /// Start point, world units.
    pub start: Vec3,
    /// End point, world units.
    pub end: Vec3,
    /// How far from each end it can be entered, world units.
    pub radius: f32,
    /// Whether it can be taken from end to start too.
    pub bidirectional: bool,
    /// Area id of its polygon.
    pub area: u8,
    /// Ability flags of its polygon.
    pub flags: u16,
    /// A value passed through to `dtOffMeshConnection::userId`.
    pub user_id: u32,
}

/// The input of [`create_nav_mesh_data`] (`dtNavMeshCreateParams`). Array lengths give the
/// counts.
#[derive(Clone, Copy, Debug)]
pub struct NavMeshCreateParams<'a> {
    /// Poly mesh vertices in voxel units, 3 per vertex.
    pub verts: &'a [u16],
    /// Polygons, `2 * nvp` entries each: vertex indices, then neighbour polygons, unused slots
    /// 0xffff (Recast's poly mesh layout).
    pub polys: &'a [u16],
    /// Per polygon: its ability flags.
    pub poly_flags: &'a [u16],
    /// Per polygon: its area id.
    pub poly_areas: &'a [u8],
    /// Maximum vertices per polygon (3..=6).
    pub nvp: usize,
    /// The height detail; without it each polygon is fanned into triangles.
    pub detail: Option<DetailMeshParams<'a>>,
    /// Off-mesh connections to store where their start lies in the tile.
    pub off_mesh_connections: &'a [OffMeshConnectionParams],
    /// Passed through to the tile header's `userId`.
    pub user_id: u32,
    /// Tile grid x.
    pub tile_x: i32,
    /// Tile grid y.
    pub tile_y: i32,
    /// Tile layer.
    pub tile_layer: i32,
    /// Tile bounds in world units.
    pub bmin: Vec3,
    /// Maximum corner of the tile bounds.
    pub bmax: Vec3,
    /// Agent height, radius and climb in world units.
    pub walkable_height: f32,
    /// Agent radius, world units.
    pub walkable_radius: f32,
    /// Agent climb, world units.
    pub walkable_climb: f32,
    /// Cell size and height.
    pub cs: f32,
    /// Cell height, world units.
    pub ch: f32,
    /// Whether to build the tile's bounding-volume tree.
    pub build_bv_tree: bool,
}

/// The height detail of every polygon (the detail arrays of `dtNavMeshCreateParams`, laid out
/// as Recast's detail mesh).
#[derive(Clone, Copy, Debug)]
pub struct DetailMeshParams<'a> {
    /// Per polygon: first vertex, vertex count, first triangle, triangle count.
    pub meshes: &'a [u32],
    /// Vertices in world units, 3 floats each.
    pub verts: &'a [f32],
    /// Triangles, 4 bytes each: three vertex indices local to the sub-mesh, then edge flags.
    pub tris: &'a [u8],
}

/// Where an off-mesh end point lies relative to the tile: 0..8 for the side it lies beyond
/// (as `dtOppositeTile` counts them), or [`INSIDE`].
const INSIDE: u8 = 0xff;

/// `classifyOffMeshPoint`: which side of the tile's xz bounds `pt` lies beyond.
fn classify_off_mesh_point(pt: &Vec3, bmin: &Vec3, bmax: &Vec3) -> u8 {
    let beyond = (
        pt[0] >= bmax[0],
        pt[2] >= bmax[2],
        pt[0] < bmin[0],
        pt[2] < bmin[2],
    );
    // (x+, z+, x-, z-)
    match beyond {
        (true, false, false, false) => 0,
        (true, true, false, false) => 1,
        (false, true, false, false) => 2,
        (false, true, true, false) => 3,
        (false, false, true, false) => 4,
        (false, false, true, true) => 5,
        (false, false, false, true) => 6,
        (true, false, false, true) => 7,
        _ => INSIDE,
    }
}

/// The (start, end) classes of an off-mesh connection against the tile's box: its xz bounds
/// and, up, the mesh's height range widened by the climb (a start point beyond that range
/// cannot touch the mesh and is not stored).
fn off_mesh_classifier(
    params: &NavMeshCreateParams,
) -> impl Fn(&OffMeshConnectionParams) -> (u8, u8) + use<> {
    let mut hmin = f32::MAX;
    let mut hmax = -f32::MAX;
    if !params.off_mesh_connections.is_empty() {
        match params.detail.filter(|d| !d.verts.is_empty()) {
            Some(detail) => {
                for v in detail.verts.chunks_exact(3) {
                    hmin = common::min(hmin, v[1]);
                    hmax = common::max(hmax, v[1]);
                }
            }
            None => {
                for v in params.verts.chunks_exact(3) {
                    let h = params.bmin[1] + f32::from(v[1]) * params.ch;
                    hmin = common::min(hmin, h);
                    hmax = common::max(hmax, h);
                }
            }
        }
    }
    hmin -= params.walkable_climb;
    hmax += params.walkable_climb;
    let bmin = [params.bmin[0], hmin, params.bmin[2]];
    let bmax = [params.bmax[0], hmax, params.bmax[2]];
    move |con| {
        let mut start = classify_off_mesh_point(&con.start, &bmin, &bmax);
        let end = classify_off_mesh_point(&con.end, &bmin, &bmax);
        if start == INSIDE && (con.start[1] < bmin[1] || con.start[1] > bmax[1]) {
            start = 0;
        }
        (start, end)
    }
}

fn invalid(message: String) -> DetourError {
    DetourError::InvalidCreateParams(message)
}

/// Number of used vertices of a poly mesh polygon (up to the first null index).
fn poly_vertex_count(p: &[u16], nvp: usize) -> usize {
    p[..nvp].iter().take_while(|&&v| v != MESH_NULL_IDX).count()
}

/// Builds one tile's data from a poly mesh, its detail mesh and off-mesh connections, exactly
/// as `dtCreateNavMeshData` does (same arrays, same BV tree, same link space), so that
/// [`MeshTile::to_bytes`] equals C++'s buffer.
///
/// Fails with [`DetourError::InvalidCreateParams`] where C++ returns false, and also where C++
/// would silently write corrupt data: indices out of range, polygons with fewer than 3
/// vertices, detail sub-meshes larger than their u8 counts or more than 65535 detail vertices.
pub fn create_nav_mesh_data(params: &NavMeshCreateParams) -> Result<MeshTile, DetourError> {
    let mut tile = MeshTile::default();
    create_nav_mesh_data_into(params, &mut tile)?;
    Ok(tile)
}

/// [`create_nav_mesh_data`] into `tile`, reusing its arrays' memory (a tile cache rebuilding
/// tiles hands back the tiles it replaced). On error `tile` holds no meaningful data.
pub fn create_nav_mesh_data_into(
    params: &NavMeshCreateParams,
    tile: &mut MeshTile,
) -> Result<(), DetourError> {
    let nvp = params.nvp;
    if !(3..=VERTS_PER_POLYGON).contains(&nvp) {
        return Err(invalid(format!(
            "{nvp} verts per poly, Detour supports 3 to 6"
        )));
    }
    if !params.verts.len().is_multiple_of(3) {
        return Err(invalid("vertex array length is not a multiple of 3".into()));
    }
    let vert_count = params.verts.len() / 3;
    if vert_count == 0 || vert_count >= 0xffff {
        return Err(invalid(format!(
            "{vert_count} vertices, must be 1 to 65534"
        )));
    }
    if !params.polys.len().is_multiple_of(2 * nvp) {
        return Err(invalid(
            "poly array length is not a multiple of 2 * nvp".into(),
        ));
    }
    let poly_count = params.polys.len() / (2 * nvp);
    if poly_count == 0 {
        return Err(invalid("no polygons".into()));
    }
    if params.poly_areas.len() != poly_count || params.poly_flags.len() != poly_count {
        return Err(invalid(format!(
            "{poly_count} polygons but {} areas and {} flags",
            params.poly_areas.len(),
            params.poly_flags.len()
        )));
    }
    let src_polys = || params.polys.chunks_exact(2 * nvp);
    for (i, p) in src_polys().enumerate() {
        let nv = poly_vertex_count(p, nvp);
        if nv < 3 {
            return Err(invalid(format!("poly {i} has {nv} vertices")));
        }
        if let Some(v) = p[..nv].iter().find(|&&v| usize::from(v) >= vert_count) {
            return Err(invalid(format!("poly {i} uses vertex {v} of {vert_count}")));
        }
        if let Some(n) = p[nvp..nvp + nv]
            .iter()
            .find(|&&n| n & 0x8000 == 0 && usize::from(n) >= poly_count)
        {
            return Err(invalid(format!(
                "poly {i} has neighbour {n} of {poly_count}"
            )));
        }
    }
    if let Some(detail) = params.detail {
        check_detail(&detail, params.polys, nvp)?;
    }

    // Off-mesh connections whose start lies in this tile are stored; the others only reserve
    // links for their end points landing here.
    let classify = off_mesh_classifier(params);
    let mut stored_off_mesh = 0usize;
    let mut off_mesh_link_count = 0usize;
    for con in params.off_mesh_connections {
        let (start, end) = classify(con);
        off_mesh_link_count += usize::from(start == INSIDE) + usize::from(end == INSIDE);
        stored_off_mesh += usize::from(start == INSIDE);
    }

    let total_poly_count = poly_count + stored_off_mesh;
    let total_vert_count = vert_count + stored_off_mesh * 2;
    if total_poly_count > 0xffff || total_vert_count > 0x1_0000 {
        return Err(invalid(format!(
            "{total_poly_count} polygons and {total_vert_count} vertices with off-mesh \
             connections, over Detour's 16-bit indices"
        )));
    }

    // Portal edges at tile borders need room for links from both sides.
    let mut edge_count = 0;
    let mut portal_count = 0;
    for p in src_polys() {
        let nv = poly_vertex_count(p, nvp);
        edge_count += nv;
        portal_count += p[nvp..nvp + nv]
            .iter()
            .filter(|&&n| n & 0x8000 != 0 && n & 0xf != 0xf)
            .count();
    }
    let max_link_count = edge_count + portal_count * 2 + off_mesh_link_count * 2;

    tile.header = MeshHeader {
        x: params.tile_x,
        y: params.tile_y,
        layer: params.tile_layer,
        user_id: params.user_id,
        walkable_height: params.walkable_height,
        walkable_radius: params.walkable_radius,
        walkable_climb: params.walkable_climb,
        bmin: params.bmin,
        bmax: params.bmax,
        bv_quant_factor: 1.0 / params.cs,
    };
    tile.links_free_list = NULL_LINK;
    let verts = &mut tile.verts;
    verts.clear();
    verts.reserve(total_vert_count);
    verts.extend(params.verts.chunks_exact(3).map(|iv| {
        [
            params.bmin[0] + f32::from(iv[0]) * params.cs,
            params.bmin[1] + f32::from(iv[1]) * params.ch,
            params.bmin[2] + f32::from(iv[2]) * params.cs,
        ]
    }));
    let stored_cons = || {
        params
            .off_mesh_connections
            .iter()
            .map(|con| (con, classify(con)))
            .filter(|(_, (start, _))| *start == INSIDE)
    };
    for (con, _) in stored_cons() {
        verts.push(con.start);
        verts.push(con.end);
    }

    let polys = &mut tile.polys;
    polys.clear();
    polys.reserve(total_poly_count);
    for (i, src) in src_polys().enumerate() {
        let mut p = Poly {
            flags: params.poly_flags[i],
            ..Poly::default()
        };
        p.set_area(params.poly_areas[i]);
        p.set_type(PolyType::Ground);
        let nv = poly_vertex_count(src, nvp);
        for j in 0..nv {
            p.verts[j] = src[j];
            let nei = src[nvp + j];
            p.neis[j] = if nei & 0x8000 != 0 {
                // A wall (direction 0xf) or a portal in Recast direction 0..3, stored as the
                // Detour tile side; other directions cannot occur and stay 0 as in C++.
                match nei & 0xf {
                    0 => EXT_LINK | 4,
                    1 => EXT_LINK | 2,
                    2 => EXT_LINK,
                    3 => EXT_LINK | 6,
                    _ => 0,
                }
            } else {
                nei + 1
            };
        }
        p.vert_count = nv as u8;
        polys.push(p);
    }
    for (n, (con, _)) in stored_cons().enumerate() {
        let base = (vert_count + n * 2) as u16;
        let mut p = Poly {
            vert_count: 2,
            flags: con.flags,
            ..Poly::default()
        };
        p.verts[0] = base;
        p.verts[1] = base + 1;
        p.set_area(con.area);
        p.set_type(PolyType::OffMeshConnection);
        polys.push(p);
    }

    let detail_out = DetailOut {
        meshes: &mut tile.detail_meshes,
        verts: &mut tile.detail_verts,
        tris: &mut tile.detail_tris,
    };
    let ground = &tile.polys[..poly_count];
    match params.detail {
        Some(detail) => copy_detail(&detail, ground, detail_out),
        None => fan_detail(ground, detail_out),
    }

    tile.bv_tree.clear();
    if params.build_bv_tree {
        tile.bv_tree = create_bv_tree(params, poly_count);
    }

    tile.off_mesh_cons.clear();
    tile.off_mesh_cons
        .extend(
            stored_cons()
                .enumerate()
                .map(|(n, (con, (_, end_class)))| OffMeshConnection {
                    pos: [con.start, con.end],
                    rad: con.radius,
                    poly: (poly_count + n) as u16,
                    flags: if con.bidirectional {
                        OFFMESH_CON_BIDIR
                    } else {
                        0
                    },
                    side: end_class,
                    user_id: con.user_id,
                }),
        );

    tile.links.clear();
    tile.links.resize(max_link_count, Link::default());
    // Held to what the wider of the two layouts takes, so the tile fits a navmesh of either.
    let data_size = tile.data_size(RefWidth::Bits64);
    if data_size > i32::MAX as usize {
        return Err(invalid(format!(
            "{data_size} bytes of tile data, over 2 GiB"
        )));
    }
    tile.resolve_detail();
    Ok(())
}

/// Checks the detail mesh against the polygons so that copying it cannot go out of range and
/// its counts fit Detour's fields.
fn check_detail(detail: &DetailMeshParams, polys: &[u16], nvp: usize) -> Result<(), DetourError> {
    let poly_count = polys.len() / (2 * nvp);
    if detail.meshes.len() != poly_count * 4 {
        return Err(invalid(format!(
            "{} detail meshes for {poly_count} polygons",
            detail.meshes.len() / 4,
        )));
    }
    if !detail.verts.len().is_multiple_of(3) || !detail.tris.len().is_multiple_of(4) {
        return Err(invalid(
            "detail vertex or triangle array has a partial entry".into(),
        ));
    }
    let (nverts, ntris) = (detail.verts.len() as u64 / 3, detail.tris.len() as u64 / 4);
    if ntris > i32::MAX as u64 {
        return Err(invalid(format!("{ntris} detail triangles")));
    }
    let mut unique_verts = 0u64;
    for (i, (m, p)) in detail
        .meshes
        .chunks_exact(4)
        .zip(polys.chunks_exact(2 * nvp))
        .enumerate()
    {
        let nv = poly_vertex_count(p, nvp) as u64;
        let [vb, ndv, tb, nt] = [m[0], m[1], m[2], m[3]].map(u64::from);
        if vb + ndv > nverts || tb + nt > ntris {
            return Err(invalid(format!(
                "detail mesh {i} lies outside the detail arrays"
            )));
        }
        if ndv < nv || ndv - nv > 255 || nt > 255 {
            return Err(invalid(format!(
                "detail mesh {i} has {ndv} vertices for a {nv}-gon and {nt} triangles"
            )));
        }
        let tris = &detail.tris[(tb * 4) as usize..((tb + nt) * 4) as usize];
        if tris
            .chunks_exact(4)
            .any(|t| t[..3].iter().any(|&k| u64::from(k) >= ndv))
        {
            return Err(invalid(format!(
                "detail mesh {i} has a triangle vertex out of range"
            )));
        }
        unique_verts += ndv - nv;
    }
    // C++ keeps the running vertex base in an unsigned short.
    if unique_verts > 0xffff {
        return Err(invalid(format!(
            "{unique_verts} detail vertices, over 65535"
        )));
    }
    Ok(())
}

/// A tile's detail arrays, refilled by [`copy_detail`] or [`fan_detail`].
struct DetailOut<'a> {
    meshes: &'a mut Vec<PolyDetail>,
    verts: &'a mut Vec<Vec3>,
    tris: &'a mut Vec<[u8; 4]>,
}

impl DetailOut<'_> {
    /// The arrays emptied, their memory kept.
    fn cleared(self) -> Self {
        self.meshes.clear();
        self.verts.clear();
        self.tris.clear();
        self
    }
}

/// Copies the detail mesh, dropping each sub-mesh's leading copies of the polygon vertices.
fn copy_detail(detail: &DetailMeshParams, polys: &[Poly], out: DetailOut) {
    let DetailOut {
        meshes,
        verts,
        tris,
    } = out.cleared();
    for (m, p) in detail.meshes.chunks_exact(4).zip(polys) {
        let (vb, ndv) = (m[0] as usize, m[1] as usize);
        let nv = usize::from(p.vert_count);
        meshes.push(PolyDetail {
            vert_base: verts.len() as u32,
            tri_base: m[2],
            vert_count: (ndv - nv) as u8,
            tri_count: m[3] as u8,
        });
        verts.extend(
            detail.verts[(vb + nv) * 3..(vb + ndv) * 3]
                .chunks_exact(3)
                .map(|v| [v[0], v[1], v[2]]),
        );
    }
    tris.extend(
        detail
            .tris
            .chunks_exact(4)
            .map(|t| [t[0], t[1], t[2], t[3]]),
    );
}

/// Without a detail mesh each polygon is fanned from its first vertex, edges flagged as
/// boundary where they lie on the polygon outline.
fn fan_detail(polys: &[Poly], out: DetailOut) {
    let DetailOut { meshes, tris, .. } = out.cleared();
    for p in polys {
        let nv = p.vert_count;
        meshes.push(PolyDetail {
            vert_base: 0,
            tri_base: tris.len() as u32,
            vert_count: 0,
            tri_count: nv - 2,
        });
        for j in 2..nv {
            let mut flags = 1 << 2;
            if j == 2 {
                flags |= 1;
            }
            if j == nv - 1 {
                flags |= 1 << 4;
            }
            tris.push([0, j - 1, j, flags]);
        }
    }
}

/// A polygon's quantised bounds while the BV tree is built (`BVItem`).
#[derive(Clone, Copy, Debug)]
struct BvItem {
    bmin: [u16; 3],
    bmax: [u16; 3],
    i: i32,
}

/// `createBVTree`: quantised polygon bounds (from the detail mesh when there is one), then a
/// median-split tree. The node array has room for `2 * poly_count` nodes; the unused tail
/// stays zero as in C++.
fn create_bv_tree(params: &NavMeshCreateParams, poly_count: usize) -> Vec<BvNode> {
    let quant_factor = 1.0 / params.cs;
    // `(unsigned short)dtClamp((int)v, 0, 0xffff)`.
    let quantize =
        |v: f32, k: usize| (((v - params.bmin[k]) * quant_factor) as i32).clamp(0, 0xffff) as u16;
    let mut items: Vec<BvItem> = Vec::with_capacity(poly_count);
    for (i, p) in params.polys.chunks_exact(2 * params.nvp).enumerate() {
        let (bmin, bmax) = match params.detail {
            Some(detail) => {
                let (vb, ndv) = (
                    detail.meshes[i * 4] as usize,
                    detail.meshes[i * 4 + 1] as usize,
                );
                let dv = &detail.verts[vb * 3..(vb + ndv) * 3];
                let mut bmin = [dv[0], dv[1], dv[2]];
                let mut bmax = bmin;
                for v in dv.chunks_exact(3).skip(1) {
                    let v = [v[0], v[1], v[2]];
                    common::vmin(&mut bmin, &v);
                    common::vmax(&mut bmax, &v);
                }
                (
                    std::array::from_fn(|k| quantize(bmin[k], k)),
                    std::array::from_fn(|k| quantize(bmax[k], k)),
                )
            }
            None => {
                let vert = |v: u16| {
                    let at = usize::from(v) * 3;
                    [params.verts[at], params.verts[at + 1], params.verts[at + 2]]
                };
                let mut bmin = vert(p[0]);
                let mut bmax = bmin;
                for &v in p[1..poly_vertex_count(p, params.nvp)].iter() {
                    let q = vert(v);
                    for k in 0..3 {
                        bmin[k] = bmin[k].min(q[k]);
                        bmax[k] = bmax[k].max(q[k]);
                    }
                }
                // Heights are in cell-height units; the tree uses cell size on every axis.
                let y_scale = |y: u16| f32::from(y) * params.ch / params.cs;
                bmin[1] = common::f32_to_u16_wrapping(y_scale(bmin[1]).floor());
                bmax[1] = common::f32_to_u16_wrapping(y_scale(bmax[1]).ceil());
                (bmin, bmax)
            }
        };
        items.push(BvItem {
            bmin,
            bmax,
            i: i as i32,
        });
    }
    let mut nodes = vec![BvNode::default(); poly_count * 2];
    let mut cur_node = 0;
    subdivide(&mut items, 0, poly_count, &mut cur_node, &mut nodes);
    nodes
}

/// The axis (0 x, 1 y, 2 z) with the largest extent; ties go to the lower axis.
fn longest_axis(x: u16, y: u16, z: u16) -> usize {
    let mut axis = 0;
    let mut max = x;
    if y > max {
        axis = 1;
        max = y;
    }
    if z > max {
        axis = 2;
    }
    axis
}

/// Builds the subtree of `items[imin..imax]` at `nodes[cur_node]`, depth first: a leaf for one
/// item, otherwise the items' bounds, sorted along the longest axis and split at the middle.
/// Interior nodes store minus their subtree size so traversal can skip it.
///
/// C++ sorts with `qsort`, which glibc implements as a stable merge sort, so a stable sort by
/// the same key gives the same order for equal keys.
fn subdivide(
    items: &mut [BvItem],
    imin: usize,
    imax: usize,
    cur_node: &mut usize,
    nodes: &mut [BvNode],
) {
    let inum = imax - imin;
    let icur = *cur_node;
    *cur_node += 1;
    if inum == 1 {
        let it = &items[imin];
        nodes[icur] = BvNode {
            bmin: it.bmin,
            bmax: it.bmax,
            i: it.i,
        };
        return;
    }
    let span = &mut items[imin..imax];
    let mut bmin = span[0].bmin;
    let mut bmax = span[0].bmax;
    for it in &span[1..] {
        for k in 0..3 {
            if it.bmin[k] < bmin[k] {
                bmin[k] = it.bmin[k];
            }
            if it.bmax[k] > bmax[k] {
                bmax[k] = it.bmax[k];
            }
        }
    }
    let axis = longest_axis(
        bmax[0].wrapping_sub(bmin[0]),
        bmax[1].wrapping_sub(bmin[1]),
        bmax[2].wrapping_sub(bmin[2]),
    );
    span.sort_by_key(|it| it.bmin[axis]);
    let isplit = imin + inum / 2;
    subdivide(items, imin, isplit, cur_node, nodes);
    subdivide(items, isplit, imax, cur_node, nodes);
    nodes[icur] = BvNode {
        bmin,
        bmax,
        i: -((*cur_node - icur) as i32),
    };
}
