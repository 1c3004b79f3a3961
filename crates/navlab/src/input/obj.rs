//! Input geometry: a triangle soup read from Wavefront OBJ with RecastDemo's loader semantics.
//!
//! Recast's reader is deliberately simple, and its quirks decide the exact vertex and triangle
//! order (and so the bounds and every later stage): only `v` and `f` rows count, every `v` row is
//! kept even if no face uses it, polygons are fan-triangulated as (0, i-1, i), negative indices
//! count back from the vertices read so far, and a triangle with an index out of range is
//! skipped. General-purpose OBJ crates (tobj included) re-index vertices per object, drop unused
//! ones and reject a whole file for one bad index, which would change the result, so the rows are
//! parsed here.
//!
//! # RecastDemo's mesh for well-formed files, never a silently different one
//!
//! For a well-formed file the mesh equals RecastDemo's, vertex for vertex and triangle for
//! triangle. Where RecastDemo silently makes something else of a file, Navlab reads what the file
//! says or refuses it, and says so (warnings name the line, errors the line and the problem):
//!
//! - **Byte-order mark.** A leading UTF-8 BOM is skipped. RecastDemo reads it as part of the
//!   first row, so an editor's BOM drops the first vertex and shifts every face index by one.
//! - **Faces of more than 32 vertices.** RecastDemo keeps the first 32 indices of a face and drops
//!   the rest (a 50-gon disc loses a quarter). Navlab triangulates every vertex with the same fan,
//!   so the first 30 triangles are RecastDemo's, and warns that RecastDemo would drop the rest.
//! - **Rows of 511 bytes or more.** RecastDemo cuts a row at 511 bytes and reads the rest, starting
//!   again with the byte it cut at, as a new row: a long comment can turn into a phantom vertex,
//!   a long face loses vertices or gets an index cut in two. Navlab reads every row whole: a
//!   comment stays a comment, and a `v` or `f` row that RecastDemo would read differently is read
//!   whole with a warning naming the line.
//! - **Malformed vertices.** A `v` row whose three coordinates do not parse is an error naming the
//!   line (RecastDemo keeps the previous vertex's values), non-finite coordinates are refused,
//!   and `vp` rows are ignored (RecastDemo takes them for vertices with stale coordinates).
//! - **Bad faces.** Triangles with an index out of range are skipped as in RecastDemo, with a
//!   warning per face.
//! - **Binary and huge input.** A file with NUL bytes is refused as binary, and more than
//!   [`MAX_OBJ_FILE_BYTES`] is refused, from a pipe or a device too.
//!
//! Warnings are bounded ([`Warnings`]): a file of millions of bad faces keeps the first few
//! messages and a count, so the memory of a load follows the mesh, not its problems.

use std::io::BufRead;
use std::path::Path;

use crate::input::{Error, Result};
use crate::warnings::Warnings;

/// RecastDemo reads at most this many bytes of a row; the rest becomes a new row.
const RECASTDEMO_ROW_LEN: usize = 511;
/// RecastDemo keeps at most this many indices of a face.
const RECASTDEMO_FACE_INDICES: usize = 32;

/// Warning kinds, as the plural the summary line counts ("… and 12 more …").
const OUT_OF_RANGE_FACES: &str = "faces with a vertex index out of range";
const LARGE_FACES: &str = "faces of more than 32 vertices";
const LONG_ROWS: &str = "rows that RecastDemo would cut at 511 bytes";
const SHORT_FACES: &str = "faces of fewer than 3 vertices";

/// An indexed triangle mesh in world units.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriMesh {
    /// Vertex positions, 3 floats each.
    pub verts: Vec<f32>,
    /// Triangle vertex indices, 3 each.
    pub tris: Vec<i32>,
    /// Unit face normal per triangle, 3 floats each (zero for degenerate triangles).
    pub normals: Vec<f32>,
    /// Problems found while loading that did not stop it (skipped faces, rows RecastDemo would
    /// read differently), bounded.
    pub warnings: Warnings,
    /// Recast area id per triangle, when the caller gives them ([`TriMesh::with_areas`]): a
    /// build starts from these and clears the triangles too steep to walk
    /// (`rcClearUnwalkableTriangles`). Without them, as in RecastDemo, triangles gentle enough
    /// get Recast's walkable area and the rest none (`rcMarkWalkableTriangles`).
    pub areas: Option<Vec<u8>>,
}

