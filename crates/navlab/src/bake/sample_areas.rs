//! RecastDemo's area ids and polygon flags (`SamplePolyAreas`, `SamplePolyFlags` in `Sample.h`)
//! and the rule its samples apply to every polygon before creating Detour tiles.

use crate::recast::WALKABLE_AREA;

/// RecastDemo's area ids (`SamplePolyAreas`).
pub mod area {
    /// Walkable ground (`SAMPLE_POLYAREA_GROUND`).
    pub const GROUND: u8 = 0;
    /// Water (`SAMPLE_POLYAREA_WATER`).
    pub const WATER: u8 = 1;
    /// Road (`SAMPLE_POLYAREA_ROAD`).
    pub const ROAD: u8 = 2;
    /// A door (`SAMPLE_POLYAREA_DOOR`).
    pub const DOOR: u8 = 3;
    /// Grass (`SAMPLE_POLYAREA_GRASS`).
    pub const GRASS: u8 = 4;
    /// An off-mesh jump (`SAMPLE_POLYAREA_JUMP`).
    pub const JUMP: u8 = 5;
}

/// RecastDemo's polygon ability flags (`SamplePolyFlags`).
pub mod flags {
    /// Walkable on foot (`SAMPLE_POLYFLAGS_WALK`).
    pub const WALK: u16 = 0x01;
    /// Swimmable (`SAMPLE_POLYFLAGS_SWIM`).
    pub const SWIM: u16 = 0x02;
    /// Passable through a door (`SAMPLE_POLYFLAGS_DOOR`).
    pub const DOOR: u16 = 0x04;
    /// Jumpable (`SAMPLE_POLYFLAGS_JUMP`).
    pub const JUMP: u16 = 0x08;
    /// Disabled, excluded by the tester's filter (`SAMPLE_POLYFLAGS_DISABLED`).
    pub const DISABLED: u16 = 0x10;
    /// Every ability (`SAMPLE_POLYFLAGS_ALL`).
    pub const ALL: u16 = 0xffff;
}

/// RecastDemo's rule for one polygon, applied before Detour data is built: Recast's walkable
/// area becomes ground; ground, grass and road can be walked, water swum, doors walked and
/// opened. Other areas keep their flags. Returns the new (area, flags).
pub fn sample_area_flags(area: u8, flags: u16) -> (u8, u16) {
    use self::area as a;
    use self::flags as f;
    let area = if area == WALKABLE_AREA {
        a::GROUND
    } else {
        area
    };
    let flags = match area {
        a::GROUND | a::GRASS | a::ROAD => f::WALK,
        a::WATER => f::SWIM,
        a::DOOR => f::WALK | f::DOOR,
        _ => flags,
    };
    (area, flags)
}

/// Rewrites every polygon's area and flags with `rule` (for example [`sample_area_flags`]),
/// as Sample_SoloMesh and Sample_TileMesh do to the poly mesh before creating tiles.
pub fn apply_area_flags(areas: &mut [u8], flags: &mut [u16], rule: impl Fn(u8, u16) -> (u8, u16)) {
    for (area, flag) in areas.iter_mut().zip(flags.iter_mut()) {
        (*area, *flag) = rule(*area, *flag);
    }
}

/// RecastDemo's name of an area id (its convex volume tool's list), with Recast's walkable
/// area named as the ground it becomes under [`sample_area_flags`]; `None` for other ids.
pub fn area_name(area: u8) -> Option<&'static str> {
    match area {
        area::GROUND | WALKABLE_AREA => Some("ground"),
        area::WATER => Some("water"),
        area::ROAD => Some("road"),
        area::DOOR => Some("door"),
        area::GRASS => Some("grass"),
        area::JUMP => Some("jump"),
        _ => None,
    }
}
