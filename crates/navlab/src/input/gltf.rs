//! Input geometry from glTF 2.0 (`.gltf` with its buffers, or binary `.glb`), as the same
//! [`TriMesh`] the OBJ reader makes.
//!
//! The `gltf` crate parses and validates the JSON document (every index it holds names an
//! existing object); the GLB container, the buffers and the accessors are read here, because
//! their byte ranges are what a hostile or truncated file gets wrong, and each is checked
//! against the bytes actually present before anything is allocated for it.
//!
//! What is read:
//!
//! - **The scene.** The default scene, else the first; nodes are walked depth first in the
//!   document's order, and every primitive of every node's mesh is appended in that order, its
//!   vertices (all of the `POSITION` accessor, used or not, as the OBJ reader keeps every `v`
//!   row) then its triangles. A file whose single mesh sits on an untransformed root node gives
//!   the OBJ reader's mesh of the same vertices and triangles, so the same navmesh.
//! - **Transforms.** A node's local matrix is its `matrix`, or `T * R * S` from its
//!   translation, rotation and scale; a node's world matrix is `parent_world * local`, and a
//!   position `p` becomes `world * (p, 1)` in f32. The identity is skipped rather than applied,
//!   so untransformed positions keep their exact bits (the sign of a zero decides Recast's
//!   bounds). Skins and morph targets are not applied: the mesh is read in its bind pose.
//! - **Winding.** glTF front faces are counter-clockwise, as OBJ faces are and as Recast
//!   expects (a floor's normal `(b - a) × (c - a)` points up), so `(a, b, c)` is kept. A world
//!   matrix with a negative determinant (a mirror) turns front faces around, so its triangles
//!   are written `(a, c, b)`, which keeps floors walkable.
//! - **Primitives.** Triangles, triangle strips and triangle fans (as the glTF specification
//!   turns them into triangles). Points and lines are skipped with a warning; a scene with no
//!   triangle at all is an error.
//! - **Buffers.** The GLB's `BIN` chunk, base64 `data:` URIs, and files named relative to the
//!   `.gltf` (for [`load_gltf`] only: [`parse_gltf`] reads bytes in memory and refuses to open
//!   files). Only the buffers that a used accessor reads are loaded; images are never decoded.
//!
//! Everything else that would make a different mesh than the file describes is an error naming
//! the file, the mesh and the primitive: a position that is not a finite `VEC3` float, an index
//! out of range, an accessor or view past the end of its buffer, sparse accessors, a node
//! reached twice (a cycle), a required extension (Draco, meshopt, quantization), and more than
//! [`MAX_GLTF_VERTICES`] or [`MAX_GLTF_TRIANGLES`], which nodes instancing one mesh many times
//! could otherwise reach from a small file.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use gltf::Document;
use gltf::accessor::{DataType, Dimensions};
use gltf::json::validation::{Checked, Error as Problem, Validate};
use gltf::mesh::{Mode, Semantic};

use crate::input::obj::TriMesh;
use crate::input::{Error, Result};
use crate::warnings::excerpt;

/// The largest `.gltf` or `.glb` file [`load_gltf`] reads, and the most it reads from external
/// buffer files altogether: the OBJ reader's limit.
pub const MAX_GLTF_FILE_BYTES: u64 = crate::input::obj::MAX_OBJ_FILE_BYTES;
/// The most vertices a glTF scene may produce (384 MiB of positions): nodes instancing one
/// mesh multiply it without the file growing, so the budget is on what they make, far above
/// real levels and low enough that the build after it fits in memory.
pub const MAX_GLTF_VERTICES: usize = 1 << 25;
/// The most triangles a glTF scene may produce (384 MiB of indices, as much again of normals).
pub const MAX_GLTF_TRIANGLES: usize = 1 << 25;

/// The warning kind of skipped primitives, as the summary line counts them.
const SKIPPED_PRIMITIVES: &str = "primitives without triangles";
/// How many of the document's validation errors a message lists.
const SHOWN_VALIDATION_ERRORS: usize = 3;
/// How much of a name, URI or parser message a message shows.
const SHOWN_CHARS: usize = 80;