impl TriMesh {
    /// Number of vertices.
    pub fn vert_count(&self) -> usize {
        self.verts.len() / 3
    }

    /// Number of triangles.
    pub fn tri_count(&self) -> usize {
        self.tris.len() / 3
    }

    /// Axis-aligned bounds of all vertices, used or not (Recast's `rcCalcBounds`).
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        calc_bounds(&self.verts)
    }

    /// Builds a mesh from vertices and triangles made in code (generated scenes), computing the
    /// normals. Fails like [`load_obj`] on empty input, non-finite values or bad indices.
    pub fn from_parts(verts: Vec<f32>, tris: Vec<i32>) -> Result<Self> {
        let source = Path::new("<generated>");
        let vert_count = verts.len() / 3;
        if tris.iter().any(|&i| i < 0 || i as usize >= vert_count) {
            return Err(invalid(source, "a triangle index is out of range".into()));
        }
        let mut mesh = TriMesh {
            verts,
            tris,
            ..Default::default()
        };
        mesh.finish(source)?;
        Ok(mesh)
    }

    /// The mesh with a Recast area id for each triangle (0 never walkable, 1 to 63 walkable
    /// with that area); fails when the count differs from the triangles' or an id is above 63.
    pub fn with_areas(mut self, areas: Vec<u8>) -> Result<Self> {
        let source = Path::new("<generated>");
        if areas.len() != self.tri_count() {
            return Err(invalid(
                source,
                format!(
                    "{} triangle areas for {} triangles",
                    areas.len(),
                    self.tri_count()
                ),
            ));
        }
        if let Some(t) = areas.iter().position(|&a| a > crate::recast::WALKABLE_AREA) {
            return Err(invalid(
                source,
                format!("triangle {t} has area {}, above Recast's 63", areas[t]),
            ));
        }
        self.areas = Some(areas);
        Ok(self)
    }

    /// Checks the loaded vertices and triangles (finite, not empty) and computes the normals;
    /// shared by the OBJ and glTF readers.
    pub(crate) fn finish(&mut self, source: &Path) -> Result<()> {
        if let Some(i) = self.verts.iter().position(|v| !v.is_finite()) {
            return Err(invalid(
                source,
                format!("vertex {} has a non-finite coordinate", i / 3 + 1),
            ));
        }
        if self.tris.is_empty() {
            return Err(invalid(source, "the mesh has no triangles".into()));
        }
        self.normals = self
            .tris
            .chunks_exact(3)
            .flat_map(|t| face_normal(&self.verts, t))
            .collect();
        Ok(())
    }
}

/// Recast's `rcCalcBounds` over a flat vertex array (zero bounds when empty).
pub fn calc_bounds(verts: &[f32]) -> ([f32; 3], [f32; 3]) {
    let mut points = verts.chunks_exact(3);
    let Some(first) = points.next() else {
        return ([0.0; 3], [0.0; 3]);
    };
    let mut bmin = [first[0], first[1], first[2]];
    let mut bmax = bmin;
    for p in points {
        for k in 0..3 {
            // Recast's rcMin/rcMax operand order, which decides the sign of a zero bound.
            bmin[k] = if bmin[k] < p[k] { bmin[k] } else { p[k] };
            bmax[k] = if bmax[k] > p[k] { bmax[k] } else { p[k] };
        }
    }
    (bmin, bmax)
}

/// The normalised cross product of the triangle's two edges from its first vertex, in f32 as
/// RecastDemo computes it. Where that overflows (coordinates beyond about 1e19, which RecastDemo
/// turns into NaN) it is computed in f64, so the normal is always a unit vector or zero.
fn face_normal(verts: &[f32], tri: &[i32]) -> [f32; 3] {
    let vertex = |i: i32| &verts[i as usize * 3..i as usize * 3 + 3];
    let (v0, v1, v2) = (vertex(tri[0]), vertex(tri[1]), vertex(tri[2]));
    let e0 = [v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2]];
    let e1 = [v2[0] - v0[0], v2[1] - v0[1], v2[2] - v0[2]];
    let mut n = [
        e0[1] * e1[2] - e0[2] * e1[1],
        e0[2] * e1[0] - e0[0] * e1[2],
        e0[0] * e1[1] - e0[1] * e1[0],
    ];
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if !len.is_finite() {
        return face_normal_f64(v0, v1, v2);
    }
    if len > 0.0 {
        let inv = 1.0 / len;
        for c in &mut n {
            *c *= inv;
        }
    }
    n
}

