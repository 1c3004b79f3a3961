//! One navmesh tile: Detour's tile data (`dtMeshHeader` and the arrays after it) as typed
//! arrays, their exact little-endian byte layout, and the validating loader.
//!
//! A [`MeshTile`] can only be made by [`crate::detour::create_nav_mesh_data`] or
//! [`MeshTile::from_bytes`], and both guarantee the invariants the navmesh and queries index by:
//! every vertex, neighbour, detail, BV-tree and off-mesh index is in range. The navmesh changes
//! only the links, `Poly::first_link`, off-mesh end vertices and flags/areas, keeping them.

use super::common::{self, Vec3};
use super::{
    DETAIL_EDGE_BOUNDARY, DetourError, EXT_LINK, NAVMESH_MAGIC, NAVMESH_VERSION, NULL_LINK,
    RefWidth, VERTS_PER_POLYGON, detail_tri_edge_flags,
};

/// Byte sizes of the on-disk structures (x86-64; a link's size depends on the [`RefWidth`]).
pub(crate) const HEADER_SIZE: usize = 100;
pub(crate) const VERT_SIZE: usize = 12;
pub(crate) const POLY_SIZE: usize = 32;
pub(crate) const POLY_DETAIL_SIZE: usize = 12;
pub(crate) const DETAIL_TRI_SIZE: usize = 4;
pub(crate) const BV_NODE_SIZE: usize = 16;
pub(crate) const OFF_MESH_CON_SIZE: usize = 36;

/// One wall edge of a polygon ([`MeshTile::boundary_edges`], `NavMesh::boundary_edges`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoundaryEdge {
    /// The polygon the edge belongs to.
    pub poly: super::PolyRef,
    /// The edge's end points, in the polygon's vertex order.
    pub ends: [Vec3; 2],
}

/// The per-tile values of `dtMeshHeader`. The counts live in the arrays' lengths; see the
/// accessors on [`MeshTile`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MeshHeader {
    /// Tile grid x.
    pub x: i32,
    /// Tile grid y.
    pub y: i32,
    /// Tile layer at that grid cell.
    pub layer: i32,
    /// A value the builder passes through (`dtMeshHeader::userId`).
    pub user_id: u32,
    /// Agent dimensions the tile was built for, in world units.
    pub walkable_height: f32,
    /// Agent radius, world units.
    pub walkable_radius: f32,
    /// Agent climb, world units.
    pub walkable_climb: f32,
    /// Minimum corner of the tile's bounds, world units.
    pub bmin: Vec3,
    /// Maximum corner of the tile's bounds.
    pub bmax: Vec3,
    /// World → BV-tree units (1 / cell size).
    pub bv_quant_factor: f32,
}

/// Whether a polygon is walkable ground or an off-mesh connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolyType {
    /// A polygon of the surface (`DT_POLYTYPE_GROUND`).
    Ground,
    /// A two-vertex polygon standing for an off-mesh connection (`DT_POLYTYPE_OFFMESH_CONNECTION`).
    OffMeshConnection,
}

/// A navmesh polygon (`dtPoly`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Poly {
    /// First link of the polygon's link list, or [`NULL_LINK`].
    pub first_link: u32,
    /// Vertex indices into the tile's vertices; the first `vert_count` are used.
    pub verts: [u16; VERTS_PER_POLYGON],
    /// Per edge: 0 = wall, `n` = internal neighbour poly `n - 1`, `EXT_LINK | side` = portal.
    pub neis: [u16; VERTS_PER_POLYGON],
    /// User flags (ability masks such as walk or swim).
    pub flags: u16,
    /// How many of `verts` are used.
    pub vert_count: u8,
    /// Area id (low 6 bits) and poly type (high 2 bits).
    pub area_and_type: u8,
}

impl Poly {
    #[inline]
    /// The area id (`dtPoly::getArea`).
    pub fn area(&self) -> u8 {
        self.area_and_type & 0x3f
    }

    #[inline]
    /// Sets the area id, keeping the type (`dtPoly::setArea`).
    pub fn set_area(&mut self, area: u8) {
        self.area_and_type = (self.area_and_type & 0xc0) | (area & 0x3f);
    }

    /// The raw 2-bit type (0 ground, 1 off-mesh connection).
    #[inline]
    pub fn type_bits(&self) -> u8 {
        self.area_and_type >> 6
    }

    #[inline]
    pub(crate) fn set_type(&mut self, poly_type: PolyType) {
        let bits = match poly_type {
            PolyType::Ground => 0,
            PolyType::OffMeshConnection => 1,
        };
        self.area_and_type = (self.area_and_type & 0x3f) | (bits << 6);
    }

    /// The poly type; data loaded or built by this crate only holds the two valid types.
    #[inline]
    pub fn poly_type(&self) -> PolyType {
        if self.type_bits() == 1 {
            PolyType::OffMeshConnection
        } else {
            PolyType::Ground
        }
    }

    #[inline]
    /// Whether this is an off-mesh connection's polygon.
    pub fn is_off_mesh_connection(&self) -> bool {
        self.type_bits() == 1
    }

    /// The used vertex indices.
    #[inline]
    pub fn vertex_indices(&self) -> &[u16] {
        &self.verts[..usize::from(self.vert_count).min(VERTS_PER_POLYGON)]
    }
}

/// A link from a polygon edge to a neighbour polygon (`dtLink`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Link {
    /// The neighbour polygon.
    pub neighbour: super::PolyRef,
    /// Next link of the same polygon, or [`NULL_LINK`].
    pub next: u32,
    /// The edge of the owning polygon.
    pub edge: u8,
    /// For portal links the tile side, otherwise 0xff.
    pub side: u8,
    /// The part of the edge the portal covers, in 1/255 of its length.
    pub bmin: u8,
    /// Where the portal ends along the edge, in 1/255 of its length.
    pub bmax: u8,
}

/// A polygon's detail sub-mesh (`dtPolyDetail`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PolyDetail {
    /// First of the polygon's extra vertices in the tile's detail vertices.
    pub vert_base: u32,
    /// First of its triangles in the tile's detail triangles.
    pub tri_base: u32,
    /// Extra vertices of the sub-mesh.
    pub vert_count: u8,
    /// Triangles of the sub-mesh.
    pub tri_count: u8,
}

