//! Input geometry: a triangle soup read from Wavefront OBJ with RecastDemo's loader semantics.
//!
//! Recast's reader is deliberately simple, and its quirks decide the exact vertex and triangle
//! order (and so the bounds and every later stage): only `v` and `f` rows count, every `v` row is
//! kept even if no face uses it, polygons are fan-triangulated as (0, i-1, i), a face keeps at
//! most 32 indices, negative indices count back from the vertices read so far, and a triangle
//! with an index out of range is skipped. General-purpose OBJ crates (tobj included) re-index
//! vertices per object, drop unused ones and reject a whole file for one bad index, which would
//! change the result, so the rows are parsed here.

use std::path::Path;

use crate::error::{NavlabError, Result};

/// Longest row RecastDemo reads at once; longer lines continue as a new row.
const MAX_ROW_LEN: usize = 511;
/// Most indices RecastDemo keeps from one face row.
const MAX_FACE_INDICES: usize = 32;

/// An indexed triangle mesh in world units.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriMesh {
    /// Vertex positions, 3 floats each.
    pub verts: Vec<f32>,
    /// Triangle vertex indices, 3 each.
    pub tris: Vec<i32>,
    /// Unit face normal per triangle, 3 floats each (zero for degenerate triangles).
    pub normals: Vec<f32>,
    /// Problems found while loading that did not stop it (skipped faces), one line each.
    pub warnings: Vec<String>,
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

    fn finish(&mut self, source: &Path) -> Result<()> {
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

/// The normalised cross product of the triangle's two edges from its first vertex.
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
    if len > 0.0 {
        let inv = 1.0 / len;
        for c in &mut n {
            *c *= inv;
        }
    }
    n
}

fn invalid(path: &Path, message: String) -> NavlabError {
    NavlabError::InvalidMesh {
        path: path.to_owned(),
        message,
    }
}

/// The largest OBJ file [`load_obj`] reads: far beyond game levels (tens of millions of
/// triangles), low enough that a wrong file cannot exhaust memory before anything is checked.
pub const MAX_OBJ_FILE_BYTES: u64 = 4 << 30;

/// Reads an OBJ file, refusing one over [`MAX_OBJ_FILE_BYTES`] before reading it.
pub fn load_obj(path: &Path) -> Result<TriMesh> {
    let io_error = |source| NavlabError::Io {
        path: path.to_owned(),
        source,
    };
    let size = std::fs::metadata(path).map_err(io_error)?.len();
    if size > MAX_OBJ_FILE_BYTES {
        return Err(invalid(
            path,
            format!("the file is {size} bytes, over the limit of {MAX_OBJ_FILE_BYTES} bytes"),
        ));
    }
    let bytes = std::fs::read(path).map_err(io_error)?;
    parse_obj(&bytes, path)
}

