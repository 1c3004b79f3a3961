//! Which polygons a query may visit and what crossing them costs (`dtQueryFilter`).
//!
//! Queries are generic over [`PolyFilter`], so the default [`QueryFilter`] is inlined into
//! the search loops (as C++ does without `DT_VIRTUAL_QUERYFILTER`) and a custom filter costs
//! nothing extra either.

use crate::detour::common::Vec3;
use crate::detour::{MAX_AREAS, MeshTile, Poly, PolyRef};

/// A polygon as the cost function sees it: its reference (0 for none) and, when known, its
/// tile and data. Detour passes the previous, current and next polygon of a step.
#[derive(Clone, Copy, Debug, Default)]
pub struct PolyContext<'a> {
    /// The polygon's reference, 0 for none.
    pub poly_ref: PolyRef,
    /// Its tile, when known.
    pub tile: Option<&'a MeshTile>,
    /// Its data, when known.
    pub poly: Option<&'a Poly>,
}

impl<'a> PolyContext<'a> {
    /// No polygon (reference 0, no data).
    pub const NONE: PolyContext<'static> = PolyContext {
        poly_ref: 0,
        tile: None,
        poly: None,
    };

    #[inline]
    /// A polygon with its tile and data.
    pub fn new(poly_ref: PolyRef, tile: &'a MeshTile, poly: &'a Poly) -> PolyContext<'a> {
        PolyContext {
            poly_ref,
            tile: Some(tile),
            poly: Some(poly),
        }
    }
}

/// The filter interface of every query (`dtQueryFilter::passFilter` / `getCost` made
/// overridable). Implement it for custom rules; keep both methods cheap, they run for every
/// polygon a search touches.
///
/// For A* to find the cheapest path, costs should be at least the travelled distance
/// (area costs ≥ 1 with the default rule).
pub trait PolyFilter {
    /// Whether the search may visit `poly`.
    fn pass_filter(&self, poly_ref: PolyRef, tile: &MeshTile, poly: &Poly) -> bool;

    /// The cost of moving from `pa` to `pb` on `cur`, coming from `prev` and heading to
    /// `next`.
    fn cost(
        &self,
        pa: &Vec3,
        pb: &Vec3,
        prev: PolyContext<'_>,
        cur: PolyContext<'_>,
        next: PolyContext<'_>,
    ) -> f32;
}

/// Detour's default filter: a polygon passes when it has at least one include flag and no
/// exclude flag; a step costs its length times the current polygon's area cost.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryFilter {
    area_cost: [f32; MAX_AREAS],
    include_flags: u16,
    exclude_flags: u16,
}

impl Default for QueryFilter {
    /// Everything included, nothing excluded, every area cost 1.
    fn default() -> Self {
        QueryFilter {
            area_cost: [1.0; MAX_AREAS],
            include_flags: 0xffff,
            exclude_flags: 0,
        }
    }
}

impl QueryFilter {
    /// The default filter with the given include and exclude flags.
    pub fn with_flags(include_flags: u16, exclude_flags: u16) -> QueryFilter {
        QueryFilter {
            include_flags,
            exclude_flags,
            ..QueryFilter::default()
        }
    }

    /// The cost factor of `area` (ids past 63 wrap as the poly's 6-bit area does).
    pub fn area_cost(&self, area: u8) -> f32 {
        self.area_cost[usize::from(area) % MAX_AREAS]
    }

    /// Sets the cost multiplier of an area id.
    pub fn set_area_cost(&mut self, area: u8, cost: f32) {
        self.area_cost[usize::from(area) % MAX_AREAS] = cost;
    }

    /// Flags a polygon must have one of to be passed.
    pub fn include_flags(&self) -> u16 {
        self.include_flags
    }

    /// Sets the flags a polygon must have one of.
    pub fn set_include_flags(&mut self, flags: u16) {
        self.include_flags = flags;
    }

    /// Flags that bar a polygon.
    pub fn exclude_flags(&self) -> u16 {
        self.exclude_flags
    }

    /// Sets the flags that bar a polygon.
    pub fn set_exclude_flags(&mut self, flags: u16) {
        self.exclude_flags = flags;
    }
}

impl PolyFilter for QueryFilter {
    #[inline]
    fn pass_filter(&self, _poly_ref: PolyRef, _tile: &MeshTile, poly: &Poly) -> bool {
        (poly.flags & self.include_flags) != 0 && (poly.flags & self.exclude_flags) == 0
    }

    #[inline]
    fn cost(
        &self,
        pa: &Vec3,
        pb: &Vec3,
        _prev: PolyContext<'_>,
        cur: PolyContext<'_>,
        _next: PolyContext<'_>,
    ) -> f32 {
        let area = cur.poly.map_or(0, Poly::area);
        super::geometry::vdist(pa, pb) * self.area_cost[usize::from(area)]
    }
}