/// A bounding-volume tree node in quantised tile coordinates (`dtBVNode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BvNode {
    /// Minimum corner of the node's box, quantised tile units.
    pub bmin: [u16; 3],
    /// Maximum corner of the node's box.
    pub bmax: [u16; 3],
    /// A poly index for leaves (≥ 0), or minus the number of nodes to skip (escape offset).
    pub i: i32,
}

/// An off-mesh connection between two points (`dtOffMeshConnection`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OffMeshConnection {
    /// Start and end points.
    pub pos: [Vec3; 2],
    /// How far from each end the connection can be entered, world units.
    pub rad: f32,
    /// The connection's polygon in this tile.
    pub poly: u16,
    /// [`super::OFFMESH_CON_BIDIR`] or 0.
    pub flags: u8,
    /// The tile side the end point lies beyond, or 0xff when it is inside the tile.
    pub side: u8,
    /// A value the caller passes through (`dtOffMeshConnection::userId`).
    pub user_id: u32,
}

/// A tile's data plus its link free list (`dtMeshTile` with its data blob).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshTile {
    pub(crate) header: MeshHeader,
    pub(crate) verts: Vec<Vec3>,
    pub(crate) polys: Vec<Poly>,
    pub(crate) links: Vec<Link>,
    pub(crate) detail_meshes: Vec<PolyDetail>,
    pub(crate) detail_verts: Vec<Vec3>,
    pub(crate) detail_tris: Vec<[u8; 4]>,
    pub(crate) bv_tree: Vec<BvNode>,
    pub(crate) off_mesh_cons: Vec<OffMeshConnection>,
    /// Head of the unused-link list while the tile is in a navmesh.
    pub(crate) links_free_list: u32,
    /// The detail triangles' vertex positions, resolved once so surface queries read them
    /// directly (derived from the arrays above).
    pub(crate) resolved_detail: ResolvedDetail,
}

/// Each ground polygon's detail triangles with their three vertex positions looked up
/// (polygon vertex or extra detail vertex). Every polygon gets its own run, in polygon order,
/// so triangle ranges that several polygons share resolve per polygon as the lookup would.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ResolvedDetail {
    /// Where polygon `i`'s run starts in `tri_verts`.
    start: Vec<u32>,
    tri_verts: Vec<[Vec3; 3]>,
}

/// The counts a tile header stores, in header order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    poly: usize,
    vert: usize,
    max_link: usize,
    detail_mesh: usize,
    detail_vert: usize,
    detail_tri: usize,
    bv_node: usize,
    off_mesh_con: usize,
    off_mesh_base: usize,
}

impl Counts {
    /// Bytes of the whole tile. Every structure size is a multiple of 4, so Detour's
    /// per-section `dtAlign4` never adds padding.
    fn data_size(&self, width: RefWidth) -> u64 {
        [
            (1, HEADER_SIZE),
            (self.vert, VERT_SIZE),
            (self.poly, POLY_SIZE),
            (self.max_link, width.link_size()),
            (self.detail_mesh, POLY_DETAIL_SIZE),
            (self.detail_vert, VERT_SIZE),
            (self.detail_tri, DETAIL_TRI_SIZE),
            (self.bv_node, BV_NODE_SIZE),
            (self.off_mesh_con, OFF_MESH_CON_SIZE),
        ]
        .iter()
        .map(|&(n, size)| n as u64 * size as u64)
        .sum()
    }
}

/// The byte size a tile header (the first [`HEADER_SIZE`] bytes of `data`) describes with
/// references `width` wide; `None` for a short header or a negative count.
pub(crate) fn described_size(data: &[u8], width: RefWidth) -> Option<i64> {
    let head = data.get(..HEADER_SIZE)?;
    let count = |at: usize| usize::try_from(i32_at(head, at)).ok();
    let counts = Counts {
        poly: count(24)?,
        vert: count(28)?,
        max_link: count(32)?,
        detail_mesh: count(36)?,
        detail_vert: count(40)?,
        detail_tri: count(44)?,
        bv_node: count(48)?,
        off_mesh_con: count(52)?,
        off_mesh_base: count(56)?,
    };
    i64::try_from(counts.data_size(width)).ok()
}

impl MeshTile {
    /// The tile's header values.
    pub fn header(&self) -> &MeshHeader {
        &self.header
    }

    /// The tile's vertices.
    pub fn verts(&self) -> &[Vec3] {
        &self.verts
    }

    /// The tile's polygons.
    pub fn polys(&self) -> &[Poly] {
        &self.polys
    }

    /// All link slots, used or free (see [`MeshTile::poly_links`] for one polygon's links).
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// One detail sub-mesh per ground polygon.
    pub fn detail_meshes(&self) -> &[PolyDetail] {
        &self.detail_meshes
    }

    /// Detail vertices that are not polygon vertices.
    pub fn detail_verts(&self) -> &[Vec3] {
        &self.detail_verts
    }

    /// Detail triangles: three local vertex indices and the edge flags.
    pub fn detail_tris(&self) -> &[[u8; 4]] {
        &self.detail_tris
    }

    /// The BV tree; empty when the tile was built without one.
    pub fn bv_tree(&self) -> &[BvNode] {
        &self.bv_tree
    }

    /// The tile's off-mesh connections.
    pub fn off_mesh_connections(&self) -> &[OffMeshConnection] {
        &self.off_mesh_cons
    }

    /// How many polygons the tile has.
    pub fn poly_count(&self) -> usize {
        self.polys.len()
    }

    /// Link slots the tile holds (`dtMeshHeader::maxLinkCount`).
    pub fn max_link_count(&self) -> usize {
        self.links.len()
    }

    /// Index of the first off-mesh connection polygon (= number of ground polygons).
    pub fn off_mesh_base(&self) -> usize {
        self.detail_meshes.len()
    }

