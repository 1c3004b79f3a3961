//! The built navmesh surface as a mesh for other tools: the detail mesh's triangles (the
//! polygons with their height detail, what Detour's `getPolyHeight` walks on), grouped by the
//! polygon's area, written as Wavefront OBJ (one `g area_<id>` group per area) or glTF 2.0 (one
//! node, one mesh, one primitive per area; binary `.glb`, or `.gltf` with the buffer embedded as
//! a base64 data URI).
//!
//! This lives in `bake` because it joins two stages' outputs, the poly mesh's areas and the
//! detail mesh's triangles, and names areas as the navmesh stores them: RecastDemo's rule
//! ([`sample_area_flags`]) makes Recast's walkable area 63 the ground area 0, which the solo
//! build applies only to the copy it hands Detour and the tiled build to each tile's poly mesh,
//! so both export the same ids. A tiled build exports all its tiles' detail meshes as one mesh.
//!
//! Nothing is merged or dropped: every detail triangle is written once (a polygon's detail
//! vertices are its own, as in Detour's tiles), so the triangle count is the detail mesh's.
//! Positions are Recast's, Y up, unless [`ExportOptions::z_up`] turns them to Z up with
//! `(x, y, z) → (x, -z, y)`, a rotation (determinant 1) that keeps every triangle's winding
//! front-facing, and [`ExportOptions::scale`] multiplies them by a positive factor, which keeps
//! it too. glTF itself is Y up, so `z_up` is for consumers that read glTF files as Z up.

use std::io::Write;
use std::path::Path;

#[cfg(feature = "gltf")]
use serde_json::{Value, json};

use crate::bake::sample_areas::sample_area_flags;
use crate::bake::solo::Build;
use crate::bake::tiled::TiledBuild;
use crate::error::{NavlabError, Result};
use crate::recast::detail_mesh::PolyMeshDetail;
use crate::recast::poly_mesh::PolyMesh;

// glTF's component type for 32-bit floats and unsigned ints, its buffer targets and its
// `TRIANGLES` primitive mode.
#[cfg(feature = "gltf")]
const GL_FLOAT: u32 = 5126;
#[cfg(feature = "gltf")]
const GL_UNSIGNED_INT: u32 = 5125;
#[cfg(feature = "gltf")]
const GL_ARRAY_BUFFER: u32 = 34962;
#[cfg(feature = "gltf")]
const GL_ELEMENT_ARRAY_BUFFER: u32 = 34963;
#[cfg(feature = "gltf")]
const GL_TRIANGLES: u32 = 4;

/// How exported positions are laid out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExportOptions {
    /// Z up instead of Recast's Y up: `(x, y, z)` becomes `(x, -z, y)`.
    pub z_up: bool,
    /// A uniform factor for every coordinate (unit conversion); positive and finite.
    pub scale: f32,
}

impl Default for ExportOptions {
    fn default() -> Self {
        Self {
            z_up: false,
            scale: 1.0,
        }
    }
}

impl ExportOptions {
    /// `p` laid out as the options say.
    fn apply(&self, [x, y, z]: [f32; 3]) -> [f32; 3] {
        let p = if self.z_up { [x, -z, y] } else { [x, y, z] };
        p.map(|c| c * self.scale)
    }
}

/// One area's detail triangles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AreaMesh {
    /// The area id as the navmesh stores it.
    pub area: u8,
    /// Positions, 3 floats each, laid out by the [`ExportOptions`].
    pub verts: Vec<f32>,
    /// Triangles, 3 indices into `verts` each, counter-clockwise seen from their front.
    pub tris: Vec<u32>,
}

impl AreaMesh {
    /// Number of triangles.
    pub fn tri_count(&self) -> usize {
        self.tris.len() / 3
    }
}

