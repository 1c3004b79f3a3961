//! Walking a ray along the navmesh surface in xz ([`NavMeshQuery::raycast`]).

use super::filter::{PolyContext, PolyFilter};
use super::geometry::{intersect_segment_poly_2d_by, visfinite, vmad, vnormalize};
use super::{NavMeshQuery, Status, is_valid_ref, links, tile_and_poly};
use crate::detour::common::{Vec3, sqr, vsub};
use crate::detour::{MeshTile, NavMesh, Poly, PolyRef};

/// Raycast option: also sum the cost of the way along the ray (`DT_RAYCAST_USE_COSTS`).
pub const RAYCAST_USE_COSTS: u32 = 0x01;

/// What a raycast found (`dtRaycastHit`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RaycastHit {
    /// Where along the ray the wall was hit (hit point = start + (end - start) * t);
    /// `f32::MAX` when the ray reached its end.
    pub t: f32,
    /// The wall's normal in xz; zero when nothing was hit.
    pub hit_normal: Vec3,
    /// The edge of the last polygon where the ray left it, -1 when it ended inside
    /// (and when the start polygon was not met at all).
    pub hit_edge_index: i32,
    /// Polygons written to the path buffer.
    pub path_count: usize,
    /// Cost of the way along the ray, with [`RAYCAST_USE_COSTS`].
    pub path_cost: f32,
}

impl Default for RaycastHit {
    fn default() -> Self {
        RaycastHit {
            t: 0.0,
            hit_normal: [0.0; 3],
            hit_edge_index: -1,
            path_count: 0,
            path_cost: 0.0,
        }
    }
}

impl NavMeshQuery<'_> {
    /// Casts a ray from `start_pos` towards `end_pos` along the surface, starting in
    /// `start_ref`, and records the polygons it crosses into `path` (`raycast`, the
    /// overload with `t`, hit normal and path). The ray is 2D: heights are ignored, so use it
    /// for short distances.
    pub fn raycast<F: PolyFilter + ?Sized>(
        &self,
        start_ref: PolyRef,
        start_pos: &Vec3,
        end_pos: &Vec3,
        filter: &F,
        path: &mut [PolyRef],
    ) -> (Status, RaycastHit) {
        raycast(self.nav, start_ref, start_pos, end_pos, filter, 0, 0, path)
    }

    /// The raycast with options ([`RAYCAST_USE_COSTS`]) and the polygon the ray came from
    /// (`prev_ref`, 0 for none), which the cost function sees (`raycast` with
    /// `dtRaycastHit`).
    #[allow(clippy::too_many_arguments)]
    pub fn raycast_with_options<F: PolyFilter + ?Sized>(
        &self,
        start_ref: PolyRef,
        start_pos: &Vec3,
        end_pos: &Vec3,
        filter: &F,
        options: u32,
        prev_ref: PolyRef,
        path: &mut [PolyRef],
    ) -> (Status, RaycastHit) {
        raycast(
            self.nav, start_ref, start_pos, end_pos, filter, options, prev_ref, path,
        )
    }
}

/// Whether the ray crossing the portal link's edge at `tmax` passes inside the part of the
/// edge the link covers.
fn crosses_link_range(
    tile: &MeshTile,
    poly: &Poly,
    link: &crate::detour::Link,
    start_pos: &Vec3,
    end_pos: &Vec3,
    tmax: f32,
) -> bool {
    let nv = usize::from(poly.vert_count);
    let edge = usize::from(link.edge);
    let left = &tile.verts[usize::from(poly.verts[edge])];
    let right = &tile.verts[usize::from(poly.verts[(edge + 1) % nv])];
    let axis = match link.side {
        0 | 4 => 2,
        2 | 6 => 0,
        _ => return false,
    };
    const S: f32 = 1.0 / 255.0;
    let mut lmin = left[axis] + (right[axis] - left[axis]) * (f32::from(link.bmin) * S);
    let mut lmax = left[axis] + (right[axis] - left[axis]) * (f32::from(link.bmax) * S);
    if lmin > lmax {
        std::mem::swap(&mut lmin, &mut lmax);
    }
    let at = start_pos[axis] + (end_pos[axis] - start_pos[axis]) * tmax;
    at >= lmin && at <= lmax
}