    /// The links of polygon `poly`, in list order.
    pub fn poly_links(&self, poly: usize) -> PolyLinks<'_> {
        PolyLinks {
            links: &self.links,
            next: self.polys.get(poly).map_or(NULL_LINK, |p| p.first_link),
            remaining: self.links.len(),
        }
    }

    /// Vertex `k` of polygon `poly`'s detail triangle `tri` (0-based within the polygon),
    /// resolving shared polygon vertices and extra detail vertices.
    pub fn detail_tri_vertices(&self, poly: usize, tri: usize) -> Option<[Vec3; 3]> {
        let p = self.polys.get(poly)?;
        let pd = self.detail_meshes.get(poly)?;
        if tri >= usize::from(pd.tri_count) {
            return None;
        }
        let t = self.detail_tris.get(pd.tri_base as usize + tri)?;
        Some([0, 1, 2].map(|k| self.detail_vertex(p, pd, t[k])))
    }

    /// Byte size of the tile data (`dataSize`) with references `width` wide.
    pub fn data_size(&self, width: RefWidth) -> usize {
        self.counts().data_size(width) as usize
    }

    fn counts(&self) -> Counts {
        Counts {
            poly: self.polys.len(),
            vert: self.verts.len(),
            max_link: self.links.len(),
            detail_mesh: self.detail_meshes.len(),
            detail_vert: self.detail_verts.len(),
            detail_tri: self.detail_tris.len(),
            bv_node: self.bv_tree.len(),
            off_mesh_con: self.off_mesh_cons.len(),
            off_mesh_base: self.detail_meshes.len(),
        }
    }

    /// The tile data exactly as Detour lays it out in memory (and in "MSET" files) with
    /// references `width` wide, little-endian, padding zeroed.
    pub fn to_bytes(&self, width: RefWidth) -> Vec<u8> {
        let counts = self.counts();
        let mut out = Vec::with_capacity(counts.data_size(width) as usize);
        let h = &self.header;
        for v in [NAVMESH_MAGIC, NAVMESH_VERSION, h.x, h.y, h.layer] {
            put_i32(&mut out, v);
        }
        put_u32(&mut out, h.user_id);
        for n in [
            counts.poly,
            counts.vert,
            counts.max_link,
            counts.detail_mesh,
            counts.detail_vert,
            counts.detail_tri,
            counts.bv_node,
            counts.off_mesh_con,
            counts.off_mesh_base,
        ] {
            // Construction and loading keep every count within i32 (see `check_count`).
            put_i32(&mut out, n as i32);
        }
        for v in [h.walkable_height, h.walkable_radius, h.walkable_climb] {
            put_f32(&mut out, v);
        }
        put_vec3(&mut out, &h.bmin);
        put_vec3(&mut out, &h.bmax);
        put_f32(&mut out, h.bv_quant_factor);

        for v in &self.verts {
            put_vec3(&mut out, v);
        }
        for p in &self.polys {
            put_u32(&mut out, p.first_link);
            p.verts.iter().for_each(|&v| put_u16(&mut out, v));
            p.neis.iter().for_each(|&n| put_u16(&mut out, n));
            put_u16(&mut out, p.flags);
            out.extend_from_slice(&[p.vert_count, p.area_and_type]);
        }
        for l in &self.links {
            // 32-bit navmeshes hold only references that fit (`NavMesh` masks them).
            width.put_ref(&mut out, l.neighbour);
            put_u32(&mut out, l.next);
            out.extend_from_slice(&[l.edge, l.side, l.bmin, l.bmax]);
        }
        for d in &self.detail_meshes {
            put_u32(&mut out, d.vert_base);
            put_u32(&mut out, d.tri_base);
            out.extend_from_slice(&[d.vert_count, d.tri_count, 0, 0]);
        }
        for v in &self.detail_verts {
            put_vec3(&mut out, v);
        }
        for t in &self.detail_tris {
            out.extend_from_slice(t);
        }
        for n in &self.bv_tree {
            n.bmin
                .iter()
                .chain(&n.bmax)
                .for_each(|&v| put_u16(&mut out, v));
            put_i32(&mut out, n.i);
        }
        for c in &self.off_mesh_cons {
            put_vec3(&mut out, &c.pos[0]);
            put_vec3(&mut out, &c.pos[1]);
            put_f32(&mut out, c.rad);
            put_u16(&mut out, c.poly);
            out.extend_from_slice(&[c.flags, c.side]);
            put_u32(&mut out, c.user_id);
        }
        out
    }

    /// Parses and validates tile data. Nothing is allocated before the header's counts have
    /// been checked against `data.len()`, and every stored index is checked, so a tile that
    /// loads can be added to a navmesh and queried without going out of bounds.
    ///
    /// The link array's contents are not checked: adding the tile rebuilds its links. The two
    /// padding bytes of each `dtPolyDetail` are ignored (C++ always writes them as zero).
    /// `width` sizes the links; the rest of the layout is the same for both widths.
    pub fn from_bytes(data: &[u8], width: RefWidth) -> Result<MeshTile, DetourError> {
        if data.len() < HEADER_SIZE {
            return Err(DetourError::Truncated {
                what: "tile header",
                needed: HEADER_SIZE as u64,
                available: data.len() as u64,
            });
        }
        let (head, body) = data.split_at(HEADER_SIZE);
        let int = |k: usize| i32::from_le_bytes([head[k], head[k + 1], head[k + 2], head[k + 3]]);
        let float = |k: usize| f32::from_le_bytes([head[k], head[k + 1], head[k + 2], head[k + 3]]);
        if int(0) != NAVMESH_MAGIC {
            return Err(DetourError::WrongTileMagic { found: int(0) });
        }
        if int(4) != NAVMESH_VERSION {
            return Err(DetourError::WrongTileVersion { found: int(4) });
        }
        let count = |field: &'static str, at: usize, limit: usize| -> Result<usize, DetourError> {
            let value = int(at);
            usize::try_from(value)
                .ok()
                .filter(|&n| n <= limit)
                .ok_or(DetourError::BadCount {
                    field,
                    value: value.into(),
                })
        };
        let any = i32::MAX as usize;
        let counts = Counts {
            // Off-mesh polys store their index in a u16.
            poly: count("polyCount", 24, 0xffff)?,
            vert: count("vertCount", 28, any)?,
            max_link: count("maxLinkCount", 32, any)?,
            detail_mesh: count("detailMeshCount", 36, any)?,
            detail_vert: count("detailVertCount", 40, any)?,
            detail_tri: count("detailTriCount", 44, any)?,
            bv_node: count("bvNodeCount", 48, any)?,
            off_mesh_con: count("offMeshConCount", 52, any)?,
            off_mesh_base: count("offMeshBase", 56, any)?,
        };
        let expected = counts.data_size(width);
        // Detour keeps tile sizes in an int.
        if expected > i32::MAX as u64 {
            return Err(DetourError::BadCount {
                field: "dataSize",
                value: expected as i64,
            });
        }
        if expected != data.len() as u64 {
            if counts.data_size(width.other()) == data.len() as u64 {
                return Err(DetourError::WrongRefWidth {
                    needs: width.other(),
                    reading: width,
                });
            }
            return Err(DetourError::TileSizeMismatch {
                expected,
                actual: data.len() as u64,
            });
        }
        let header = MeshHeader {
            x: int(8),
            y: int(12),
            layer: int(16),
            user_id: int(20) as u32,
            walkable_height: float(60),
            walkable_radius: float(64),
            walkable_climb: float(68),
            bmin: [float(72), float(76), float(80)],
            bmax: [float(84), float(88), float(92)],
            bv_quant_factor: float(96),
        };

        let mut sections = Sections { rest: body };
        let verts = sections.take(counts.vert, VERT_SIZE, read_vec3);
        let polys = sections.take(counts.poly, POLY_SIZE, |b| Poly {
            first_link: u32_at(b, 0),
            verts: std::array::from_fn(|k| u16_at(b, 4 + 2 * k)),
            neis: std::array::from_fn(|k| u16_at(b, 16 + 2 * k)),
            flags: u16_at(b, 28),
            vert_count: b[30],
            area_and_type: b[31],
        });
        let at = width.ref_size();
        let links = sections.take(counts.max_link, width.link_size(), |b| Link {
            neighbour: width.ref_at(b),
            next: u32_at(b, at),
            edge: b[at + 4],
            side: b[at + 5],
            bmin: b[at + 6],
            bmax: b[at + 7],
        });
        let detail_meshes = sections.take(counts.detail_mesh, POLY_DETAIL_SIZE, |b| PolyDetail {
            vert_base: u32_at(b, 0),
            tri_base: u32_at(b, 4),
            vert_count: b[8],
            tri_count: b[9],
        });
        let detail_verts = sections.take(counts.detail_vert, VERT_SIZE, read_vec3);
        let detail_tris = sections.take(counts.detail_tri, DETAIL_TRI_SIZE, |b| {
            [b[0], b[1], b[2], b[3]]
        });
        let bv_tree = sections.take(counts.bv_node, BV_NODE_SIZE, |b| BvNode {
            bmin: std::array::from_fn(|k| u16_at(b, 2 * k)),
            bmax: std::array::from_fn(|k| u16_at(b, 6 + 2 * k)),
            i: u32_at(b, 12) as i32,
        });
        let off_mesh_cons = sections.take(counts.off_mesh_con, OFF_MESH_CON_SIZE, |b| {
            OffMeshConnection {
                pos: [read_vec3(&b[0..12]), read_vec3(&b[12..24])],
                rad: f32::from_le_bytes([b[24], b[25], b[26], b[27]]),
                poly: u16_at(b, 28),
                flags: b[30],
                side: b[31],
                user_id: u32_at(b, 32),
            }
        });

        if counts.off_mesh_base != counts.detail_mesh {
            return Err(DetourError::InconsistentTile(format!(
                "offMeshBase {} differs from detailMeshCount {}",
                counts.off_mesh_base, counts.detail_mesh
            )));
        }
        let mut tile = MeshTile {
            header,
            verts,
            polys,
            links,
            detail_meshes,
            detail_verts,
            detail_tris,
            bv_tree,
            off_mesh_cons,
            links_free_list: NULL_LINK,
            resolved_detail: ResolvedDetail::default(),
        };
        tile.validate()?;
        tile.check_finite()?;
        tile.resolve_detail();
        Ok(tile)
    }

    /// Refuses NaN and infinite floats: every vertex, detail vertex, off-mesh end point and
    /// radius, and the header's sizes and bounds. Tiles built from finite input pass, so this
    /// changes nothing for them.
    fn check_finite(&self) -> Result<(), DetourError> {
        let h = &self.header;
        let fail = |what: String, value: f32| DetourError::NonFiniteValue {
            x: h.x,
            y: h.y,
            layer: h.layer,
            what,
            value,
        };
        let first_bad = |values: &[f32]| values.iter().copied().find(|v| !v.is_finite());
        let header = [
            ("walkableHeight", &[h.walkable_height][..]),
            ("walkableRadius", &[h.walkable_radius]),
            ("walkableClimb", &[h.walkable_climb]),
            ("bmin", &h.bmin),
            ("bmax", &h.bmax),
            ("bvQuantFactor", &[h.bv_quant_factor]),
        ];
        for (name, values) in header {
            if let Some(value) = first_bad(values) {
                return Err(fail(format!("header {name}"), value));
            }
        }
        for (what, verts) in [
            ("vertex", &self.verts),
            ("detail vertex", &self.detail_verts),
        ] {
            for (i, v) in verts.iter().enumerate() {
                if let Some(value) = first_bad(v) {
                    return Err(fail(format!("{what} {i}"), value));
                }
            }
        }
        for (k, con) in self.off_mesh_cons.iter().enumerate() {
            let parts = [
                ("start", &con.pos[0][..]),
                ("end", &con.pos[1]),
                ("radius", &[con.rad]),
            ];
            for (part, values) in parts {
                if let Some(value) = first_bad(values) {
                    return Err(fail(format!("off-mesh connection {k} {part}"), value));
                }
            }
        }
        Ok(())
    }

    /// Checks the invariants every other part of the crate relies on. Also run on freshly
    /// built tiles in tests.
    pub(crate) fn validate(&self) -> Result<(), DetourError> {
        let poly_count = self.polys.len();
        let ground_count = self.off_mesh_base();
        if ground_count + self.off_mesh_cons.len() != poly_count {
            return Err(DetourError::InconsistentTile(format!(
                "polyCount {poly_count} is not offMeshBase {ground_count} + offMeshConCount {}",
                self.off_mesh_cons.len()
            )));
        }
        for (i, p) in self.polys.iter().enumerate() {
            let off_mesh = i >= ground_count;
            let nv = usize::from(p.vert_count);
            let bad = |reason: String| DetourError::InvalidPoly { poly: i, reason };
            if p.type_bits() != u8::from(off_mesh) {
                return Err(bad(format!(
                    "type {} where a {} poly belongs",
                    p.type_bits(),
                    if off_mesh { "off-mesh" } else { "ground" }
                )));
            }
            let valid_nv = if off_mesh {
                2..=2
            } else {
                3..=VERTS_PER_POLYGON
            };
            if !valid_nv.contains(&nv) {
                return Err(bad(format!("vertex count {nv}")));
            }
            for &v in &p.verts[..nv] {
                if usize::from(v) >= self.verts.len() {
                    return Err(DetourError::IndexOutOfRange {
                        what: "poly vertex of poly",
                        item: i,
                        index: v.into(),
                        limit: self.verts.len(),
                    });
                }
            }
            for (edge, &nei) in p.neis[..nv].iter().enumerate() {
                let valid = if nei & EXT_LINK != 0 {
                    matches!(nei & !EXT_LINK, 0 | 2 | 4 | 6)
                } else {
                    usize::from(nei) <= poly_count
                };
                if !valid {
                    return Err(bad(format!("edge {edge} has neighbour code {nei:#06x}")));
                }
            }
        }
        for (i, pd) in self.detail_meshes.iter().enumerate() {
            let in_range = |what, base: u32, count: u8, len: usize| {
                let end = u64::from(base) + u64::from(count);
                if end > len as u64 {
                    return Err(DetourError::IndexOutOfRange {
                        what,
                        item: i,
                        index: end as i64,
                        limit: len,
                    });
                }
                Ok(end as usize)
            };
            let detail_verts = self.detail_verts.len();
            in_range(
                "detail vertex end of poly",
                pd.vert_base,
                pd.vert_count,
                detail_verts,
            )?;
            let tris_end = in_range(
                "detail triangle end of poly",
                pd.tri_base,
                pd.tri_count,
                self.detail_tris.len(),
            )?;
            let local_verts = usize::from(self.polys[i].vert_count) + usize::from(pd.vert_count);
            let tris = &self.detail_tris[pd.tri_base as usize..tris_end];
            for (t, tri) in tris.iter().enumerate() {
                if let Some(&index) = tri[..3].iter().find(|&&k| usize::from(k) >= local_verts) {
                    return Err(DetourError::IndexOutOfRange {
                        what: "detail triangle vertex of triangle",
                        item: pd.tri_base as usize + t,
                        index: index.into(),
                        limit: local_verts,
                    });
                }
            }
        }
        let node_count = self.bv_tree.len();
        for (n, node) in self.bv_tree.iter().enumerate() {
            let i = i64::from(node.i);
            let valid = if i >= 0 {
                i < poly_count as i64
            } else {
                n as i64 - i <= node_count as i64
            };
            if !valid {
                return Err(DetourError::IndexOutOfRange {
                    what: "BV node",
                    item: n,
                    index: i,
                    limit: if i >= 0 { poly_count } else { node_count },
                });
            }
        }
        for (k, con) in self.off_mesh_cons.iter().enumerate() {
            if usize::from(con.poly) != ground_count + k {
                return Err(DetourError::IndexOutOfRange {
                    what: "poly of off-mesh connection",
                    item: k,
                    index: con.poly.into(),
                    limit: poly_count,
                });
            }
        }
        Ok(())
    }

    /// A copy with every link slot zeroed, as [`crate::detour::create_nav_mesh_data`] makes
    /// it: adding it to a navmesh then gives the same bytes whatever links it had before.
    pub fn with_links_cleared(&self) -> MeshTile {
        let mut tile = self.clone();
        tile.links.fill(Link::default());
        for poly in &mut tile.polys {
            poly.first_link = 0;
        }
        tile
    }

    /// Makes this tile a copy of `source`, in the memory its arrays already have (a tile cache
    /// replacing a tile copies the new one into the old one's memory).
    pub fn assign_from(&mut self, source: &MeshTile) {
        self.header = source.header;
        self.verts.clone_from(&source.verts);
        self.polys.clone_from(&source.polys);
        self.links.clone_from(&source.links);
        self.detail_meshes.clone_from(&source.detail_meshes);
        self.detail_verts.clone_from(&source.detail_verts);
        self.detail_tris.clone_from(&source.detail_tris);
        self.bv_tree.clone_from(&source.bv_tree);
        self.off_mesh_cons.clone_from(&source.off_mesh_cons);
        self.links_free_list = source.links_free_list;
        let (resolved, from) = (&mut self.resolved_detail, &source.resolved_detail);
        resolved.start.clone_from(&from.start);
        resolved.tri_verts.clone_from(&from.tri_verts);
    }

    /// Fills [`MeshTile::resolved_detail`] from the detail arrays; the indices must be valid
    /// (as tiles guarantee).
    pub(crate) fn resolve_detail(&mut self) {
        let mut resolved = std::mem::take(&mut self.resolved_detail);
        resolved.start.clear();
        let mut total = 0;
        resolved.start.extend(self.detail_meshes.iter().map(|pd| {
            let start = total;
            total += u32::from(pd.tri_count);
            start
        }));
        resolved.tri_verts.clear();
        resolved.tri_verts.resize(total as usize, [[0.0; 3]; 3]);
        let mut rest = resolved.tri_verts.as_mut_slice();
        for (p, pd) in self.polys.iter().zip(&self.detail_meshes) {
            let (out, next) = rest.split_at_mut(usize::from(pd.tri_count));
            self.resolve_poly_tris(p, pd, out);
            rest = next;
        }
        self.resolved_detail = resolved;
    }

    /// Updates [`MeshTile::resolved_detail`] after vertex `v` moved (an off-mesh end snapped
    /// onto the mesh; only hostile data shares such a vertex with a ground polygon).
    pub(crate) fn refresh_resolved_vertex(&mut self, v: usize) {
        let mut resolved = std::mem::take(&mut self.resolved_detail);
        for (i, (p, pd)) in self.polys.iter().zip(&self.detail_meshes).enumerate() {
            if p.vertex_indices().iter().any(|&k| usize::from(k) == v) {
                let start = resolved.start[i] as usize;
                let out = &mut resolved.tri_verts[start..start + usize::from(pd.tri_count)];
                self.resolve_poly_tris(p, pd, out);
            }
        }
        self.resolved_detail = resolved;
    }

    /// Writes the vertex positions of polygon `p`'s detail triangles into `out`, one entry
    /// per triangle.
    fn resolve_poly_tris(&self, p: &Poly, pd: &PolyDetail, out: &mut [[Vec3; 3]]) {
        let tri_base = pd.tri_base as usize;
        let tris = &self.detail_tris[tri_base..tri_base + usize::from(pd.tri_count)];
        let vert_base = pd.vert_base as usize;
        let extra = &self.detail_verts[vert_base..vert_base + usize::from(pd.vert_count)];
        let indices = p.vertex_indices();
        for (t, slot) in tris.iter().zip(out) {
            for (v, &k) in slot.iter_mut().zip(&t[..3]) {
                let k = usize::from(k);
                *v = match indices.get(k) {
                    Some(&i) => self.verts[usize::from(i)],
                    None => extra[k - indices.len()],
                };
            }
        }
    }

    /// Resets the link free list so every link slot is unused, as `addTile` does.
    pub(crate) fn reset_links(&mut self) {
        let n = self.links.len();
        for (i, link) in self.links.iter_mut().enumerate() {
            link.next = if i + 1 < n { (i + 1) as u32 } else { NULL_LINK };
        }
        self.links_free_list = if n == 0 { NULL_LINK } else { 0 };
    }

    /// Takes a link slot from the free list (`allocLink`).
    pub(crate) fn alloc_link(&mut self) -> Option<usize> {
        if self.links_free_list == NULL_LINK {
            return None;
        }
        let link = self.links_free_list as usize;
        self.links_free_list = self.links[link].next;
        Some(link)
    }

    /// Returns a link slot to the free list (`freeLink`).
    pub(crate) fn free_link(&mut self, link: usize) {
        self.links[link].next = self.links_free_list;
        self.links_free_list = link as u32;
    }

    /// Fills link slot `index` and pushes it onto `poly`'s list.
    pub(crate) fn push_link(&mut self, poly: usize, index: usize, mut link: Link) {
        link.next = self.polys[poly].first_link;
        self.links[index] = link;
        self.polys[poly].first_link = index as u32;
    }

    /// A local detail-triangle vertex index resolved to a position.
    #[inline]
    pub(crate) fn detail_vertex(&self, poly: &Poly, pd: &PolyDetail, k: u8) -> Vec3 {
        if k < poly.vert_count {
            self.verts[usize::from(poly.verts[usize::from(k)])]
        } else {
            self.detail_verts[pd.vert_base as usize + usize::from(k - poly.vert_count)]
        }
    }

    /// The positions of polygon `poly`'s vertices (the first `n` of the array), or `None`
    /// for an index past the tile's polygons.
    pub fn poly_vertices(&self, poly: usize) -> Option<([Vec3; VERTS_PER_POLYGON], usize)> {
        Some(self.vertices_of(self.polys.get(poly)?))
    }

    /// The walls of this tile's ground polygons, in polygon order, with `tile_ref` (the tile's
    /// reference in its navmesh) naming their polygons: edges without a neighbour, and
    /// tile-border edges no link crosses.
    pub fn boundary_edges(
        &self,
        tile_ref: super::TileRef,
    ) -> impl Iterator<Item = BoundaryEdge> + '_ {
        self.polys.iter().enumerate().flat_map(move |(poly, p)| {
            let corners = (!p.is_off_mesh_connection()).then(|| self.vertices_of(p));
            let (corners, n) = corners.unwrap_or(([[0.0; 3]; VERTS_PER_POLYGON], 0));
            (0..n).filter_map(move |edge| {
                let nei = p.neis[edge];
                let wall = nei == 0
                    || (nei & EXT_LINK != 0
                        && !self
                            .poly_links(poly)
                            .any(|(_, link)| usize::from(link.edge) == edge));
                wall.then(|| BoundaryEdge {
                    poly: tile_ref | poly as super::PolyRef,
                    ends: [corners[edge], corners[(edge + 1) % n]],
                })
            })
        })
    }

    fn vertices_of(&self, poly: &Poly) -> ([Vec3; VERTS_PER_POLYGON], usize) {
        let mut out = [[0.0; 3]; VERTS_PER_POLYGON];
        let indices = poly.vertex_indices();
        for (o, &v) in out.iter_mut().zip(indices) {
            *o = self.verts[usize::from(v)];
        }
        (out, indices.len())
    }

    /// Ground polygon `poly`'s vertices and detail data, sliced once so the surface
    /// queries below index them without further lookups.
    #[inline]
    fn detail_view(&self, poly: usize) -> Option<DetailView<'_>> {
        let p = self.polys.get(poly)?;
        let pd = self.detail_meshes.get(poly)?;
        let tri_base = pd.tri_base as usize;
        let tris = self
            .detail_tris
            .get(tri_base..tri_base + usize::from(pd.tri_count))?;
        let start = *self.resolved_detail.start.get(poly)? as usize;
        let tri_verts = self
            .resolved_detail
            .tri_verts
            .get(start..start + tris.len())?;
        Some(DetailView {
            tile_verts: &self.verts,
            indices: p.vertex_indices(),
            tris,
            tri_verts,
        })
    }

    /// The surface height of ground polygon `poly` at `pos`, if `pos` lies over it in xz
    /// (`dtNavMesh::getPolyHeight`).
    pub fn poly_height(&self, poly: usize, pos: &Vec3) -> Option<f32> {
        if self.polys.get(poly)?.is_off_mesh_connection() {
            return None;
        }
        let view = self.detail_view(poly)?;
        if !view.contains(pos) {
            return None;
        }
        Some(view.height_at(pos))
    }

    /// The closest point to `pos` on the detail mesh edges of ground polygon `poly`, only the
    /// boundary edges if `only_boundary` (`closestPointOnDetailEdges`). `None` when the polygon
    /// has no such edge.
    pub fn closest_point_on_detail_edges(
        &self,
        poly: usize,
        pos: &Vec3,
        only_boundary: bool,
    ) -> Option<Vec3> {
        self.detail_view(poly)?.closest_on_edges(pos, only_boundary)
    }

    /// The point of polygon `poly` closest to `pos`, and whether `pos` lies over it
    /// (`dtNavMesh::closestPointOnPoly`).
    pub fn closest_point_on_poly(&self, poly: usize, pos: &Vec3) -> (Vec3, bool) {
        let mut closest = *pos;
        let Some(p) = self.polys.get(poly) else {
            return (closest, false);
        };
        if p.is_off_mesh_connection() {
            let v0 = &self.verts[usize::from(p.verts[0])];
            let v1 = &self.verts[usize::from(p.verts[1])];
            let (_, t) = common::distance_pt_seg_sqr_2d(pos, v0, v1);
            return (common::vlerp(v0, v1, t), false);
        }
        let Some(view) = self.detail_view(poly) else {
            return (closest, false);
        };
        if view.contains(pos) {
            closest[1] = view.height_at(pos);
            return (closest, true);
        }
        // C++ reads a null pointer when no boundary edge exists; keep `pos` then.
        let closest = view.closest_on_edges(pos, true).unwrap_or(closest);
        (closest, false)
    }

    /// The ground polygon nearest to `center` within `half_extents`, preferring polygons
    /// right under or over it within climb height, and the nearest point on it
    /// (`dtNavMesh::findNearestPolyInTile`, searching at most 128 candidates).
    pub fn find_nearest_poly(&self, center: &Vec3, half_extents: &Vec3) -> Option<(usize, Vec3)> {
        const MAX_CANDIDATES: usize = 128;
        let bmin = common::vsub(center, half_extents);
        let bmax = common::vadd(center, half_extents);
        let mut nearest = None;
        let mut nearest_distance_sqr = f32::MAX;
        for poly in self.query_polygons(&bmin, &bmax, MAX_CANDIDATES) {
            let (closest, over_poly) = self.closest_point_on_poly(poly, center);
            let diff = common::vsub(center, &closest);
            let d = if over_poly {
                let d = common::abs(diff[1]) - self.header.walkable_climb;
                if d > 0.0 { d * d } else { 0.0 }
            } else {
                common::vlen_sqr(&diff)
            };
            if d < nearest_distance_sqr {
                nearest_distance_sqr = d;
                nearest = Some((poly, closest));
            }
        }
        nearest
    }

    /// Indices of the ground polygons whose bounds overlap the box, in BV-tree order (or poly
    /// order without a tree), at most `max` of them (`queryPolygonsInTile`).
    pub fn query_polygons(&self, qmin: &Vec3, qmax: &Vec3, max: usize) -> Vec<usize> {
        let mut out = Vec::new();
        if max == 0 {
            return out;
        }
        if self.bv_tree.is_empty() {
            for (i, p) in self.polys.iter().enumerate() {
                if p.is_off_mesh_connection() {
                    continue;
                }
                let (verts, nv) = self.vertices_of(p);
                let mut bmin = verts[0];
                let mut bmax = verts[0];
                for v in &verts[1..nv] {
                    common::vmin(&mut bmin, v);
                    common::vmax(&mut bmax, v);
                }
                if common::overlap_bounds(qmin, qmax, &bmin, &bmax) {
                    out.push(i);
                    // C++ scans on but adds nothing more: stopping gives the same list, and
                    // bounds the work when many off-mesh connections land on one tile.
                    if out.len() >= max {
                        break;
                    }
                }
            }
            return out;
        }
        let (tbmin, tbmax) = (&self.header.bmin, &self.header.bmax);
        let qfac = self.header.bv_quant_factor;
        let local = |q: &Vec3, k: usize| common::clamp(q[k], tbmin[k], tbmax[k]) - tbmin[k];
        let bmin: [u16; 3] =
            std::array::from_fn(|k| common::f32_to_u16_wrapping(qfac * local(qmin, k)) & 0xfffe);
        let bmax: [u16; 3] =
            std::array::from_fn(|k| common::f32_to_u16_wrapping(qfac * local(qmax, k) + 1.0) | 1);
        let mut n = 0;
        while let Some(node) = self.bv_tree.get(n) {
            let overlap = common::overlap_quant_bounds(&bmin, &bmax, &node.bmin, &node.bmax);
            let leaf = node.i >= 0;
            if leaf && overlap {
                out.push(node.i as usize);
                if out.len() >= max {
                    break;
                }
            }
            if overlap || leaf {
                n += 1;
            } else {
                n += node.i.unsigned_abs() as usize;
            }
        }
        out
    }
}