/// [`face_normal`] in f64, whose range holds any cross product of f32 edges.
fn face_normal_f64(v0: &[f32], v1: &[f32], v2: &[f32]) -> [f32; 3] {
    let edge = |v: &[f32]| [0, 1, 2].map(|k| f64::from(v[k]) - f64::from(v0[k]));
    let (e0, e1) = (edge(v1), edge(v2));
    let n = [
        e0[1] * e1[2] - e0[2] * e1[1],
        e0[2] * e1[0] - e0[0] * e1[2],
        e0[0] * e1[1] - e0[1] * e1[0],
    ];
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if len > 0.0 && len.is_finite() {
        n.map(|c| (c / len) as f32)
    } else {
        [0.0; 3]
    }
}

fn invalid(path: &Path, message: String) -> Error {
    Error::InvalidMesh {
        path: path.to_owned(),
        message,
    }
}

/// The largest OBJ file [`load_obj`] reads: far beyond game levels (tens of millions of
/// triangles), low enough that a wrong file cannot exhaust memory before anything is checked.
pub const MAX_OBJ_FILE_BYTES: u64 = 4 << 30;

/// Reads an OBJ file, refusing more than [`MAX_OBJ_FILE_BYTES`] (a regular file before reading
/// it, a pipe or device once more has arrived). The file is read row by row, so the memory of a
/// load is the mesh's, not the file's.
pub fn load_obj(path: &Path) -> Result<TriMesh> {
    let mut file = crate::file::open_capped(path, MAX_OBJ_FILE_BYTES)?;
    let mesh = read_obj(std::io::BufReader::new(&mut file), path);
    file.finish(mesh)
}

/// Parses OBJ text; `source` names it in errors and warnings.
pub fn parse_obj(bytes: &[u8], source: &Path) -> Result<TriMesh> {
    read_obj(bytes, source)
}

fn read_obj(reader: impl BufRead, source: &Path) -> Result<TriMesh> {
    let mut mesh = TriMesh::default();
    let mut rows = RowReader {
        reader,
        line: 0,
        partial: Vec::new(),
    };
    let mut row = Vec::new();
    while let Some(line) = rows.next_row(&mut row).map_err(|err| match err {
        RowError::Io(source_error) => Error::File(crate::file::FileError::Io {
            path: source.to_owned(),
            source: source_error,
        }),
        RowError::Binary => invalid(
            source,
            "this is not an OBJ file (it contains binary data)".into(),
        ),
    })? {
        match row.as_slice() {
            [b'v', b'n' | b't' | b'p', ..] => {}
            [b'v', coords @ ..] => {
                let xyz = parse_vertex(coords).ok_or_else(|| {
                    invalid(
                        source,
                        format!(
                            "line {line}: expected `v x y z`, found `{}`",
                            shortened(&row)
                        ),
                    )
                })?;
                if recastdemo_row(&row).is_some_and(|cut| parse_vertex(&cut[1..]) != Some(xyz)) {
                    warn_long_row(&mut mesh.warnings, source, line, row.len());
                }
                mesh.verts.extend_from_slice(&xyz);
            }
            [b'f', ..] => add_face(&mut mesh, &row, source, line),
            _ => {}
        }
    }
    if mesh.verts.len() / 3 > i32::MAX as usize {
        return Err(invalid(source, "too many vertices".into()));
    }
    mesh.finish(source)?;
    Ok(mesh)
}