/// A world matrix, column-major as glTF stores it: `m[column][row]`.
type Matrix = [[f32; 4]; 4];

const IDENTITY: Matrix = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

/// Reads a `.gltf` or `.glb` file and the buffer files it names (relative to it), refusing more
/// than [`MAX_GLTF_FILE_BYTES`].
pub fn load_gltf(path: &Path) -> Result<TriMesh> {
    load_gltf_and_buffer_files(path).map(|(mesh, _)| mesh)
}

/// [`load_gltf`], also giving the buffer files it read (which a command must not write over).
pub fn load_gltf_and_buffer_files(path: &Path) -> Result<(TriMesh, Vec<PathBuf>)> {
    let bytes = crate::file::read_capped(path, MAX_GLTF_FILE_BYTES)?;
    let folder = path.parent().unwrap_or(Path::new(""));
    read_gltf(&bytes, path, Some(folder))
}

/// Parses glTF JSON or GLB bytes; `source` names them in errors and warnings. Only the GLB's
/// own buffer and `data:` URIs are read: a buffer in another file is an error, so bytes from
/// anywhere never make this open a file.
pub fn parse_gltf(bytes: &[u8], source: &Path) -> Result<TriMesh> {
    read_gltf(bytes, source, None).map(|(mesh, _)| mesh)
}
/// The scene's triangles, and the buffer files read for them.
fn read_gltf(
    bytes: &[u8],
    source: &Path,
    folder: Option<&Path>,
) -> Result<(TriMesh, Vec<PathBuf>)> {
    let fail = |message: String| invalid(source, message);
    let (json, bin) = if bytes.starts_with(b"glTF") {
        split_glb(bytes).map_err(fail)?
    } else {
        (crate::file::strip_utf8_bom(bytes), None)
    };
    let root = gltf::json::Root::from_slice(json).map_err(|err| {
        fail(format!(
            "not a glTF file: {}",
            excerpt(&err.to_string(), SHOWN_CHARS)
        ))
    })?;
    if let Some(extension) = root.extensions_required.first() {
        return Err(fail(format!(
            "requires the extension `{}`, which Navlab does not read (export the mesh without \
             compression or quantization)",
            excerpt(extension, SHOWN_CHARS)
        )));
    }
    validate(&root).map_err(fail)?;
    let document = Document::from_json_without_validation(root);
    let scene = document
        .default_scene()
        .or_else(|| document.scenes().next())
        .ok_or_else(|| {
            fail("the file has no scene (Navlab builds from the default or first scene)".into())
        })?;
    let mut reader = SceneReader {
        source,
        buffers: Buffers {
            bin,
            folder,
            loaded: vec![None; document.buffers().len()],
            external_budget: MAX_GLTF_FILE_BYTES,
            files: Vec::new(),
        },
        mesh: TriMesh::default(),
        visited: vec![false; document.nodes().len()],
        skipped: 0,
    };
    // Depth first in document order: each node's children go on the stack reversed.
    let mut stack: Vec<(gltf::Node, Matrix)> = scene.nodes().map(|node| (node, IDENTITY)).collect();
    stack.reverse();
    while let Some((node, parent)) = stack.pop() {
        let seen = reader
            .visited
            .get_mut(node.index())
            .ok_or_else(|| fail(format!("node {} is not in the document", node.index())))?;
        if std::mem::replace(seen, true) {
            return Err(fail(format!(
                "node {} is reached twice from the scene (the node hierarchy must be a tree)",
                node.index()
            )));
        }
        let world = multiply(&parent, &node.transform().matrix());
        if let Some(mesh) = node.mesh() {
            for primitive in mesh.primitives() {
                reader.read_primitive(&node, &mesh, &primitive, &world)?;
            }
        }
        let first_child = stack.len();
        stack.extend(node.children().map(|child| (child, world)));
        stack[first_child..].reverse();
    }
    let SceneReader {
        mut mesh,
        skipped,
        buffers,
        ..
    } = reader;
    if mesh.tris.is_empty() {
        let why = if skipped > 0 {
            format!(" ({skipped} points or lines primitives were skipped)")
        } else {
            String::new()
        };
        return Err(fail(format!(
            "the mesh has no triangles: the scene has no triangle primitive{why}"
        )));
    }
    mesh.finish(source)?;
    Ok((mesh, buffers.files))
}