/// The links of one polygon, following `next`. Lists are well formed once the tile is in a
/// navmesh; on a tile fresh from [`MeshTile::from_bytes`] they are whatever the file held,
/// so the walk also stops after visiting as many links as there are.
pub struct PolyLinks<'a> {
    links: &'a [Link],
    next: u32,
    remaining: usize,
}

impl<'a> Iterator for PolyLinks<'a> {
    /// Link slot index and link.
    type Item = (usize, &'a Link);

    fn next(&mut self) -> Option<Self::Item> {
        self.remaining = self.remaining.checked_sub(1)?;
        let index = self.next as usize;
        let link = self.links.get(index)?;
        self.next = link.next;
        Some((index, link))
    }
}

/// Splits the body of a tile into its sections.
struct Sections<'a> {
    rest: &'a [u8],
}

impl Sections<'_> {
    /// Decodes the next `count` records of `size` bytes; the total size was checked before.
    fn take<T>(&mut self, count: usize, size: usize, decode: impl Fn(&[u8]) -> T) -> Vec<T> {
        let (section, rest) = self.rest.split_at(count * size);
        self.rest = rest;
        section.chunks_exact(size).map(decode).collect()
    }
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn read_vec3(b: &[u8]) -> Vec3 {
    [0, 4, 8].map(|at| f32::from_bits(u32_at(b, at)))
}
/// The little-endian i32 at byte `at` (the files are written on little-endian machines).
pub fn i32_at(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The little-endian f32 at byte `at`.
pub fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_bits(i32_at(b, at) as u32)
}