/// Fan-triangulates one `f` row over all its vertices, skipping triangles with an index out of
/// range, and warns where RecastDemo would read the face differently.
fn add_face(mesh: &mut TriMesh, row: &[u8], source: &Path, line: usize) {
    let vert_count = (mesh.verts.len() / 3) as i64;
    let in_range = |v: i64| (0..vert_count).contains(&v);
    let mut vertices = face_indices(&row[1..], vert_count).peekable();
    let (first, second) = (vertices.next(), vertices.next());
    let (Some(first), Some(mut previous), true) = (first, second, vertices.peek().is_some()) else {
        let count = usize::from(first.is_some()) + usize::from(second.is_some());
        mesh.warnings.push(SHORT_FACES, || {
            format!(
                "{}: line {line}: skipped a face of {count} vertices (a face needs 3)",
                source.display()
            )
        });
        return;
    };
    let mut count = 2usize;
    let mut skipped = 0usize;
    for current in vertices {
        count += 1;
        if in_range(first) && in_range(previous) && in_range(current) {
            // In range, so below the vertex count, which is checked against i32 at the end.
            mesh.tris
                .extend([first, previous, current].map(|v| v as i32));
        } else {
            skipped += 1;
        }
        previous = current;
    }
    if skipped > 0 {
        mesh.warnings.push(OUT_OF_RANGE_FACES, || {
            let range = if vert_count == 0 {
                "no vertex is defined before this line".to_owned()
            } else {
                format!("1..={vert_count}, or -1..=-{vert_count} counting back")
            };
            let triangles = count - 2;
            let what = match (skipped, triangles) {
                (1, 1) => "the face".to_owned(),
                (s, t) if s == t => format!("the face's {t} triangles"),
                (s, t) => format!("{s} of the face's {t} triangles"),
            };
            format!(
                "{}: line {line}: skipped {what}: a vertex index is out of range ({range})",
                source.display()
            )
        });
    }
    if count > RECASTDEMO_FACE_INDICES {
        mesh.warnings.push(LARGE_FACES, || {
            format!(
                "{}: line {line}: a face of {count} vertices; RecastDemo keeps only the first \
                 {RECASTDEMO_FACE_INDICES}, Navlab triangulates all of them",
                source.display()
            )
        });
    } else if let Some(cut) = recastdemo_row(row) {
        let theirs = face_indices(&cut[1..], vert_count).take(RECASTDEMO_FACE_INDICES);
        if !theirs.eq(face_indices(&row[1..], vert_count)) {
            warn_long_row(&mut mesh.warnings, source, line, row.len());
        }
    }
}

/// The part of a row RecastDemo reads as that row, if it would cut the row.
fn recastdemo_row(row: &[u8]) -> Option<&[u8]> {
    row.get(..RECASTDEMO_ROW_LEN)
}

fn warn_long_row(warnings: &mut Warnings, source: &Path, line: usize, len: usize) {
    warnings.push(LONG_ROWS, || {
        format!(
            "{}: line {line}: a row of {len} bytes; RecastDemo reads only its first \
             {RECASTDEMO_ROW_LEN} bytes as this row and would read it differently, Navlab reads \
             it whole",
            source.display()
        )
    });
}

/// Splits the input into rows the way RecastDemo's `readRow` does (leading blanks and
/// backslashes skipped, `\r` and `\` dropped), except that a row is never cut: see the module
/// doc. Only `v` and `f` rows are returned.
struct RowReader<R> {
    reader: R,
    /// The line last read, from 1.
    line: usize,
    /// The start of a line that did not fit in the reader's buffer.
    partial: Vec<u8>,
}

enum RowError {
    Io(std::io::Error),
    /// A NUL byte, which no text file has.
    Binary,
}

impl<R: BufRead> RowReader<R> {
    /// Fills `row` with the next `v` or `f` row and returns its line number, or `None` at the end.
    /// Lines are taken from the reader's buffer where they fit, copied only when they do not.
    fn next_row(&mut self, row: &mut Vec<u8>) -> std::result::Result<Option<usize>, RowError> {
        loop {
            let buf = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(RowError::Io(err)),
            };
            let (used, is_row) = match buf.iter().position(|&c| c == b'\n') {
                _ if buf.is_empty() => {
                    if self.partial.is_empty() {
                        return Ok(None);
                    }
                    self.line += 1;
                    let is_row = take_row(&self.partial, self.line, row)?;
                    self.partial.clear();
                    (0, is_row)
                }
                Some(end) if self.partial.is_empty() => {
                    self.line += 1;
                    (end + 1, take_row(&buf[..end], self.line, row)?)
                }
                Some(end) => {
                    self.line += 1;
                    self.partial.extend_from_slice(&buf[..end]);
                    let is_row = take_row(&self.partial, self.line, row)?;
                    self.partial.clear();
                    (end + 1, is_row)
                }
                None => {
                    self.partial.extend_from_slice(buf);
                    (buf.len(), false)
                }
            };
            self.reader.consume(used);
            if is_row {
                return Ok(Some(self.line));
            }
        }
    }
}