/// The JSON chunk and the optional `BIN` chunk of a GLB container, checked against the bytes
/// present (the header's total length, each chunk's length).
fn split_glb(bytes: &[u8]) -> std::result::Result<(&[u8], Option<&[u8]>), String> {
    let word = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let (Some(version), Some(length)) = (word(4), word(8)) else {
        return Err(format!(
            "truncated GLB: {} bytes, shorter than its 12-byte header",
            bytes.len()
        ));
    };
    if version != 2 {
        return Err(format!(
            "GLB version {version}; Navlab reads glTF 2.0 (version 2)"
        ));
    }
    if u64::from(length) != bytes.len() as u64 {
        let what = if (length as usize) > bytes.len() {
            "truncated GLB"
        } else {
            "bad GLB"
        };
        return Err(format!(
            "{what}: the header says {length} bytes, the file has {}",
            bytes.len()
        ));
    }
    // A chunk's type, its data, and where the next chunk starts.
    let chunk = |at: usize| {
        let (Some(chunk_length), Some(kind)) = (word(at), word(at + 4)) else {
            return Err(format!(
                "truncated GLB: the chunk header at byte {at} is cut"
            ));
        };
        let start = at + 8;
        let data = start
            .checked_add(chunk_length as usize)
            .and_then(|end| bytes.get(start..end))
            .ok_or_else(|| {
                format!(
                    "truncated GLB: the chunk at byte {at} says {chunk_length} bytes, {} remain",
                    bytes.len() - start.min(bytes.len())
                )
            })?;
        Ok((kind.to_le_bytes(), data, start + data.len()))
    };
    let (kind, json, next) = chunk(12)?;
    if &kind != b"JSON" {
        return Err("bad GLB: the first chunk is not the JSON chunk".into());
    }
    // The BIN chunk, if any, comes second; chunks of other types are to be ignored.
    let bin = if next < bytes.len() {
        Some(chunk(next)?).filter(|(kind, ..)| kind == b"BIN\0")
    } else {
        None
    };
    Ok((json, bin.map(|(_, data, _)| data)))
}

/// The `gltf` crate's validation (every index names an existing object, every enum value is
/// known), less one rule: `POSITION` accessors may lack `min` and `max`, which the
/// specification requires but which Navlab computes itself, and which some exporters leave out.
fn validate(root: &gltf::json::Root) -> std::result::Result<(), String> {
    // The crate's primitive check reads the POSITION accessor before checking that it exists
    // (and panics when it does not), so that index is checked first.
    let positions = Checked::Valid(gltf::json::mesh::Semantic::Positions);
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            if primitive
                .attributes
                .get(&positions)
                .is_some_and(|index| index.value() >= root.accessors.len())
            {
                return Err(format!(
                    "invalid glTF: meshes[{m}].primitives[{p}].attributes[\"POSITION\"] names \
                     an object that does not exist"
                ));
            }
        }
    }
    let mut errors = Vec::new();
    root.validate(root, gltf::json::Path::new, &mut |path, error| {
        let path = path();
        let bounds = path.as_str().ends_with(".min") || path.as_str().ends_with(".max");
        if !(error == Problem::Missing && bounds) {
            errors.push((path, error));
        }
    });
    if errors.is_empty() {
        Ok(())
    } else {
        Err(validation_message(&errors))
    }
}