pub(crate) fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub(crate) fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub(crate) fn put_i32(out: &mut Vec<u8>, v: i32) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub(crate) fn put_f32(out: &mut Vec<u8>, v: f32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_vec3(out: &mut Vec<u8>, v: &Vec3) {
    v.iter().for_each(|&c| put_f32(out, c));
}

/// A ground polygon's vertices and detail triangles ([`MeshTile::detail_view`]). The
/// polygon's vertices are read through its indices where needed rather than copied out first.
struct DetailView<'t> {
    tile_verts: &'t [Vec3],
    /// The polygon's indices into `tile_verts`.
    indices: &'t [u16],
    tris: &'t [[u8; 4]],
    /// The vertex positions of each of `tris` ([`ResolvedDetail`]).
    tri_verts: &'t [[Vec3; 3]],
}

impl DetailView<'_> {
    /// Polygon vertex `k`.
    #[inline]
    fn poly_vertex(&self, k: usize) -> Vec3 {
        self.tile_verts[usize::from(self.indices[k])]
    }

    /// Whether `pt` lies over the polygon in xz (`dtPointInPolygon`'s crossing test, on the
    /// polygon's vertices in place).
    #[inline]
    fn contains(&self, pt: &Vec3) -> bool {
        let n = self.indices.len();
        if n == 0 {
            return false;
        }
        let mut inside = false;
        let mut vj = self.poly_vertex(n - 1);
        for k in 0..n {
            let vi = self.poly_vertex(k);
            if ((vi[2] > pt[2]) != (vj[2] > pt[2]))
                && (pt[0] < (vj[0] - vi[0]) * (pt[2] - vi[2]) / (vj[2] - vi[2]) + vi[0])
            {
                inside = !inside;
            }
            vj = vi;
        }
        inside
    }

    /// The height at `pos` (inside the polygon in xz) on the first detail triangle that
    /// contains it.
    fn height_at(&self, pos: &Vec3) -> f32 {
        for v in self.tri_verts {
            if let Some(h) = common::closest_height_point_triangle(pos, &v[0], &v[1], &v[2]) {
                return h;
            }
        }
        // Every triangle test failed (degenerate triangles or large coordinates), so the point
        // is on an edge: use the closest edge point. C++ reads a null pointer when the poly
        // has no edge at all; this keeps the query point's own height then.
        self.closest_on_edges(pos, false).map_or(pos[1], |c| c[1])
    }

    /// `closestPointOnDetailEdges`.
    fn closest_on_edges(&self, pos: &Vec3, only_boundary: bool) -> Option<Vec3> {
        const ANY_BOUNDARY_EDGE: u8 =
            DETAIL_EDGE_BOUNDARY | (DETAIL_EDGE_BOUNDARY << 2) | (DETAIL_EDGE_BOUNDARY << 4);
        let mut dmin = f32::MAX;
        let mut best: Option<(Vec3, Vec3, f32)> = None;
        for (t, v) in self.tris.iter().zip(self.tri_verts) {
            if only_boundary && t[3] & ANY_BOUNDARY_EDGE == 0 {
                continue;
            }
            let mut j = 2;
            for k in 0..3 {
                let boundary = detail_tri_edge_flags(t[3], j) & DETAIL_EDGE_BOUNDARY != 0;
                // Skip inner edges when only the boundary counts, and visit each inner edge
                // once (from its lower index) otherwise.
                if boundary || (!only_boundary && t[j] >= t[k]) {
                    let (d, tt) = common::distance_pt_seg_sqr_2d(pos, &v[j], &v[k]);
                    if d < dmin {
                        dmin = d;
                        best = Some((v[j], v[k], tt));
                    }
                }
                j = k;
            }
        }
        best.map(|(a, b, t)| common::vlerp(&a, &b, t))
    }
}