/// Puts line `line` (`text`, without its newline) in `row` if it is a `v` or `f` row.
fn take_row(text: &[u8], line: usize, row: &mut Vec<u8>) -> std::result::Result<bool, RowError> {
    let text = if line == 1 {
        crate::file::strip_utf8_bom(text)
    } else {
        text
    };
    if text.contains(&0) {
        return Err(RowError::Binary);
    }
    let start = text
        .iter()
        .position(|c| !matches!(c, b'\\' | b'\r' | b'\t' | b' '))
        .unwrap_or(text.len());
    let text = &text[start..];
    // `vn`, `vt` and `vp` rows (as many as the vertices in a typical export) are never copied:
    // what RecastDemo drops from a row cannot change its first two bytes.
    let is_row = match text {
        [b'v', b'n' | b't' | b'p', ..] => false,
        [b'v' | b'f', ..] => true,
        _ => false,
    };
    if is_row {
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        row.clear();
        if text.iter().any(|&c| c == b'\\' || c == b'\r') {
            row.extend(text.iter().filter(|&&c| c != b'\\' && c != b'\r'));
        } else {
            row.extend_from_slice(text);
        }
    }
    Ok(is_row)
}

/// The three coordinates of a `v` row (anything after them is ignored, as `sscanf` does, even
/// bytes that are not UTF-8).
fn parse_vertex(coords: &[u8]) -> Option<[f32; 3]> {
    let text = match std::str::from_utf8(coords) {
        Ok(text) => text,
        Err(err) => std::str::from_utf8(&coords[..err.valid_up_to()]).ok()?,
    };
    let mut values = text.split_ascii_whitespace().map(str::parse::<f32>);
    let mut xyz = [0.0; 3];
    for v in &mut xyz {
        *v = values.next()?.ok()?;
    }
    Some(xyz)
}

/// Zero-based vertex indices of an `f` row: each `i`, `i/t` or `i/t/n` element contributes `i`
/// (negative = relative to the `vert_count` vertices read so far).
fn face_indices(row: &[u8], vert_count: i64) -> impl Iterator<Item = i64> + '_ {
    let is_blank = |c: &u8| *c == b' ' || *c == b'\t';
    let mut rest = row;
    // One pass over the row: each element's index is read, then the rest of the element is
    // skipped, without first cutting the row into elements.
    std::iter::from_fn(move || {
        let start = rest.iter().position(|c| !is_blank(c))?;
        let element = &rest[start..];
        // `atoi` stops at the `/` before a texture or normal index.
        let index = leading_int(element);
        let end = element.iter().position(is_blank).unwrap_or(element.len());
        rest = &element[end..];
        Some(if index < 0 {
            index + vert_count
        } else {
            index - 1
        })
    })
}

/// `atoi`: an optional sign and the digits that follow; 0 when there are none.
fn leading_int(text: &[u8]) -> i64 {
    let (negative, digits) = match text {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, text),
    };
    let value = digits
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .fold(0i64, |acc, &d| {
            acc.saturating_mul(10).saturating_add((d - b'0') as i64)
        });
    if negative { -value } else { value }
}