/// The document's validation errors as one line: the first few JSON paths and what is wrong.
fn validation_message(errors: &[(gltf::json::Path, Problem)]) -> String {
    let shown: Vec<String> = errors
        .iter()
        .take(SHOWN_VALIDATION_ERRORS)
        .map(|(path, error)| {
            let problem = match error {
                Problem::IndexOutOfBounds => "names an object that does not exist",
                Problem::Invalid => "is not a valid value",
                Problem::Missing => "is missing",
                Problem::Oversize => "is too large",
                Problem::Unsupported => "is not supported",
            };
            format!("{} {problem}", excerpt(path.as_str(), SHOWN_CHARS))
        })
        .collect();
    let more = errors.len().saturating_sub(SHOWN_VALIDATION_ERRORS);
    let more = if more > 0 {
        format!(" (and {more} more problems)")
    } else {
        String::new()
    };
    format!("invalid glTF: {}{more}", shown.join("; "))
}

/// The state of one scene walk: the mesh so far and what it was made from.
struct SceneReader<'a> {
    source: &'a Path,
    buffers: Buffers<'a>,
    mesh: TriMesh,
    /// Nodes already walked, by index.
    visited: Vec<bool>,
    /// Primitives skipped for having no triangles.
    skipped: usize,
}

impl SceneReader<'_> {
    /// Appends one primitive's vertices, transformed by `world`, and its triangles.
    fn read_primitive(
        &mut self,
        node: &gltf::Node,
        mesh: &gltf::Mesh,
        primitive: &gltf::Primitive,
        world: &Matrix,
    ) -> Result<()> {
        let source = self.source;
        let what = || {
            let name = mesh
                .name()
                .map(|name| format!(" (\"{}\")", excerpt(name, SHOWN_CHARS)))
                .unwrap_or_default();
            format!(
                "mesh {}{name} primitive {}",
                mesh.index(),
                primitive.index()
            )
        };
        let fail = |message: String| invalid(source, format!("{}: {message}", what()));
        let mode = primitive.mode();
        if !matches!(
            mode,
            Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
        ) {
            self.skipped += 1;
            self.mesh.warnings.push(SKIPPED_PRIMITIVES, || {
                format!(
                    "{}: {}: skipped: a {} primitive has no triangles",
                    source.display(),
                    what(),
                    mode_name(mode)
                )
            });
            return Ok(());
        }
        let positions = primitive
            .get(&Semantic::Positions)
            .ok_or_else(|| fail("has no POSITION attribute".into()))?;
        if positions.dimensions() != Dimensions::Vec3
            || positions.data_type() != DataType::F32
            || positions.normalized()
        {
            return Err(fail(format!(
                "POSITION is {}; Navlab reads VEC3 of 32-bit floats",
                accessor_kind(&positions)
            )));
        }
        let elements = self.buffers.elements(&positions).map_err(|message| {
            fail(format!(
                "POSITION accessor {}: {message}",
                positions.index()
            ))
        })?;
        // The count is now known to fit in the buffer.
        let vert_count = positions.count();
        let base = self.mesh.verts.len() / 3;
        if vert_count > MAX_GLTF_VERTICES - base {
            return Err(fail(format!(
                "the scene has more than {MAX_GLTF_VERTICES} vertices"
            )));
        }
        self.mesh
            .verts
            .try_reserve(vert_count * 3)
            .map_err(|_| fail(format!("no memory for {vert_count} more vertices")))?;
        let identity = *world == IDENTITY;
        for (i, element) in elements.enumerate() {
            let p = [0, 4, 8].map(|at| {
                f32::from_le_bytes([
                    element[at],
                    element[at + 1],
                    element[at + 2],
                    element[at + 3],
                ])
            });
            if p.iter().any(|c| !c.is_finite()) {
                return Err(fail(format!(
                    "vertex {i} has a non-finite coordinate ({}, {}, {})",
                    p[0], p[1], p[2]
                )));
            }
            let q = if identity {
                p
            } else {
                transform_point(world, p)
            };
            if q.iter().any(|c| !c.is_finite()) {
                return Err(fail(format!(
                    "vertex {i} is not finite once node {}'s transform is applied",
                    node.index()
                )));
            }
            self.mesh.verts.extend_from_slice(&q);
        }

        let indices = match primitive.indices() {
            Some(accessor) => self.read_indices(&accessor, vert_count).map_err(fail)?,
            None => (0..vert_count as u32).collect(),
        };
        if mode == Mode::Triangles && !indices.len().is_multiple_of(3) {
            return Err(fail(format!(
                "{} {}, not a multiple of 3 for TRIANGLES",
                indices.len(),
                if primitive.indices().is_some() {
                    "indices"
                } else {
                    "vertices"
                }
            )));
        }
        let tri_count = triangle_count(mode, indices.len());
        if tri_count > MAX_GLTF_TRIANGLES - self.mesh.tris.len() / 3 {
            return Err(fail(format!(
                "the scene has more than {MAX_GLTF_TRIANGLES} triangles"
            )));
        }
        let mirrored = determinant3(world) < 0.0;
        self.mesh
            .tris
            .try_reserve(tri_count * 3)
            .map_err(|_| fail(format!("no memory for {tri_count} more triangles")))?;
        for t in 0..tri_count {
            // Below MAX_GLTF_VERTICES, so far below i32::MAX.
            let [a, b, c] = triangle_corners(mode, t).map(|k| (base + indices[k] as usize) as i32);
            self.mesh
                .tris
                .extend(if mirrored { [a, c, b] } else { [a, b, c] });
        }
        Ok(())
    }

    /// The primitive's indices, each checked against its `vert_count` vertices.
    fn read_indices(
        &mut self,
        accessor: &gltf::Accessor,
        vert_count: usize,
    ) -> std::result::Result<Vec<u32>, String> {
        let in_accessor =
            |message: String| format!("indices accessor {}: {message}", accessor.index());
        let decode: fn(&[u8]) -> u32 = match accessor.data_type() {
            _ if accessor.dimensions() != Dimensions::Scalar || accessor.normalized() => {
                return Err(in_accessor(index_kind_message(accessor)));
            }
            DataType::U8 => |e| u32::from(e[0]),
            DataType::U16 => |e| u32::from(u16::from_le_bytes([e[0], e[1]])),
            DataType::U32 => |e| u32::from_le_bytes([e[0], e[1], e[2], e[3]]),
            _ => return Err(in_accessor(index_kind_message(accessor))),
        };
        let elements = self.buffers.elements(accessor).map_err(in_accessor)?;
        let mut indices = Vec::with_capacity(accessor.count());
        for (i, element) in elements.enumerate() {
            let index = decode(element);
            if index as usize >= vert_count {
                return Err(in_accessor(format!(
                    "index {i} is {index}, out of range for the primitive's {vert_count} vertices"
                )));
            }
            indices.push(index);
        }
        Ok(indices)
    }
}

