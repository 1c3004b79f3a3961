//! Text in and out of the test runners: RecastDemo's test-case files, and JSON numbers and
//! references printed exactly as the C++ reference data prints them.

use serde::Serialize;
use serde_json::value::RawValue;

use navlab::detour::common::Vec3;
use navlab::detour::{NavMesh, PolyRef};

/// `printf("%.9g", v)`: nine significant digits, fixed or exponent notation as C chooses,
/// trailing zeros removed. Nine digits make every f32 round-trip exactly.
pub fn format_g9(v: f32) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "nan" }.to_string();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    const PRECISION: i32 = 9;
    let sci = format!("{:.*e}", (PRECISION - 1) as usize, f64::from(v));
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let strip = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..PRECISION).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip(mantissa), exponent.abs())
    } else {
        let decimals = (PRECISION - 1 - exponent) as usize;
        strip(&format!("{:.*}", decimals, f64::from(v)))
    }
}

/// An f32 that serialises as a JSON number printed with `%.9g` (`null` if not finite).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JsonF32(pub f32);

impl Serialize for JsonF32 {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if !self.0.is_finite() {
            return serializer.serialize_none();
        }
        let raw = RawValue::from_string(format_g9(self.0)).map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

/// Points as a flat list of numbers.
pub fn flat_points(points: impl IntoIterator<Item = Vec3>) -> Vec<JsonF32> {
    points.into_iter().flatten().map(JsonF32).collect()
}

/// A point as three numbers.
pub fn point(p: &Vec3) -> [JsonF32; 3] {
    p.map(JsonF32)
}

/// A polygon reference with its fields (`{"ref","salt","tile","poly"}`).
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct RefJson {
    #[serde(rename = "ref")]
    pub poly_ref: PolyRef,
    pub salt: u32,
    pub tile: u32,
    pub poly: u32,
}

impl RefJson {
    pub fn new(nav: &NavMesh, r: PolyRef) -> RefJson {
        let (salt, tile, poly) = nav.decode_poly_id(r);
        RefJson {
            poly_ref: r,
            salt,
            tile,
            poly,
        }
    }
}

/// `[salt, tile, poly]` of each reference (the `XDecoded` sibling of a ref list).
pub fn decoded(nav: &NavMesh, refs: &[PolyRef]) -> Vec<[u32; 3]> {
    refs.iter()
        .map(|&r| {
            let (s, t, p) = nav.decode_poly_id(r);
            [s, t, p]
        })
        .collect()
}

/// What a test-case line asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestKind {
    /// `pf`: a path between the two points.
    Pathfind,
    /// `rc`: a raycast from the first point towards the second.
    Raycast,
}

/// The most `pf` and `rc` lines a test-case file may have. RecastDemo's files have tens; each
/// line's results (up to 256 polygons and straight-path points, run on two samples) take tens
/// of kilobytes, so this keeps a run within a few hundred megabytes.
pub const MAX_TEST_LINES: usize = 10_000;

/// One `pf` or `rc` line of a test-case file.
#[derive(Clone, Debug, PartialEq)]
pub struct TestLine {
    pub kind: TestKind,
    /// The row as the demo reads it (leading blanks and carriage returns dropped).
    pub text: String,
    pub start: Vec3,
    pub end: Vec3,
    pub include_flags: u16,
    pub exclude_flags: u16,
}

/// A RecastDemo test-case file (`TestCase::load`): the sample and geometry it names and its
/// test lines in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TestFile {
    /// The `s` row: "Solo Mesh", "Tile Mesh", ...
    pub sample_name: String,
    /// The `f` row: the geometry file.
    pub geom_file_name: String,
    pub tests: Vec<TestLine>,
}

impl TestFile {
    /// Parses the file as the demo does: rows split at newlines with leading blanks
    /// skipped, rows starting with `s`, `f`, `pf` or `rc` read, everything else ignored.
    /// Numbers the demo's `sscanf` would not read stay 0. Only the first [`MAX_TEST_LINES`]
    /// test lines are kept.
    pub fn parse(text: &str) -> TestFile {
        Self::parse_rows(text).0
    }