#[cfg(test)]
mod tests {
    use crate::detour::nav_mesh_builder::NavMeshCreateParams;
    use crate::detour::{NavMesh, OffMeshConnectionParams, RefWidth, create_nav_mesh_data};

    /// Hostile data can give an off-mesh connection's start the vertex of ground polygons;
    /// linking the tile snaps that vertex, and their resolved detail triangles must follow.
    #[test]
    fn resolved_detail_follows_a_snapped_shared_vertex() {
        // Two unit cells side by side (x 0..2, z 0..1); vertex z * 3 + x.
        let verts: Vec<u16> = [[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1]]
            .iter()
            .flat_map(|&[x, z]| [x, 0, z])
            .collect();
        const NONE: u16 = 0xffff;
        let polys = [
            [0, 3, 4, 1, NONE, NONE, NONE, NONE, 1, NONE, NONE, NONE],
            [1, 4, 5, 2, NONE, NONE, 0, NONE, NONE, NONE, NONE, NONE],
        ]
        .concat();
        let off_mesh = [OffMeshConnectionParams {
            start: [0.5, 0.0, 0.5],
            end: [1.5, 0.0, 0.5],
            radius: 0.3,
            bidirectional: true,
            area: 0,
            flags: 1,
            user_id: 0,
        }];
        let params = NavMeshCreateParams {
            verts: &verts,
            polys: &polys,
            poly_flags: &[1, 1],
            poly_areas: &[0, 0],
            nvp: 6,
            detail: None,
            off_mesh_connections: &off_mesh,
            user_id: 0,
            tile_x: 0,
            tile_y: 0,
            tile_layer: 0,
            bmin: [0.0; 3],
            bmax: [2.0, 1.0, 1.0],
            walkable_height: 2.0,
            walkable_radius: 0.3,
            walkable_climb: 0.5,
            cs: 1.0,
            ch: 1.0,
            build_bv_tree: true,
        };
        let mut tile = create_nav_mesh_data(&params).expect("a valid tile");
        // The connection's polygon follows the two ground polygons; share the middle vertex.
        tile.polys[2].verts[0] = 4;
        let nav = NavMesh::new_solo(tile, RefWidth::Bits32).expect("links");
        let tile = nav.tile(0).expect("the tile");
        assert_eq!(
            tile.verts()[4],
            [0.5, 0.0, 0.5],
            "the start snapped the vertex"
        );
        for (poly, pd) in tile.detail_meshes().iter().enumerate() {
            let start = tile.resolved_detail.start[poly] as usize;
            for tri in 0..usize::from(pd.tri_count) {
                assert_eq!(
                    Some(tile.resolved_detail.tri_verts[start + tri]),
                    tile.detail_tri_vertices(poly, tri),
                    "poly {poly} triangle {tri}"
                );
            }
        }
    }
}