/// A row for an error message, cut so that a long one does not flood it.
fn shortened(row: &[u8]) -> String {
    const SHOWN: usize = 80;
    let text = String::from_utf8_lossy(&row[..row.len().min(SHOWN + 1)]);
    crate::warnings::excerpt(&text, SHOWN)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<TriMesh> {
        parse_obj(text.as_bytes(), Path::new("test.obj"))
    }

    #[test]
    fn quads_fan_triangulate_and_relative_indices_resolve() {
        let mesh =
            parse("v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nf 1 2 3 4\nf -4/1/1 -3 -2\n").unwrap();
        assert_eq!(mesh.tris, vec![0, 1, 2, 0, 2, 3, 0, 1, 2]);
        assert_eq!(mesh.normals.len(), 9);
        assert_eq!(&mesh.normals[0..3], &[0.0, -1.0, 0.0]);
        assert_eq!(mesh.bounds(), ([0.0; 3], [1.0, 0.0, 1.0]));
    }

    #[test]
    fn normals_of_huge_triangles_are_unit_vectors() {
        let mesh = parse("v 0 0 0\nv 3e34 0 0\nv 0 0 -3e34\nf 1 2 3\n").unwrap();
        assert_eq!(mesh.normals, [0.0, 1.0, 0.0]);
    }

    #[test]
    fn zero_bounds_keep_recasts_sign() {
        let (bmin, bmax) = calc_bounds(&[0.0, 0.0, 0.0, -0.0, -0.0, -0.0]);
        assert!(bmin.iter().all(|v| v.is_sign_negative()), "{bmin:?}");
        assert!(bmax.iter().all(|v| v.is_sign_negative()), "{bmax:?}");
    }

    #[test]
    fn out_of_range_faces_are_skipped_with_a_warning() {
        let mesh = parse("v 0 0 0\nv 1 0 0\nv 1 0 1\nf 1 2 3\nf 1 2 9\n").unwrap();
        assert_eq!(mesh.tri_count(), 1);
        assert_eq!(mesh.warnings.total(), 1);
        assert!(
            mesh.warnings.lines()[0].contains("line 5"),
            "{:?}",
            mesh.warnings
        );
    }

    #[test]
    fn bad_input_is_a_clear_error() {
        let cases = [
            ("", "no triangles"),
            ("v 0 0 0\n", "no triangles"),
            ("v 0 nan 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n", "non-finite"),
            ("v 0 zero 0\n", "line 1"),
        ];
        for (text, expected) in cases {
            let err = parse(text).unwrap_err().to_string();
            assert!(err.contains(expected), "{text:?}: {err}");
        }
        let err = parse_obj(b"\x89PNG\0\0", Path::new("x.obj")).unwrap_err();
        assert!(err.to_string().contains("not an OBJ"), "{err}");
    }

    #[test]
    fn long_comments_stay_comments() {
        let mut text = String::from("v 0 0 0\nv 1 0 0\nv 1 0 1\n# ");
        text.push_str(&"x v 9 9 9 f 1 2 3 ".repeat(60));
        text.push_str("\nf 1 2 3\n");
        let mesh = parse(&text).unwrap();
        assert_eq!((mesh.vert_count(), mesh.tri_count()), (3, 1));
        assert!(mesh.warnings.is_empty(), "{:?}", mesh.warnings);
    }

    #[test]
    fn a_long_row_warns_only_when_recastdemo_would_read_it_differently() {
        let padded_vertex = format!("v 1 0 1{}\n", " ".repeat(600));
        let text = format!("v 0 0 0\nv 1 0 0\n{padded_vertex}f 1 2 3\n");
        assert!(parse(&text).unwrap().warnings.is_empty());

        // The cut would end inside x and lose y and z.
        let long_vertex = format!("v 1.{} 0 1\n", "0".repeat(600));
        let text = format!("v 0 0 0\nv 1 0 0\n{long_vertex}f 1 2 3\n");
        let mesh = parse(&text).unwrap();
        assert_eq!(&mesh.verts[6..], &[1.0, 0.0, 1.0]);
        let lines = mesh.warnings.lines();
        assert!(lines.len() == 1 && lines[0].contains("line 3"), "{lines:?}");
    }

    #[test]
    fn face_elements_read_as_atoi_reads_them() {
        // `atoi` of each blank-separated element, as RecastDemo reads it: signs, texture and
        // normal indices after `/`, repeated blanks and tabs, and elements without digits.
        let atoi_of_elements = |row: &[u8], vert_count: i64| -> Vec<i64> {
            row.split(|&c| c == b' ' || c == b'\t')
                .filter(|e| !e.is_empty())
                .map(|e| leading_int(e.split(|&c| c == b'/').next().unwrap_or(&[])))
                .map(|i| if i < 0 { i + vert_count } else { i - 1 })
                .collect()
        };
        for row in [
            " 1 2 3",
            " 4/1/4 2/2/2\t1/3/1  3/4/3 ",
            "\t-1//2  +3 -0 x7 /5 - +",
            "1/2/3",
            "",
            "   ",
            " 12345678901234567890 9",
        ] {
            let row = row.as_bytes();
            assert_eq!(
                face_indices(row, 10).collect::<Vec<_>>(),
                atoi_of_elements(row, 10),
                "{:?}",
                String::from_utf8_lossy(row)
            );
        }
    }
}