/// The detail triangles of poly mesh / detail mesh pairs (a solo build's one, or a tiled
/// build's tiles), one [`AreaMesh`] per area id in ascending order. Each polygon's detail
/// vertices and triangles are copied in polygon order.
pub fn detail_by_area<'a>(
    meshes: impl IntoIterator<Item = (&'a PolyMesh, &'a PolyMeshDetail)>,
    options: ExportOptions,
) -> Result<Vec<AreaMesh>> {
    if !(options.scale.is_finite() && options.scale > 0.0) {
        return Err(NavlabError::InvalidSetting {
            name: "export-scale",
            value: options.scale.to_string(),
            reason: "must be a positive finite number".into(),
        });
    }
    let mut by_area: Vec<AreaMesh> = (0..=u8::MAX)
        .map(|area| AreaMesh {
            area,
            ..Default::default()
        })
        .collect();
    for (poly_mesh, detail) in meshes {
        let bad = |what: String| NavlabError::Stage {
            stage: "export",
            message: format!("the detail mesh does not match its poly mesh: {what}"),
        };
        if detail.nmeshes() != poly_mesh.npolys {
            return Err(bad(format!(
                "{} sub-meshes for {} polygons",
                detail.nmeshes(),
                poly_mesh.npolys
            )));
        }
        for (poly, sub) in detail.meshes.chunks_exact(4).enumerate() {
            let [vbase, nverts, tbase, ntris] =
                [sub[0], sub[1], sub[2], sub[3]].map(|v| v as usize);
            let area = poly_mesh
                .areas
                .get(poly)
                .ok_or_else(|| bad(format!("polygon {poly} has no area")))?;
            let out = &mut by_area[usize::from(sample_area_flags(*area, 0).0)];
            let verts = detail
                .verts
                .get(vbase * 3..(vbase + nverts) * 3)
                .ok_or_else(|| bad(format!("polygon {poly}'s vertices are out of range")))?;
            let tris = detail
                .tris
                .get(tbase * 4..(tbase + ntris) * 4)
                .ok_or_else(|| bad(format!("polygon {poly}'s triangles are out of range")))?;
            let first = out.verts.len() / 3;
            if first + nverts > u32::MAX as usize {
                return Err(bad("more vertices than 32-bit indices hold".into()));
            }
            for v in verts.chunks_exact(3) {
                let p = options.apply([v[0], v[1], v[2]]);
                if p.iter().any(|c| !c.is_finite()) {
                    return Err(NavlabError::InvalidSetting {
                        name: "export-scale",
                        value: options.scale.to_string(),
                        reason: "makes a coordinate overflow; use a smaller scale".into(),
                    });
                }
                out.verts.extend_from_slice(&p);
            }
            for t in tris.chunks_exact(4) {
                if t[..3].iter().any(|&i| usize::from(i) >= nverts) {
                    return Err(bad(format!("polygon {poly} has a triangle out of range")));
                }
                out.tris
                    .extend(t[..3].iter().map(|&i| (first + usize::from(i)) as u32));
            }
        }
    }
    by_area.retain(|mesh| !mesh.tris.is_empty());
    Ok(by_area)
}

/// A solo build's detail mesh by area.
pub fn solo_detail_by_area(build: &Build, options: ExportOptions) -> Result<Vec<AreaMesh>> {
    detail_by_area([(&*build.poly_mesh, &*build.detail_mesh)], options)
}

/// Every built tile's detail mesh by area, as one mesh.
pub fn tiled_detail_by_area(build: &TiledBuild, options: ExportOptions) -> Result<Vec<AreaMesh>> {
    let tiles = build
        .tiles
        .iter()
        .filter_map(|tile| tile.output.as_ref().ok());
    detail_by_area(tiles.map(|t| (&t.poly_mesh, &t.detail_mesh)), options)
}

/// Writes the areas as OBJ: all vertices of an area, then `g area_<id>` and its faces.
pub fn write_obj(areas: &[AreaMesh], mut out: impl Write) -> std::io::Result<()> {
    let tris: usize = areas.iter().map(AreaMesh::tri_count).sum();
    let plural = if areas.len() == 1 { "" } else { "s" };
    writeln!(
        out,
        "# Navlab navmesh detail mesh: {tris} triangles in {} area{plural}",
        areas.len()
    )?;
    let mut base = 1usize;
    for area in areas {
        for v in area.verts.chunks_exact(3) {
            writeln!(out, "v {} {} {}", v[0], v[1], v[2])?;
        }
        writeln!(out, "g area_{}", area.area)?;
        for t in area.tris.chunks_exact(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| base + i as usize);
            writeln!(out, "f {a} {b} {c}")?;
        }
        base += area.verts.len() / 3;
    }
    Ok(())
}