/// The buffers of the document, loaded on first use.
struct Buffers<'a> {
    /// The GLB's `BIN` chunk.
    bin: Option<&'a [u8]>,
    /// Where external buffer files are read from; `None` refuses them.
    folder: Option<&'a Path>,
    loaded: Vec<Option<Cow<'a, [u8]>>>,
    /// How many more bytes external files may bring.
    external_budget: u64,
    /// The external files read.
    files: Vec<PathBuf>,
}

impl<'a> Buffers<'a> {
    /// The `count` elements of `accessor` as byte slices, once the accessor's and its view's
    /// byte ranges are checked against the buffer.
    fn elements<'s>(
        &'s mut self,
        accessor: &gltf::Accessor,
    ) -> std::result::Result<impl Iterator<Item = &'s [u8]> + 's, String> {
        if accessor.sparse().is_some() {
            return Err("sparse accessors are not read".into());
        }
        let view = accessor
            .view()
            .ok_or("has no buffer view (its values would all be zero)")?;
        let element = accessor.size();
        let stride = view.stride().unwrap_or(element);
        if stride < element {
            return Err(format!(
                "buffer view {} has a byte stride of {stride}, less than the {element}-byte \
                 elements",
                view.index()
            ));
        }
        let count = accessor.count();
        let buffer = self.load(&view.buffer())?;
        let view_bytes = view
            .offset()
            .checked_add(view.length())
            .and_then(|end| buffer.get(view.offset()..end))
            .ok_or_else(|| {
                format!(
                    "buffer view {} (bytes {} to {}) runs past the end of buffer {} ({} bytes)",
                    view.index(),
                    view.offset(),
                    (view.offset() as u64).saturating_add(view.length() as u64),
                    view.buffer().index(),
                    buffer.len()
                )
            })?;
        let needed = match count {
            0 => Some(accessor.offset()),
            _ => (count - 1)
                .checked_mul(stride)
                .and_then(|n| n.checked_add(accessor.offset()))
                .and_then(|n| n.checked_add(element)),
        };
        let bytes = needed
            .and_then(|end| view_bytes.get(accessor.offset()..end))
            .ok_or_else(|| {
                format!(
                    "{count} elements from byte {} need more than buffer view {}'s {} bytes",
                    accessor.offset(),
                    view.index(),
                    view_bytes.len()
                )
            })?;
        Ok((0..count).map(move |i| &bytes[i * stride..i * stride + element]))
    }

    /// Buffer `buffer`'s bytes (exactly its `byteLength`), loading it first if needed.
    fn load(&mut self, buffer: &gltf::Buffer) -> std::result::Result<&[u8], String> {
        let index = buffer.index();
        let slot = self
            .loaded
            .get(index)
            .ok_or_else(|| format!("buffer {index} is not in the document"))?;
        if slot.is_none() {
            let bytes = self.fetch(buffer)?;
            self.loaded[index] = Some(bytes);
        }
        Ok(self.loaded[index].as_deref().unwrap_or_default())
    }

    /// Buffer `buffer`'s bytes from the GLB chunk, a data URI or a file, cut to its
    /// `byteLength`.
    fn fetch(&mut self, buffer: &gltf::Buffer) -> std::result::Result<Cow<'a, [u8]>, String> {
        let index = buffer.index();
        let bytes: Cow<'a, [u8]> = match buffer.source() {
            gltf::buffer::Source::Bin => Cow::Borrowed(self.bin.ok_or_else(|| {
                format!(
                    "buffer {index} has no URI, and only a GLB file's BIN chunk can stand in \
                     for one"
                )
            })?),
            gltf::buffer::Source::Uri(uri) => Cow::Owned(self.read_uri(uri)?),
        };
        if bytes.len() < buffer.length() {
            return Err(format!(
                "buffer {index} has {} bytes, less than its byteLength of {}",
                bytes.len(),
                buffer.length()
            ));
        }
        Ok(match bytes {
            Cow::Borrowed(b) => Cow::Borrowed(&b[..buffer.length()]),
            Cow::Owned(mut b) => {
                b.truncate(buffer.length());
                Cow::Owned(b)
            }
        })
    }

    /// A buffer URI's bytes: a base64 `data:` URI, or a file relative to the glTF file.
    fn read_uri(&mut self, uri: &str) -> std::result::Result<Vec<u8>, String> {
        let shown = || excerpt(uri, SHOWN_CHARS);
        if let Some(data) = uri.strip_prefix("data:") {
            let (_, encoded) = data
                .split_once(";base64,")
                .ok_or_else(|| format!("the data URI `{}` is not base64", shown()))?;
            return decode_base64(encoded)
                .ok_or_else(|| format!("the data URI `{}` has invalid base64", shown()));
        }
        if uri
            .split_once(':')
            .is_some_and(|(scheme, _)| scheme.len() > 1 && !scheme.contains(['/', '\\', '.']))
        {
            return Err(format!(
                "the buffer URI `{}` is not a relative file path (Navlab reads no URLs)",
                shown()
            ));
        }
        let Some(folder) = self.folder else {
            return Err(format!(
                "the buffer `{}` is in another file, which is not read here",
                shown()
            ));
        };
        let relative = percent_decode(uri)
            .ok_or_else(|| format!("the buffer URI `{}` is not valid percent-encoding", shown()))?;
        let path: PathBuf = folder.join(relative);
        crate::file::require_regular_file(&path, "a glTF buffer")
            .map_err(|err| format!("buffer `{}`: {err}", shown()))?;
        let bytes = crate::file::read_capped(&path, self.external_budget)
            .map_err(|err| format!("buffer `{}`: {err}", shown()))?;
        self.external_budget -= bytes.len() as u64;
        self.files.push(path);
        Ok(bytes)
    }
}