/// The raycast on `nav`, shared by the public overloads and the any-angle search.
#[allow(clippy::too_many_arguments)]
pub(crate) fn raycast<F: PolyFilter + ?Sized>(
    nav: &NavMesh,
    start_ref: PolyRef,
    start_pos: &Vec3,
    end_pos: &Vec3,
    filter: &F,
    options: u32,
    prev_ref: PolyRef,
    path: &mut [PolyRef],
) -> (Status, RaycastHit) {
    let mut hit = RaycastHit::default();
    if !is_valid_ref(nav, start_ref)
        || !visfinite(start_pos)
        || !visfinite(end_pos)
        || (prev_ref != 0 && !is_valid_ref(nav, prev_ref))
    {
        return (Status::invalid_param(), hit);
    }
    let use_costs = options & RAYCAST_USE_COSTS != 0;
    let max_path = path.len();
    let dir = vsub(end_pos, start_pos);
    let mut cur_pos = *start_pos;
    let mut status = Status::SUCCESS;
    let mut n = 0;

    let Some((mut tile, mut poly)) = tile_and_poly(nav, start_ref) else {
        return (Status::invalid_param(), hit);
    };
    let mut cur_ref = start_ref;
    let (mut next_tile, mut next_poly) = (Some(tile), Some(poly));
    let (mut prev_tile, mut prev_poly) = (Some(tile), Some(poly));
    let mut prev_ref = prev_ref;
    if prev_ref != 0
        && let Some((t, p)) = tile_and_poly(nav, prev_ref)
    {
        (prev_tile, prev_poly) = (Some(t), Some(p));
    }

    while cur_ref != 0 {
        let indices = poly.vertex_indices();
        let nv = indices.len();
        let vertex = |k: usize| tile.verts[usize::from(indices[k])];
        let Some(seg) = intersect_segment_poly_2d_by(start_pos, end_pos, nv, vertex) else {
            // The ray misses this polygon: keep the t so far and report a hit.
            hit.path_count = n;
            return (status, hit);
        };
        hit.hit_edge_index = seg.seg_max;
        if seg.tmax > hit.t {
            hit.t = seg.tmax;
        }
        if n < max_path {
            path[n] = cur_ref;
            n += 1;
        } else {
            status |= Status::BUFFER_TOO_SMALL;
        }
        let prev_ctx = PolyContext {
            poly_ref: prev_ref,
            tile: prev_tile,
            poly: prev_poly,
        };
        let cur_ctx = PolyContext::new(cur_ref, tile, poly);

        if seg.seg_max == -1 {
            // The ray ends inside this polygon.
            hit.t = f32::MAX;
            hit.path_count = n;
            if use_costs {
                hit.path_cost += filter.cost(&cur_pos, end_pos, prev_ctx, cur_ctx, cur_ctx);
            }
            return (status, hit);
        }
        let seg_max = seg.seg_max as usize;

        // Follow the link that crosses the exit edge.
        let mut next_ref = 0;
        for link in links(tile, poly) {
            if usize::from(link.edge) != seg_max {
                continue;
            }
            let Some((nt, np)) = tile_and_poly(nav, link.neighbour) else {
                (next_tile, next_poly) = (None, None);
                continue;
            };
            (next_tile, next_poly) = (Some(nt), Some(np));
            if np.is_off_mesh_connection() {
                continue;
            }
            if !filter.pass_filter(link.neighbour, nt, np) {
                continue;
            }
            // Links inside a tile, and border links over the whole edge, always carry the
            // ray on; partial border links only where it crosses inside them.
            if link.side == 0xff
                || (link.bmin == 0 && link.bmax == 255)
                || crosses_link_range(tile, poly, link, start_pos, end_pos, seg.tmax)
            {
                next_ref = link.neighbour;
                break;
            }
        }

        if use_costs {
            // The exit point on the edge, with the edge's height (the ray itself is 2D).
            let last_pos = cur_pos;
            cur_pos = vmad(start_pos, &dir, hit.t);
            let e1 = &vertex(seg_max);
            let e2 = &vertex((seg_max + 1) % nv);
            let edge_dir = vsub(e2, e1);
            let diff = vsub(&cur_pos, e1);
            let s = if sqr(edge_dir[0]) > sqr(edge_dir[2]) {
                diff[0] / edge_dir[0]
            } else {
                diff[2] / edge_dir[2]
            };
            cur_pos[1] = e1[1] + edge_dir[1] * s;
            let next_ctx = PolyContext {
                poly_ref: next_ref,
                tile: next_tile,
                poly: next_poly,
            };
            hit.path_cost += filter.cost(&last_pos, &cur_pos, prev_ctx, cur_ctx, next_ctx);
        }

        if next_ref == 0 {
            // A wall.
            let a = seg_max;
            let b = if seg_max + 1 < nv { seg_max + 1 } else { 0 };
            let (va, vb) = (vertex(a), vertex(b));
            let dx = vb[0] - va[0];
            let dz = vb[2] - va[2];
            hit.hit_normal = [dz, 0.0, -dx];
            vnormalize(&mut hit.hit_normal);
            hit.path_count = n;
            return (status, hit);
        }
        let (Some(nt), Some(np)) = (next_tile, next_poly) else {
            break;
        };
        prev_ref = cur_ref;
        cur_ref = next_ref;
        prev_tile = Some(tile);
        prev_poly = Some(poly);
        tile = nt;
        poly = np;
        if status.has_detail(Status::BUFFER_TOO_SMALL) {
            status |= Status::PARTIAL_RESULT;
            break;
        }
    }
    hit.path_count = n;
    (status, hit)
}