#[cfg(feature = "gltf")]
/// The areas as a glTF document and its one buffer: one node, one mesh, one primitive per
/// area (material `area_<id>`, extras `{"area": id}`), positions with their bounds (the
/// specification requires `min` and `max` for `POSITION`), 32-bit indices.
fn gltf_document(areas: &[AreaMesh], buffer_uri: Option<&str>, bin_len: usize) -> Value {
    let mut accessors = Vec::new();
    let mut views = Vec::new();
    let mut primitives = Vec::new();
    let mut materials = Vec::new();
    let mut offset = 0usize;
    let mut view = |len: usize, target: u32| {
        views.push(json!({
            "buffer": 0, "byteOffset": offset, "byteLength": len, "target": target,
        }));
        offset += len;
        views.len() - 1
    };
    for (i, area) in areas.iter().enumerate() {
        let (min, max) = crate::input::obj::calc_bounds(&area.verts);
        let positions = view(area.verts.len() * 4, GL_ARRAY_BUFFER);
        let indices = view(area.tris.len() * 4, GL_ELEMENT_ARRAY_BUFFER);
        accessors.push(json!({
            "bufferView": positions, "componentType": GL_FLOAT, "count": area.verts.len() / 3,
            "type": "VEC3", "min": min, "max": max,
        }));
        accessors.push(json!({
            "bufferView": indices, "componentType": GL_UNSIGNED_INT, "count": area.tris.len(),
            "type": "SCALAR",
        }));
        materials.push(json!({ "name": format!("area_{}", area.area) }));
        primitives.push(json!({
            "attributes": { "POSITION": 2 * i }, "indices": 2 * i + 1, "mode": GL_TRIANGLES,
            "material": i, "extras": { "area": area.area },
        }));
    }
    let mut buffer = json!({ "byteLength": bin_len });
    if let Some(uri) = buffer_uri {
        buffer["uri"] = json!(uri);
    }
    json!({
        "asset": { "version": "2.0", "generator": "Navlab" },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "name": "navmesh", "mesh": 0 }],
        "meshes": [{ "name": "navmesh detail", "primitives": primitives }],
        "materials": materials,
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [buffer],
    })
}

#[cfg(feature = "gltf")]
/// Every area's positions then its indices, little-endian, as [`gltf_document`]'s views lay
/// them out (each a multiple of 4 bytes, so every view is aligned).
fn gltf_buffer(areas: &[AreaMesh]) -> Vec<u8> {
    let len = areas
        .iter()
        .map(|a| (a.verts.len() + a.tris.len()) * 4)
        .sum();
    let mut bin = Vec::with_capacity(len);
    for area in areas {
        bin.extend(area.verts.iter().flat_map(|v| v.to_le_bytes()));
        bin.extend(area.tris.iter().flat_map(|i| i.to_le_bytes()));
    }
    bin
}

#[cfg(feature = "gltf")]
fn nothing_to_export() -> NavlabError {
    NavlabError::Stage {
        stage: "export",
        message: "the detail mesh has no triangles to export".into(),
    }
}

#[cfg(feature = "gltf")]
/// The areas as a binary glTF (`.glb`).
pub fn glb_bytes(areas: &[AreaMesh]) -> Result<Vec<u8>> {
    if areas.is_empty() {
        return Err(nothing_to_export());
    }
    let bin = gltf_buffer(areas);
    pack_glb(&gltf_document(areas, None, bin.len()), &bin)
}

#[cfg(feature = "gltf")]
/// The areas as a `.gltf` JSON file with the buffer embedded as a base64 data URI (a third
/// larger than `.glb`, but one self-contained text file).
pub fn gltf_embedded(areas: &[AreaMesh]) -> Result<String> {
    if areas.is_empty() {
        return Err(nothing_to_export());
    }
    let bin = gltf_buffer(areas);
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        encode_base64(&bin)
    );
    Ok(gltf_document(areas, Some(&uri), bin.len()).to_string())
}

