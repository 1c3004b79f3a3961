//! The solid heightfield: per grid column, a bottom-to-top list of solid spans (Recast's
//! `rcHeightfield`). Spans live in one pool addressed by `u32` indices, with a free list, instead
//! of Recast's linked pages of heap nodes.

/// Bits of a span's `smin`/`smax` (Recast's `RC_SPAN_HEIGHT_BITS`).
pub const SPAN_HEIGHT_BITS: u32 = 13;
/// The largest span height value (Recast's `RC_SPAN_MAX_HEIGHT`).
pub const SPAN_MAX_HEIGHT: u16 = (1 << SPAN_HEIGHT_BITS) - 1;
/// Whether bounds `tall` units high fit in the span height bits at cell height `ch`, with no
/// span clamped: the rasterizer's highest floor, `tall / ch` rounded down, stays below
/// [`SPAN_MAX_HEIGHT`] so that its span top fits too (computed as the rasterizer does).
pub fn span_heights_fit(tall: f32, ch: f32) -> bool {
    tall * (1.0 / ch) < f32::from(SPAN_MAX_HEIGHT)
}

/// The smallest cell height at which bounds `tall` units high fit ([`span_heights_fit`]),
/// rounded up to three significant digits for people to type.
pub fn min_cell_height_for(tall: f32) -> f32 {
    let mut ch = tall / f32::from(SPAN_MAX_HEIGHT);
    while !span_heights_fit(tall, ch) {
        ch = ch.next_up();
    }
    let step = 10f64.powi(ch.log10().floor() as i32 - 2);
    let mut rounded = ((f64::from(ch) / step).ceil() * step) as f32;
    while !span_heights_fit(tall, rounded) {
        rounded = (f64::from(rounded) + step) as f32;
    }
    rounded
}

/// Index meaning "no span" in columns and `next` links.
pub const NO_SPAN: u32 = u32::MAX;

/// One solid span of a column: voxels `smin..smax` (in cell-height units) with an area id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// Lower limit, inclusive, `< smax`.
    pub smin: u16,
    /// Upper limit, exclusive, `<= SPAN_MAX_HEIGHT`.
    pub smax: u16,
    /// Area id (6 bits as in Recast: 0 = null, 63 = walkable).
    pub area: u8,
    /// Pool index of the next span up the column, or [`NO_SPAN`].
    pub next: u32,
}

/// A voxel heightfield over an axis-aligned box.
#[derive(Clone, Debug, PartialEq)]
pub struct Heightfield {
    /// Cells along x.
    pub width: i32,
    /// Cells along z.
    pub height: i32,
    /// Minimum corner of the bounds, world units.
    pub bmin: [f32; 3],
    /// Maximum corner.
    pub bmax: [f32; 3],
    /// Cell size on the xz-plane.
    pub cs: f32,
    /// Cell height along y.
    pub ch: f32,
    /// Pool index of each column's lowest span (index `x + z * width`), or [`NO_SPAN`].
    pub columns: Vec<u32>,
    /// Every span ever allocated; freed ones are chained from `free_head` through `next`.
    pub pool: Vec<Span>,
    /// First free pool slot, or [`NO_SPAN`].
    pub free_head: u32,
}

impl Heightfield {
    /// An empty heightfield (Recast's `rcCreateHeightfield`).
    pub fn new(width: i32, height: i32, bmin: [f32; 3], bmax: [f32; 3], cs: f32, ch: f32) -> Self {
        let cells = width.max(0) as usize * height.max(0) as usize;
        Self {
            width,
            height,
            bmin,
            bmax,
            cs,
            ch,
            columns: vec![NO_SPAN; cells],
            pool: Vec::new(),
            free_head: NO_SPAN,
        }
    }

    /// [`Heightfield::new`] for a grid that may not fit in memory: an error instead of an abort.
    pub fn try_new(
        width: i32,
        height: i32,
        bmin: [f32; 3],
        bmax: [f32; 3],
        cs: f32,
        ch: f32,
    ) -> crate::recast::Result<Self> {
        let cells = width.max(0) as usize * height.max(0) as usize;
        let columns = crate::memory::try_filled(cells, NO_SPAN, || {
            format!("the heightfield of {width} x {height} cells")
        })?;
        Ok(Self {
            width,
            height,
            bmin,
            bmax,
            cs,
            ch,
            columns,
            pool: Vec::new(),
            free_head: NO_SPAN,
        })
    }

    /// Whether [`Heightfield::alloc_span`] can take one more span without growing the pool
    /// beyond memory or its `u32` indices; grows the pool (fallibly) when needed.
    pub fn make_room_for_span(&mut self) -> bool {
        self.free_head != NO_SPAN
            || (self.pool.len() < NO_SPAN as usize
                && crate::memory::try_grow_for_one(&mut self.pool))
    }

    /// Takes a span slot from the free list or grows the pool.
    pub fn alloc_span(&mut self, span: Span) -> u32 {
        if self.free_head != NO_SPAN {
            let index = self.free_head;
            self.free_head = self.pool[index as usize].next;
            self.pool[index as usize] = span;
            index
        } else {
            self.pool.push(span);
            (self.pool.len() - 1) as u32
        }
    }

    /// Returns a span slot to the free list.
    pub fn free_span(&mut self, index: u32) {
        self.pool[index as usize].next = self.free_head;
        self.free_head = index;
    }

    /// The spans of column (`x`, `z`), bottom to top.
    pub fn column(&self, x: i32, z: i32) -> ColumnSpans<'_> {
        ColumnSpans {
            pool: &self.pool,
            next: self.columns[(x + z * self.width) as usize],
        }
    }

    /// All spans of all columns, column by column (x fastest), each bottom to top.
    pub fn spans(&self) -> impl Iterator<Item = &Span> {
        self.columns.iter().flat_map(move |&head| ColumnSpans {
            pool: &self.pool,
            next: head,
        })
    }

    /// Number of spans in the heightfield.
    pub fn span_count(&self) -> usize {
        self.spans().count()
    }

    /// Both [`Heightfield::span_count`] and [`Heightfield::walkable_span_count`], read from the
    /// pool in memory order (less the free slots) rather than column by column.
    pub fn span_counts(&self) -> (usize, usize) {
        let mut spans = self.pool.len();
        let mut walkable = self
            .pool
            .iter()
            .filter(|s| s.area != crate::recast::NULL_AREA)
            .count();
        let mut free = self.free_head;
        while free != NO_SPAN {
            let span = &self.pool[free as usize];
            spans -= 1;
            walkable -= usize::from(span.area != crate::recast::NULL_AREA);
            free = span.next;
        }
        (spans, walkable)
    }

    /// Number of spans with a non-null area (Recast's `rcGetHeightFieldSpanCount`).
    pub fn walkable_span_count(&self) -> usize {
        self.spans()
            .filter(|s| s.area != crate::recast::NULL_AREA)
            .count()
    }
}

/// Iterator over one column's spans, bottom to top.
#[derive(Clone)]
pub struct ColumnSpans<'a> {
    pool: &'a [Span],
    next: u32,
}

impl<'a> Iterator for ColumnSpans<'a> {
    type Item = &'a Span;

    fn next(&mut self) -> Option<Self::Item> {
        if self.next == NO_SPAN {
            return None;
        }
        let span = &self.pool[self.next as usize];
        self.next = span.next;
        Some(span)
    }
}