/// How many triangles a triangle primitive of `len` vertices (or indices) has.
fn triangle_count(mode: Mode, len: usize) -> usize {
    match mode {
        Mode::Triangles => len / 3,
        _ => len.saturating_sub(2),
    }
}

/// The positions among the primitive's vertices (or indices) of triangle `t`'s corners, as the
/// glTF specification defines strips and fans.
fn triangle_corners(mode: Mode, t: usize) -> [usize; 3] {
    match mode {
        Mode::TriangleStrip => [t, t + 1 + t % 2, t + 2 - t % 2],
        Mode::TriangleFan => [t + 1, t + 2, 0],
        _ => [3 * t, 3 * t + 1, 3 * t + 2],
    }
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Points => "POINTS",
        Mode::Lines => "LINES",
        Mode::LineLoop => "LINE_LOOP",
        Mode::LineStrip => "LINE_STRIP",
        Mode::Triangles => "TRIANGLES",
        Mode::TriangleStrip => "TRIANGLE_STRIP",
        Mode::TriangleFan => "TRIANGLE_FAN",
    }
}

fn index_kind_message(accessor: &gltf::Accessor) -> String {
    format!(
        "{}; indices are SCALAR of unsigned 8, 16 or 32 bits",
        accessor_kind(accessor)
    )
}