#[cfg(feature = "gltf")]
/// A GLB container of a glTF document and its binary buffer: the 12-byte header, the JSON chunk
/// padded with spaces and the `BIN` chunk (left out when empty) padded with zeros to 4 bytes,
/// as the specification requires.
pub fn pack_glb(document: &Value, bin: &[u8]) -> Result<Vec<u8>> {
    let mut json = document.to_string().into_bytes();
    json.resize(json.len().next_multiple_of(4), b' ');
    let bin_padded = bin.len().next_multiple_of(4);
    let bin_chunk = if bin.is_empty() { 0 } else { 8 + bin_padded };
    let total = 12 + 8 + json.len() + bin_chunk;
    let too_large = || NavlabError::Stage {
        stage: "export",
        message: format!("a GLB file holds at most 4 GiB; this one would be {total} bytes"),
    };
    let length = u32::try_from(total).map_err(|_| too_large())?;
    let mut glb = Vec::with_capacity(total);
    glb.extend_from_slice(b"glTF");
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&length.to_le_bytes());
    // Both chunk lengths are below `total`, which fits in u32.
    glb.extend_from_slice(&(json.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&json);
    if !bin.is_empty() {
        glb.extend_from_slice(&(bin_padded as u32).to_le_bytes());
        glb.extend_from_slice(b"BIN\0");
        glb.extend_from_slice(bin);
        glb.resize(total, 0);
    }
    Ok(glb)
}

/// Writes the areas as OBJ to `path`, whole or not at all.
pub fn save_obj(path: &Path, areas: &[AreaMesh]) -> Result<()> {
    Ok(crate::file::write_atomically_with(path, |part| {
        let mut file = std::io::BufWriter::new(std::fs::File::create(part)?);
        write_obj(areas, &mut file)?;
        file.flush()
    })?)
}

#[cfg(feature = "gltf")]
/// Writes the areas as glTF to `path` (whole or not at all): a `.gltf` extension gets JSON with the buffer embedded,
/// anything else a binary `.glb`.
pub fn save_gltf(path: &Path, areas: &[AreaMesh]) -> Result<()> {
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gltf"));
    let bytes = if is_json {
        gltf_embedded(areas)?.into_bytes()
    } else {
        glb_bytes(areas)?
    };
    Ok(crate::file::write_atomically(path, &bytes)?)
}

#[cfg(feature = "gltf")]
/// Standard base64 with `=` padding (RFC 4648).
fn encode_base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut text = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let bits = group
            .iter()
            .enumerate()
            .fold(0u32, |bits, (i, &b)| bits | u32::from(b) << (16 - 8 * i));
        for k in 0..4 {
            if k <= group.len() {
                text.push(char::from(ALPHABET[(bits >> (18 - 6 * k)) as usize & 63]));
            } else {
                text.push('=');
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "gltf")]
    fn base64_encodes_with_padding() {
        assert_eq!(encode_base64(b"Man"), "TWFu");
        assert_eq!(encode_base64(b"Ma"), "TWE=");
        assert_eq!(encode_base64(b"M"), "TQ==");
        assert_eq!(encode_base64(b""), "");
    }

    #[test]
    fn z_up_is_a_rotation_and_scale_multiplies() {
        let options = ExportOptions {
            z_up: true,
            scale: 2.0,
        };
        assert_eq!(options.apply([1.0, 2.0, 3.0]), [2.0, -6.0, 4.0]);
        assert_eq!(
            ExportOptions::default().apply([1.0, 2.0, 3.0]),
            [1.0, 2.0, 3.0]
        );
    }

    #[test]
    #[cfg(feature = "gltf")]
    fn glb_chunks_are_padded_to_four_bytes() {
        let glb = pack_glb(&json!({"a": 1}), &[1, 2, 3, 4, 5]).unwrap();
        assert_eq!(glb.len() % 4, 0);
        assert_eq!(&glb[..4], b"glTF");
        assert_eq!(
            u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize,
            glb.len()
        );
        let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        assert_eq!(&glb[20..20 + json_len], b"{\"a\":1} ");
        let bin = &glb[20 + json_len..];
        assert_eq!(&bin[..8], [8, 0, 0, 0, b'B', b'I', b'N', 0]);
        assert_eq!(&bin[8..], [1, 2, 3, 4, 5, 0, 0, 0]);
    }
}