/// Parses OBJ text; `source` names it in errors and warnings.
pub fn parse_obj(bytes: &[u8], source: &Path) -> Result<TriMesh> {
    if bytes.contains(&0) {
        return Err(invalid(
            source,
            "this is not an OBJ file (it contains binary data)".into(),
        ));
    }
    let mut mesh = TriMesh::default();
    let mut rows = RowReader {
        rest: bytes,
        line: 1,
    };
    let mut face = Vec::with_capacity(MAX_FACE_INDICES);
    let mut row = Vec::with_capacity(MAX_ROW_LEN);
    while let Some(line) = rows.next_row(&mut row) {
        match row.as_slice() {
            [b'#', ..] | [b'v', b'n' | b't' | b'p', ..] => {}
            [b'v', coords @ ..] => {
                let xyz = parse_vertex(coords).ok_or_else(|| {
                    invalid(
                        source,
                        format!(
                            "line {line}: expected `v x y z`, found `{}`",
                            String::from_utf8_lossy(&row)
                        ),
                    )
                })?;
                mesh.verts.extend_from_slice(&xyz);
            }
            [b'f', indices @ ..] => {
                let vert_count = (mesh.verts.len() / 3) as i64;
                parse_face(indices, vert_count, &mut face);
                for i in 2..face.len() {
                    let tri = [face[0], face[i - 1], face[i]];
                    if tri.iter().all(|&v| (0..vert_count).contains(&v)) {
                        mesh.tris.extend(tri.iter().map(|&v| v as i32));
                    } else {
                        mesh.warnings.push(format!(
                            "{}: line {line}: skipped a triangle with a vertex index out of range (1..={vert_count})",
                            source.display()
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    if mesh.verts.len() / 3 > i32::MAX as usize {
        return Err(invalid(source, "too many vertices".into()));
    }
    mesh.finish(source)?;
    Ok(mesh)
}

/// Splits the input into rows the way RecastDemo's `readRow` does: leading blanks (and
/// backslashes) skipped, `\r` and `\` dropped, at most [`MAX_ROW_LEN`] bytes per row.
struct RowReader<'a> {
    rest: &'a [u8],
    line: usize,
}

impl<'a> RowReader<'a> {
    /// Fills `row` with the next row and returns its line number, or `None` at the end.
    fn next_row(&mut self, row: &mut Vec<u8>) -> Option<usize> {
        while let [c @ (b'\\' | b'\r' | b'\n' | b'\t' | b' '), tail @ ..] = self.rest {
            if *c == b'\n' {
                self.line += 1;
            }
            self.rest = tail;
        }
        if self.rest.is_empty() {
            return None;
        }
        row.clear();
        while let [c, tail @ ..] = self.rest {
            if *c == b'\n' {
                break;
            }
            if *c != b'\\' && *c != b'\r' {
                row.push(*c);
                if row.len() >= MAX_ROW_LEN {
                    // RecastDemo stops without stepping past the byte that filled the row, so
                    // that byte also starts the next row.
                    break;
                }
            }
            self.rest = tail;
        }
        Some(self.line)
    }
}

/// The three coordinates of a `v` row (anything after them is ignored, as `sscanf` does).
fn parse_vertex(coords: &[u8]) -> Option<[f32; 3]> {
    let text = std::str::from_utf8(coords).ok()?;
    let mut values = text.split_ascii_whitespace().map(str::parse::<f32>);
    let mut xyz = [0.0; 3];
    for v in &mut xyz {
        *v = values.next()?.ok()?;
    }
    Some(xyz)
}

/// Zero-based vertex indices of an `f` row: each `i`, `i/t` or `i/t/n` element contributes `i`
/// (negative = relative to the vertices read so far); at most [`MAX_FACE_INDICES`].
fn parse_face(row: &[u8], vert_count: i64, face: &mut Vec<i64>) {
    face.clear();
    for element in row
        .split(|&c| c == b' ' || c == b'\t')
        .filter(|e| !e.is_empty())
    {
        let index = leading_int(element.split(|&c| c == b'/').next().unwrap_or(&[]));
        face.push(if index < 0 {
            index + vert_count
        } else {
            index - 1
        });
        if face.len() >= MAX_FACE_INDICES {
            break;
        }
    }
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
    fn zero_bounds_keep_recasts_sign() {
        let (bmin, bmax) = calc_bounds(&[0.0, 0.0, 0.0, -0.0, -0.0, -0.0]);
        assert!(bmin.iter().all(|v| v.is_sign_negative()), "{bmin:?}");
        assert!(bmax.iter().all(|v| v.is_sign_negative()), "{bmax:?}");
    }

    #[test]
    fn out_of_range_faces_are_skipped_with_a_warning() {
        let mesh = parse("v 0 0 0\nv 1 0 0\nv 1 0 1\nf 1 2 3\nf 1 2 9\n").unwrap();
        assert_eq!(mesh.tri_count(), 1);
        assert_eq!(mesh.warnings.len(), 1);
        assert!(mesh.warnings[0].contains("line 5"), "{:?}", mesh.warnings);
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
    fn long_rows_continue_as_new_rows() {
        let mut text = String::from("v 0 0 0\nv 1 0 0\nv 1 0 1\n# ");
        text.push_str(&"x".repeat(600));
        text.push_str("\nf 1 2 3\n");
        assert_eq!(parse(&text).unwrap().tri_count(), 1);
    }
}