/// "VEC2 of u16 (normalized)", for messages.
fn accessor_kind(accessor: &gltf::Accessor) -> String {
    let dimensions = match accessor.dimensions() {
        Dimensions::Scalar => "SCALAR",
        Dimensions::Vec2 => "VEC2",
        Dimensions::Vec3 => "VEC3",
        Dimensions::Vec4 => "VEC4",
        Dimensions::Mat2 => "MAT2",
        Dimensions::Mat3 => "MAT3",
        Dimensions::Mat4 => "MAT4",
    };
    let data_type = match accessor.data_type() {
        DataType::I8 => "i8",
        DataType::U8 => "u8",
        DataType::I16 => "i16",
        DataType::U16 => "u16",
        DataType::U32 => "u32",
        DataType::F32 => "f32",
    };
    let normalized = if accessor.normalized() {
        " (normalized)"
    } else {
        ""
    };
    format!("{dimensions} of {data_type}{normalized}")
}

/// `a * b` for column-major matrices.
fn multiply(a: &Matrix, b: &Matrix) -> Matrix {
    let mut m = [[0.0; 4]; 4];
    for (column, out) in m.iter_mut().enumerate() {
        for (row, value) in out.iter_mut().enumerate() {
            *value = (0..4).map(|k| a[k][row] * b[column][k]).sum();
        }
    }
    m
}

/// `m * (p, 1)`, the affine part (glTF node matrices have no projection).
fn transform_point(m: &Matrix, p: [f32; 3]) -> [f32; 3] {
    [0, 1, 2].map(|row| m[0][row] * p[0] + m[1][row] * p[1] + m[2][row] * p[2] + m[3][row])
}

/// The determinant of the upper-left 3×3 block: negative for a mirroring transform.
fn determinant3(m: &Matrix) -> f32 {
    m[0][0] * (m[1][1] * m[2][2] - m[2][1] * m[1][2])
        - m[1][0] * (m[0][1] * m[2][2] - m[2][1] * m[0][2])
        + m[2][0] * (m[0][1] * m[1][2] - m[1][1] * m[0][2])
}