    /// Parses like [`TestFile::parse`] but refuses what the demo would silently read as
    /// zeros: a `pf`/`rc` row without six finite coordinates and two 16-bit hexadecimal flag
    /// words, or with more fields, and a file of more than [`MAX_TEST_LINES`] test lines. The
    /// error names the 1-based line.
    pub fn parse_checked(text: &str) -> Result<TestFile, TestFileError> {
        match Self::parse_rows(text) {
            (_, Some(error)) => Err(error),
            (file, None) => Ok(file),
        }
    }

    /// The file and the first malformed test row.
    fn parse_rows(text: &str) -> (TestFile, Option<TestFileError>) {
        let mut file = TestFile::default();
        let mut first_error = None;
        for (index, raw) in text.split('\n').enumerate() {
            let row: String = raw.chars().filter(|&c| c != '\r').collect();
            let row = row.trim_start_matches([' ', '\t']);
            if row.is_empty() {
                continue;
            }
            // The demo truncates rows at 511 characters.
            let row: String = row.chars().take(511).collect();
            let kind = if row.starts_with("pf") {
                Some(TestKind::Pathfind)
            } else if row.starts_with("rc") {
                Some(TestKind::Raycast)
            } else {
                None
            };
            if let Some(kind) = kind {
                if file.tests.len() == MAX_TEST_LINES {
                    // Nothing past the limit is kept, so memory stays bounded.
                    first_error.get_or_insert(TestFileError {
                        line: index + 1,
                        message: format!(
                            "more than {MAX_TEST_LINES} `pf` and `rc` lines, the most a test \
                             file may have; split the file"
                        ),
                    });
                    break;
                }
                let (line, problem) = parse_test(kind, &row, &row[2..]);
                if let (Some(message), None) = (problem, &first_error) {
                    first_error = Some(TestFileError {
                        line: index + 1,
                        message,
                    });
                }
                file.tests.push(line);
            } else if let Some(rest) = row.strip_prefix('s') {
                file.sample_name = rest.trim_start().to_string();
            } else if let Some(rest) = row.strip_prefix('f') {
                file.geom_file_name = rest.trim_start().to_string();
            }
        }
        (file, first_error)
    }
}

/// A malformed row of a test-case file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestFileError {
    /// 1-based line number.
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for TestFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// `sscanf(row + 2, "%f %f %f %f %f %f %hx %hx")`, stopping at the first field that does not
/// parse; the problem, if any, comes back beside the line (the lenient parse ignores it).
fn parse_test(kind: TestKind, row: &str, rest: &str) -> (TestLine, Option<String>) {
    let mut fields = rest.split_whitespace();
    let mut coords = [0.0f32; 6];
    let mut flags = [0u16; 2];
    // Values the demo reads but that cannot be meant: reported after any field it stops at.
    let mut out_of_range = None;
    let problem = 'parse: {
        for (i, c) in coords.iter_mut().enumerate() {
            match fields.next().map(|f| (f, f.parse::<f32>())) {
                Some((_, Ok(v))) => {
                    *c = v;
                    if !v.is_finite() && out_of_range.is_none() {
                        out_of_range = Some(format!("coordinate {} is {v}", i + 1));
                    }
                }
                Some((f, Err(_))) => {
                    break 'parse Some(format!("coordinate {} `{f}` is not a number", i + 1));
                }
                None => break 'parse Some(format!("{i} coordinates where 6 are needed")),
            }
        }
        for (i, f) in flags.iter_mut().enumerate() {
            let name = ["include", "exclude"][i];
            let Some(field) = fields.next() else {
                break 'parse Some(format!("the {name} flags are missing"));
            };
            let digits = field
                .strip_prefix("0x")
                .or_else(|| field.strip_prefix("0X"))
                .unwrap_or(field);
            match u64::from_str_radix(digits, 16) {
                Ok(v) => {
                    *f = v as u16;
                    if v > 0xffff && out_of_range.is_none() {
                        out_of_range = Some(format!("the {name} flags {field} exceed 16 bits"));
                    }
                }
                Err(_) => {
                    break 'parse Some(format!("the {name} flags `{field}` are not hexadecimal"));
                }
            }
        }
        fields
            .next()
            .map(|extra| format!("unexpected `{extra}` after the flags"))
    }
    .or(out_of_range);
    let line = TestLine {
        kind,
        text: row.to_string(),
        start: [coords[0], coords[1], coords[2]],
        end: [coords[3], coords[4], coords[5]],
        include_flags: flags[0],
        exclude_flags: flags[1],
    };
    (line, problem)
}