/// Standard base64 (RFC 4648, `=` padding optional), as glTF data URIs carry buffers.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=').as_bytes();
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    if text.len() % 4 == 1 {
        return None;
    }
    let mut bytes = Vec::with_capacity(text.len() / 4 * 3 + 2);
    for group in text.chunks(4) {
        let mut bits = 0u32;
        for (i, &c) in group.iter().enumerate() {
            bits |= u32::from(value(c)?) << (18 - 6 * i);
        }
        bytes.extend_from_slice(&bits.to_be_bytes()[1..group.len()]);
    }
    Some(bytes)
}

/// A URI's `%XX` escapes decoded, as a relative path.
fn percent_decode(uri: &str) -> Option<String> {
    let bytes = uri.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(decoded).ok()
}

fn invalid(path: &Path, message: String) -> Error {
    Error::InvalidMesh {
        path: path.to_owned(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_with_and_without_padding() {
        assert_eq!(decode_base64("TWFu").unwrap(), b"Man");
        assert_eq!(decode_base64("TWE=").unwrap(), b"Ma");
        assert_eq!(decode_base64("TQ").unwrap(), b"M");
        assert_eq!(decode_base64("").unwrap(), b"");
        assert!(decode_base64("T").is_none());
        assert!(decode_base64("TW!u").is_none());
    }

    #[test]
    fn percent_escapes_decode() {
        assert_eq!(percent_decode("my%20level.bin").unwrap(), "my level.bin");
        assert!(percent_decode("bad%2").is_none());
        assert!(percent_decode("bad%zz").is_none());
    }

    #[test]
    fn strips_and_fans_follow_the_specification() {
        let corners = |mode, len| {
            (0..triangle_count(mode, len))
                .map(|t| triangle_corners(mode, t))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            corners(Mode::TriangleStrip, 5),
            [[0, 1, 2], [1, 3, 2], [2, 3, 4]]
        );
        assert_eq!(corners(Mode::TriangleFan, 4), [[1, 2, 0], [2, 3, 0]]);
        assert_eq!(corners(Mode::Triangles, 7), [[0, 1, 2], [3, 4, 5]]);
        assert!(corners(Mode::TriangleStrip, 2).is_empty());
    }

    #[test]
    fn matrices_compose_parent_first() {
        let translate = {
            let mut m = IDENTITY;
            m[3] = [10.0, 0.0, 0.0, 1.0];
            m
        };
        let mirror = {
            let mut m = IDENTITY;
            m[0][0] = -1.0;
            m
        };
        // Mirror first, then translate.
        let world = multiply(&translate, &mirror);
        assert_eq!(transform_point(&world, [1.0, 2.0, 3.0]), [9.0, 2.0, 3.0]);
        assert!(determinant3(&world) < 0.0);
        assert!(determinant3(&translate) > 0.0);
    }

    #[test]
    fn glb_containers_are_checked_against_their_bytes() {
        let chunk = |kind: &[u8; 4], data: &[u8]| {
            [&(data.len() as u32).to_le_bytes()[..], kind, data].concat()
        };
        let glb = |chunks: &[u8]| {
            let length = (12 + chunks.len()) as u32;
            [
                b"glTF",
                &2u32.to_le_bytes()[..],
                &length.to_le_bytes(),
                chunks,
            ]
            .concat()
        };
        let json = chunk(b"JSON", b"{}  ");
        let bin = chunk(b"BIN\0", &[1, 2, 3, 4]);
        let whole = glb(&[json.clone(), bin].concat());
        let (j, b) = split_glb(&whole).unwrap();
        assert_eq!((j, b), (&b"{}  "[..], Some(&[1u8, 2, 3, 4][..])));
        for cut in 0..whole.len() {
            assert!(split_glb(&whole[..cut]).is_err(), "cut at {cut}");
        }
        let mut lying = glb(&json);
        lying[12] = 200;
        assert!(split_glb(&lying).unwrap_err().contains("truncated"));
    }
}
