//! Distance field and the three region partitions against the C++ stage dumps.
use crate::support as common;

use navlab::recast::context::{BuildContext, TimerLabel};
use navlab::recast::distance_field::build_distance_field;
use navlab::recast::region::{build_layer_regions, build_regions, build_regions_monotone};

/// Settings of the reference builds (RecastDemo defaults: region min 8², merge 20², no border).
const MIN_REGION_AREA: i32 = 64;
const MERGE_REGION_AREA: i32 = 400;

#[test]
fn distance_field_matches_cpp() {
    for mesh in common::STAGE_MESHES {
        let Some(mut chf) = common::compact_from_stages(mesh, true, false, None) else {
            return;
        };
        build_distance_field(&mut BuildContext::new(), &mut chf).unwrap();
        let reference = common::load_json(&format!("stages/{mesh}/5_distance_field.json")).unwrap();
        assert_eq!(
            chf.max_distance as i64,
            reference["maxDistance"].as_i64().unwrap(),
            "{mesh} maxDistance"
        );
        let dist: Vec<u16> = common::as_i64s(&reference["dist"])
            .iter()
            .map(|&d| d as u16)
            .collect();
        common::assert_slices_eq(&format!("{mesh} dist"), &chf.dist, &dist);
    }
}

fn check_regions(mesh: &str, partition: &str) {
    let Some(mut chf) = common::compact_from_stages(mesh, true, partition == "watershed", None)
    else {
        return;
    };
    let mut ctx = BuildContext::new();
    match partition {
        "watershed" => build_regions(&mut ctx, &mut chf, 0, MIN_REGION_AREA, MERGE_REGION_AREA),
        "monotone" => {
            build_regions_monotone(&mut ctx, &mut chf, 0, MIN_REGION_AREA, MERGE_REGION_AREA)
        }
        _ => build_layer_regions(&mut ctx, &mut chf, 0, MIN_REGION_AREA),
    }
    .unwrap();
    let reference =
        common::load_json(&format!("stages/{mesh}/{partition}/6_regions.json")).unwrap();
    assert_eq!(
        chf.max_regions as i64,
        reference["maxRegions"].as_i64().unwrap(),
        "{mesh} {partition} maxRegions"
    );
    let reg: Vec<u16> = common::as_i64s(&reference["reg"])
        .iter()
        .map(|&r| r as u16)
        .collect();
    let ours: Vec<u16> = chf.spans.iter().map(|s| s.reg).collect();
    common::assert_slices_eq(&format!("{mesh} {partition} reg"), &ours, &reg);
    assert!(ctx.entries().is_empty(), "{:?}", ctx.entries());
}

#[test]
fn watershed_regions_match_cpp() {
    for mesh in common::STAGE_MESHES {
        check_regions(mesh, "watershed");
    }
}

#[test]
fn monotone_regions_match_cpp() {
    for mesh in common::STAGE_MESHES {
        check_regions(mesh, "monotone");
    }
}

#[test]
fn layer_regions_match_cpp() {
    for mesh in common::STAGE_MESHES {
        check_regions(mesh, "layers");
    }
}

/// Procedurally generated compact heightfields: a ground floor with small obstacles (missing
/// spans) and unwalkable spots, patches of another area type, raised decks over the ground,
/// each reached by a ramp. Decks make regions overlap, which the layer partition must split.
pub mod scene {
    use navlab::recast::compact::{CompactCell, CompactHeightfield, CompactSpan, NOT_CONNECTED};
    use navlab::{
        recast::NULL_AREA, recast::WALKABLE_AREA, recast::dir_offset_x, recast::dir_offset_z,
    };

    const DECK_Y: u16 = 60;
    const RAMP_LENGTH: i32 = 20;
    const CLIMB: i32 = 4;
    const OTHER_AREA: u8 = 7;

    /// Deterministic xorshift generator (tests must not depend on a crate's RNG stream).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: i32) -> i32 {
            (self.next() % n as u64) as i32
        }
    }

    /// How much of each feature a scene gets.
    pub struct Features {
        /// Small holes, unwalkable spots and other-area spots in the ground.
        pub obstacles: usize,
        /// Large raised platforms, each with a ramp up from the ground.
        pub decks: usize,
        /// Small raised platforms without ramps: each its own layer, the smallest removed.
        pub islands: usize,
    }

    /// A `width` x `height` scene.
    pub fn generate(width: i32, height: i32, features: Features, seed: u64) -> CompactHeightfield {
        let mut rng = Rng(seed | 1);
        let cell_count = (width * height) as usize;
        // Per cell: ground (y, area) if any, and deck/ramp (y, area) if any.
        let mut ground: Vec<Option<u8>> = vec![Some(WALKABLE_AREA); cell_count];
        let mut upper: Vec<Option<(u16, u8)>> = vec![None; cell_count];
        let idx = |x: i32, z: i32| (x + z * width) as usize;

        for _ in 0..features.decks {
            let w = 10 + rng.below(40);
            let h = 10 + rng.below(40);
            let x0 = RAMP_LENGTH + 1 + rng.below((width - w - RAMP_LENGTH - 2).max(1));
            let z0 = 1 + rng.below((height - h - 2).max(1));
            for z in z0..z0 + h {
                for x in x0..x0 + w {
                    upper[idx(x, z)] = Some((DECK_Y, WALKABLE_AREA));
                }
            }
            // A ramp rising towards the deck's -x edge, replacing the ground under it.
            let rz = z0 + rng.below(h - 4);
            for z in rz..rz + 4 {
                for step in 0..RAMP_LENGTH {
                    let x = x0 - RAMP_LENGTH + step;
                    ground[idx(x, z)] = None;
                    upper[idx(x, z)] = Some(((step * 3) as u16, WALKABLE_AREA));
                }
            }
        }
        for _ in 0..features.islands {
            let size = 2 + rng.below(11);
            let x0 = rng.below(width - size);
            let z0 = rng.below(height - size);
            let y = 20 + rng.below(20) as u16;
            for z in z0..z0 + size {
                for x in x0..x0 + size {
                    if upper[idx(x, z)].is_none() {
                        upper[idx(x, z)] = Some((y, WALKABLE_AREA));
                    }
                }
            }
        }
        for _ in 0..features.obstacles {
            let size = 1 + rng.below(4);
            let x0 = rng.below(width - size);
            let z0 = rng.below(height - size);
            let kind = rng.below(10);
            for z in z0..z0 + size {
                for x in x0..x0 + size {
                    let g = &mut ground[idx(x, z)];
                    if g.is_some() {
                        *g = match kind {
                            0 => Some(NULL_AREA),
                            1 => Some(OTHER_AREA),
                            _ => None,
                        };
                    }
                }
            }
        }

        let mut cells = Vec::with_capacity(cell_count);
        let mut ys: Vec<u16> = Vec::new();
        let mut areas: Vec<u8> = Vec::new();
        for c in 0..cell_count {
            let index = ys.len() as u32;
            if let Some(area) = ground[c] {
                ys.push(0);
                areas.push(area);
            }
            if let Some((y, area)) = upper[c] {
                ys.push(y);
                areas.push(area);
            }
            cells.push(CompactCell {
                index,
                count: ys.len() as u32 - index,
            });
        }

        let mut spans: Vec<CompactSpan> = Vec::with_capacity(ys.len());
        for z in 0..height {
            for x in 0..width {
                let c = cells[idx(x, z)];
                for i in c.index..c.index + c.count {
                    let y = ys[i as usize];
                    let top = if i + 1 < c.index + c.count {
                        ys[i as usize + 1]
                    } else {
                        255
                    };
                    let mut span = CompactSpan {
                        y,
                        reg: 0,
                        con: 0,
                        h: (top - y).min(255) as u8,
                    };
                    for dir in 0..4 {
                        span.set_con(dir, NOT_CONNECTED);
                        let (nx, nz) = (x + dir_offset_x(dir), z + dir_offset_z(dir));
                        if !(0..width).contains(&nx) || !(0..height).contains(&nz) {
                            continue;
                        }
                        let nc = cells[idx(nx, nz)];
                        if let Some(layer) = (0..nc.count).find(|&k| {
                            (ys[(nc.index + k) as usize] as i32 - y as i32).abs() <= CLIMB
                        }) {
                            span.set_con(dir, layer);
                        }
                    }
                    spans.push(span);
                }
            }
        }

        CompactHeightfield {
            width,
            height,
            walkable_height: 10,
            walkable_climb: CLIMB,
            cs: 0.3,
            ch: 0.2,
            cells,
            spans,
            areas,
            ..Default::default()
        }
    }
}

/// Recast's monotone and layer partitions transcribed plainly (linear scans, quadratic loops,
/// index loops, eager relabelling), as an oracle for the fast implementation.
#[allow(clippy::needless_range_loop)]
mod slow {
    use navlab::recast::compact::CompactHeightfield;
    use navlab::{recast::BORDER_REG, recast::NULL_AREA};

    fn neighbour(chf: &CompactHeightfield, x: i32, z: i32, i: usize, dir: usize) -> Option<usize> {
        chf.neighbour(x, z, i, dir)
    }

    fn paint(chf: &CompactHeightfield, x: (i32, i32), z: (i32, i32), id: u16, regs: &mut [u16]) {
        for zz in z.0..z.1 {
            for xx in x.0..x.1 {
                let c = chf.cell(xx, zz);
                for i in c.index as usize..(c.index + c.count) as usize {
                    if chf.areas[i] != NULL_AREA {
                        regs[i] = id;
                    }
                }
            }
        }
    }

    #[derive(Clone, Default)]
    struct Region {
        span_count: i32,
        id: u16,
        area: u8,
        remap: bool,
        visited: bool,
        overlap: bool,
        connects_to_border: bool,
        connections: Vec<u16>,
        floors: Vec<u16>,
    }

    fn add_unique(list: &mut Vec<u16>, v: u16) {
        if !list.contains(&v) {
            list.push(v);
        }
    }

    /// The row sweep: (one past the largest id, reg per span).
    fn sweep(chf: &CompactHeightfield, border: i32) -> (u16, Vec<u16>) {
        let (w, h) = (chf.width, chf.height);
        let mut regs = vec![0u16; chf.spans.len()];
        let mut id: u16 = 1;
        if border > 0 {
            let bw = w.min(border);
            let bh = h.min(border);
            paint(chf, (0, bw), (0, h), id | BORDER_REG, &mut regs);
            id += 1;
            paint(chf, (w - bw, w), (0, h), id | BORDER_REG, &mut regs);
            id += 1;
            paint(chf, (0, w), (0, bh), id | BORDER_REG, &mut regs);
            id += 1;
            paint(chf, (0, w), (h - bh, h), id | BORDER_REG, &mut regs);
            id += 1;
        }

        // Sweep: (id, samples, neighbour) per row run.
        let mut sweeps = vec![(0u16, 0u16, 0u16); 65536];
        for z in border..h - border {
            let mut prev = vec![0i32; id as usize + 1];
            let mut rid: u16 = 1;
            for x in border..w - border {
                let c = chf.cell(x, z);
                for i in c.index as usize..(c.index + c.count) as usize {
                    if chf.areas[i] == NULL_AREA {
                        continue;
                    }
                    let mut previd = 0;
                    if let Some(ai) = neighbour(chf, x, z, i, 0)
                        && regs[ai] & BORDER_REG == 0
                        && chf.areas[i] == chf.areas[ai]
                    {
                        previd = regs[ai];
                    }
                    if previd == 0 {
                        previd = rid;
                        rid += 1;
                        sweeps[previd as usize] = (0, 0, 0);
                    }
                    if let Some(ai) = neighbour(chf, x, z, i, 3) {
                        let nr = regs[ai];
                        if nr != 0 && nr & BORDER_REG == 0 && chf.areas[i] == chf.areas[ai] {
                            let s = &mut sweeps[previd as usize];
                            if s.2 == 0 || s.2 == nr {
                                s.2 = nr;
                                s.1 += 1;
                                prev[nr as usize] += 1;
                            } else {
                                s.2 = 0xffff;
                            }
                        }
                    }
                    regs[i] = previd;
                }
            }
            for k in 1..rid as usize {
                let (_, ns, nei) = sweeps[k];
                if nei != 0xffff && nei != 0 && prev[nei as usize] == ns as i32 {
                    sweeps[k].0 = nei;
                } else {
                    sweeps[k].0 = id;
                    id += 1;
                }
            }
            for x in border..w - border {
                let c = chf.cell(x, z);
                for i in c.index as usize..(c.index + c.count) as usize {
                    if regs[i] > 0 && regs[i] < rid {
                        regs[i] = sweeps[regs[i] as usize].0;
                    }
                }
            }
        }

        (id, regs)
    }

    /// The layer partition: (max_regions, reg per span).
    pub fn layers(chf: &CompactHeightfield, border: i32, min_area: i32) -> (u16, Vec<u16>) {
        let (w, h) = (chf.width, chf.height);
        let (id, mut regs) = sweep(chf, border);
        let nreg = id as usize + 1;
        let mut regions = vec![Region::default(); nreg];
        for (i, r) in regions.iter_mut().enumerate() {
            r.id = i as u16;
        }
        for z in 0..h {
            for x in 0..w {
                let c = chf.cell(x, z);
                let mut lregs: Vec<u16> = Vec::new();
                for i in c.index as usize..(c.index + c.count) as usize {
                    let ri = regs[i];
                    if ri == 0 || ri as usize >= nreg {
                        continue;
                    }
                    let reg = &mut regions[ri as usize];
                    reg.span_count += 1;
                    reg.area = chf.areas[i];
                    lregs.push(ri);
                    for dir in 0..4 {
                        if let Some(ai) = neighbour(chf, x, z, i, dir) {
                            let rai = regs[ai];
                            if rai > 0 && (rai as usize) < nreg && rai != ri {
                                add_unique(&mut reg.connections, rai);
                            }
                            if rai & BORDER_REG != 0 {
                                reg.connects_to_border = true;
                            }
                        }
                    }
                }
                for a in 0..lregs.len() {
                    for b in a + 1..lregs.len() {
                        if lregs[a] != lregs[b] {
                            add_unique(&mut regions[lregs[a] as usize].floors, lregs[b]);
                            add_unique(&mut regions[lregs[b] as usize].floors, lregs[a]);
                        }
                    }
                }
            }
        }
        for r in regions.iter_mut() {
            r.id = 0;
        }
        let mut layer_id: u16 = 1;
        for i in 1..nreg {
            if regions[i].id != 0 {
                continue;
            }
            regions[i].id = layer_id;
            let mut queue = vec![i];
            while !queue.is_empty() {
                let r = queue.remove(0);
                for j in 0..regions[r].connections.len() {
                    let nei = regions[r].connections[j] as usize;
                    if regions[nei].id != 0 || regions[r].area != regions[nei].area {
                        continue;
                    }
                    if regions[i].floors.contains(&(nei as u16)) {
                        continue;
                    }
                    queue.push(nei);
                    regions[nei].id = layer_id;
                    let floors = regions[nei].floors.clone();
                    for f in floors {
                        add_unique(&mut regions[i].floors, f);
                    }
                    regions[i].span_count += regions[nei].span_count;
                    regions[nei].span_count = 0;
                    regions[i].connects_to_border |= regions[nei].connects_to_border;
                }
            }
            layer_id = layer_id.wrapping_add(1);
        }
        for i in 0..nreg {
            let r = &regions[i];
            if r.span_count > 0 && r.span_count < min_area && !r.connects_to_border {
                let dead = r.id;
                for other in regions.iter_mut() {
                    if other.id == dead {
                        other.id = 0;
                    }
                }
            }
        }
        for r in regions.iter_mut() {
            r.remap = r.id != 0 && r.id & BORDER_REG == 0;
        }
        let mut generated = 0u16;
        for i in 0..nreg {
            if !regions[i].remap {
                continue;
            }
            let old = regions[i].id;
            generated += 1;
            for r in regions[i..].iter_mut() {
                if r.id == old {
                    r.id = generated;
                    r.remap = false;
                }
            }
        }
        for reg in regs.iter_mut() {
            if *reg & BORDER_REG == 0 {
                *reg = regions[*reg as usize].id;
            }
        }
        (generated, regs)
    }

    fn region_at(
        chf: &CompactHeightfield,
        regs: &[u16],
        x: i32,
        z: i32,
        i: usize,
        dir: usize,
    ) -> u16 {
        neighbour(chf, x, z, i, dir).map_or(0, |ai| regs[ai])
    }

    fn walk_contour(
        chf: &CompactHeightfield,
        regs: &[u16],
        (mut x, mut z, mut i, mut dir): (i32, i32, usize, usize),
        cont: &mut Vec<u16>,
    ) {
        let (start_i, start_dir) = (i, dir);
        let mut current = region_at(chf, regs, x, z, i, dir);
        cont.push(current);
        let mut iter = 0;
        loop {
            iter += 1;
            if iter >= 40000 {
                break;
            }
            let r = region_at(chf, regs, x, z, i, dir);
            if r != regs[i] {
                if r != current {
                    current = r;
                    cont.push(r);
                }
                dir = (dir + 1) & 3;
            } else {
                let Some(ni) = neighbour(chf, x, z, i, dir) else {
                    return;
                };
                x += navlab::recast::dir_offset_x(dir);
                z += navlab::recast::dir_offset_z(dir);
                i = ni;
                dir = (dir + 3) & 3;
            }
            if i == start_i && dir == start_dir {
                break;
            }
        }
        if cont.len() > 1 {
            let mut j = 0;
            while j < cont.len() {
                if cont[j] == cont[(j + 1) % cont.len()] {
                    cont.remove(j);
                } else {
                    j += 1;
                }
            }
        }
    }

    fn remove_adjacent(list: &mut Vec<u16>) {
        let mut i = 0;
        while i < list.len() && list.len() > 1 {
            if list[i] == list[(i + 1) % list.len()] {
                list.remove(i);
            } else {
                i += 1;
            }
        }
    }

    fn can_merge(a: &Region, b: &Region) -> bool {
        a.area == b.area
            && a.connections.iter().filter(|&&c| c == b.id).count() <= 1
            && !a.floors.contains(&b.id)
    }

    /// Merges region `b` into region `a` (indices).
    fn merge(regions: &mut [Region], a: usize, b: usize) -> bool {
        let (aid, bid) = (regions[a].id, regions[b].id);
        let acon = regions[a].connections.clone();
        let bcon = regions[b].connections.clone();
        let Some(ins_a) = acon.iter().position(|&c| c == bid) else {
            return false;
        };
        let Some(ins_b) = bcon.iter().position(|&c| c == aid) else {
            return false;
        };
        let mut merged = Vec::new();
        for k in 0..acon.len() - 1 {
            merged.push(acon[(ins_a + 1 + k) % acon.len()]);
        }
        for k in 0..bcon.len() - 1 {
            merged.push(bcon[(ins_b + 1 + k) % bcon.len()]);
        }
        remove_adjacent(&mut merged);
        regions[a].connections = merged;
        for f in regions[b].floors.clone() {
            add_unique(&mut regions[a].floors, f);
        }
        regions[a].span_count += regions[b].span_count;
        regions[b].span_count = 0;
        regions[b].connections.clear();
        true
    }

    /// The monotone partition: (max_regions, reg per span).
    pub fn monotone(
        chf: &CompactHeightfield,
        border: i32,
        min_area: i32,
        merge_size: i32,
    ) -> (u16, Vec<u16>) {
        let (w, h) = (chf.width, chf.height);
        let (id, mut regs) = sweep(chf, border);
        let nreg = id as usize + 1;
        let mut regions = vec![Region::default(); nreg];
        for (i, r) in regions.iter_mut().enumerate() {
            r.id = i as u16;
        }
        for z in 0..h {
            for x in 0..w {
                let c = chf.cell(x, z);
                let column = c.index as usize..(c.index + c.count) as usize;
                for i in column.clone() {
                    let r = regs[i];
                    if r == 0 || r as usize >= nreg {
                        continue;
                    }
                    regions[r as usize].span_count += 1;
                    for j in column.clone() {
                        let floor = regs[j];
                        if i == j || floor == 0 || floor as usize >= nreg {
                            continue;
                        }
                        if floor == r {
                            regions[r as usize].overlap = true;
                        }
                        add_unique(&mut regions[r as usize].floors, floor);
                    }
                    if !regions[r as usize].connections.is_empty() {
                        continue;
                    }
                    regions[r as usize].area = chf.areas[i];
                    if let Some(dir) = (0..4).find(|&d| region_at(chf, &regs, x, z, i, d) != r) {
                        let mut cont = Vec::new();
                        walk_contour(chf, &regs, (x, z, i, dir), &mut cont);
                        regions[r as usize].connections = cont;
                    }
                }
            }
        }

        for i in 0..nreg {
            let reg = &regions[i];
            if reg.id == 0 || reg.id & BORDER_REG != 0 || reg.span_count == 0 || reg.visited {
                continue;
            }
            let mut border_touch = false;
            let mut total = 0;
            let mut stack = vec![i];
            let mut trace = Vec::new();
            regions[i].visited = true;
            while let Some(ri) = stack.pop() {
                total += regions[ri].span_count;
                trace.push(ri);
                for c in regions[ri].connections.clone() {
                    if c & BORDER_REG != 0 {
                        border_touch = true;
                        continue;
                    }
                    let nei = &mut regions[c as usize];
                    if nei.visited || nei.id == 0 || nei.id & BORDER_REG != 0 {
                        continue;
                    }
                    stack.push(nei.id as usize);
                    nei.visited = true;
                }
            }
            if total < min_area && !border_touch {
                for t in trace {
                    regions[t].span_count = 0;
                    regions[t].id = 0;
                }
            }
        }

        loop {
            let mut merge_count = 0;
            for i in 0..nreg {
                let reg = &regions[i];
                if reg.id == 0 || reg.id & BORDER_REG != 0 || reg.overlap || reg.span_count == 0 {
                    continue;
                }
                if reg.span_count > merge_size && reg.connections.contains(&0) {
                    continue;
                }
                let mut smallest = 0x0fff_ffff;
                let mut merge_id = reg.id;
                for &c in &reg.connections {
                    if c & BORDER_REG != 0 {
                        continue;
                    }
                    let m = &regions[c as usize];
                    if m.id == 0 || m.id & BORDER_REG != 0 || m.overlap {
                        continue;
                    }
                    if m.span_count < smallest && can_merge(reg, m) && can_merge(m, reg) {
                        smallest = m.span_count;
                        merge_id = m.id;
                    }
                }
                if merge_id == reg.id {
                    continue;
                }
                let old = reg.id;
                if merge(&mut regions, merge_id as usize, i) {
                    for other in regions.iter_mut() {
                        if other.id == 0 || other.id & BORDER_REG != 0 {
                            continue;
                        }
                        if other.id == old {
                            other.id = merge_id;
                        }
                        let mut changed = false;
                        for c in &mut other.connections {
                            if *c == old {
                                *c = merge_id;
                                changed = true;
                            }
                        }
                        for f in &mut other.floors {
                            if *f == old {
                                *f = merge_id;
                            }
                        }
                        if changed {
                            remove_adjacent(&mut other.connections);
                        }
                    }
                    merge_count += 1;
                }
            }
            if merge_count == 0 {
                break;
            }
        }

        for r in regions.iter_mut() {
            r.remap = r.id != 0 && r.id & BORDER_REG == 0;
        }
        let mut generated = 0u16;
        for i in 0..nreg {
            if !regions[i].remap {
                continue;
            }
            let old = regions[i].id;
            generated += 1;
            for r in regions[i..].iter_mut() {
                if r.id == old {
                    r.id = generated;
                    r.remap = false;
                }
            }
        }
        for reg in regs.iter_mut() {
            if *reg & BORDER_REG == 0 {
                *reg = regions[*reg as usize].id;
            }
        }
        (generated, regs)
    }
}

/// The oracles below are only as good as their transcription: check them against C++ too.
#[test]
fn plain_transcriptions_match_cpp() {
    for mesh in common::STAGE_MESHES {
        let Some(chf) = common::compact_from_stages(mesh, true, false, None) else {
            return;
        };
        for partition in ["monotone", "layers"] {
            let (max_regions, regs) = if partition == "monotone" {
                slow::monotone(&chf, 0, MIN_REGION_AREA, MERGE_REGION_AREA)
            } else {
                slow::layers(&chf, 0, MIN_REGION_AREA)
            };
            let reference =
                common::load_json(&format!("stages/{mesh}/{partition}/6_regions.json")).unwrap();
            assert_eq!(
                max_regions as i64,
                reference["maxRegions"].as_i64().unwrap()
            );
            let reg: Vec<u16> = common::as_i64s(&reference["reg"])
                .iter()
                .map(|&r| r as u16)
                .collect();
            common::assert_slices_eq(&format!("{mesh} {partition} plain"), &regs, &reg);
        }
    }
}

#[test]
fn fast_monotone_merge_equals_plain_transcription() {
    for (seed, border) in [(4u64, 0), (5, 8)] {
        let features = scene::Features {
            obstacles: 1500,
            decks: 12,
            islands: 150,
        };
        let mut chf = scene::generate(240, 200, features, seed);
        let (max_regions, regs) = slow::monotone(&chf, border, MIN_REGION_AREA, MERGE_REGION_AREA);
        build_regions_monotone(
            &mut BuildContext::new(),
            &mut chf,
            border,
            MIN_REGION_AREA,
            MERGE_REGION_AREA,
        )
        .unwrap();
        assert!(max_regions > 20, "seed {seed}: only {max_regions} regions");
        assert_eq!(chf.max_regions, max_regions, "seed {seed} border {border}");
        let ours: Vec<u16> = chf.spans.iter().map(|s| s.reg).collect();
        common::assert_slices_eq(&format!("seed {seed} border {border}"), &ours, &regs);
    }
}

#[test]
fn fast_layer_merge_equals_plain_transcription() {
    for (seed, border) in [(1u64, 0), (2, 8), (3, 3)] {
        let features = scene::Features {
            obstacles: 1500,
            decks: 12,
            islands: 150,
        };
        let mut chf = scene::generate(240, 200, features, seed);
        let (max_regions, regs) = slow::layers(&chf, border, MIN_REGION_AREA);
        build_layer_regions(&mut BuildContext::new(), &mut chf, border, MIN_REGION_AREA).unwrap();
        assert!(max_regions > 5, "seed {seed}: only {max_regions} layers");
        assert_eq!(chf.max_regions, max_regions, "seed {seed} border {border}");
        let ours: Vec<u16> = chf.spans.iter().map(|s| s.reg).collect();
        common::assert_slices_eq(&format!("seed {seed} border {border}"), &ours, &regs);
    }
}

/// Checks what any layer partition must satisfy: ids in range, one area per region, and no two
/// spans of a column in the same region.
fn assert_sane_layers(chf: &navlab::recast::compact::CompactHeightfield) {
    let max = chf.max_regions as usize;
    let mut area_of = vec![None; max + 1];
    for c in &chf.cells {
        let column = &chf.spans[c.index as usize..(c.index + c.count) as usize];
        for (k, s) in column.iter().enumerate() {
            if s.reg == 0 || s.reg & navlab::recast::BORDER_REG != 0 {
                continue;
            }
            assert!((s.reg as usize) <= max, "region {} over max {max}", s.reg);
            let area = chf.areas[c.index as usize + k];
            let known = area_of[s.reg as usize].get_or_insert(area);
            assert_eq!(*known, area, "region {} mixes areas", s.reg);
            assert!(
                column[k + 1..].iter().all(|o| o.reg != s.reg),
                "region {} overlaps itself",
                s.reg
            );
        }
    }
    // Recast gives spanless regions layer ids too: the four border regions (with a tile
    // border) and the unused id one past the sweep's last (`nreg` is `maxRegions + 1`).
    let first_used = if chf.border_size > 0 { 5 } else { 1 };
    let unused: Vec<usize> = (first_used..max)
        .filter(|&r| area_of[r].is_none())
        .collect();
    assert!(unused.is_empty(), "unused region ids {unused:?}");
}

#[test]
fn layers_on_a_large_scene_finish_quickly_and_sanely() {
    let features = scene::Features {
        obstacles: 8_000,
        decks: 200,
        islands: 20_000,
    };
    let mut chf = scene::generate(1400, 1400, features, 7);
    let mut ctx = BuildContext::new();
    build_layer_regions(&mut ctx, &mut chf, 8, MIN_REGION_AREA).unwrap();
    let time = |label| ctx.accumulated(label).unwrap_or_default();
    eprintln!(
        "layers: {} spans, {} regions in {:?} (merge {:?})",
        chf.spans.len(),
        chf.max_regions,
        time(TimerLabel::BuildRegions),
        time(TimerLabel::BuildRegionsFilter),
    );
    assert!(chf.max_regions > 100, "only {} regions", chf.max_regions);
    if std::env::var_os("NAVLAB_SLOW_ORACLE").is_some() {
        let start = std::time::Instant::now();
        let (max_regions, regs) = slow::layers(&chf, 8, MIN_REGION_AREA);
        eprintln!("slow: {max_regions} in {:?}", start.elapsed());
        let ours: Vec<u16> = chf.spans.iter().map(|s| s.reg).collect();
        assert_eq!(ours, regs);
    }
    assert_sane_layers(&chf);
}

#[test]
fn watershed_observer_sees_every_level_without_changing_the_result() {
    let features = scene::Features {
        obstacles: 400,
        decks: 4,
        islands: 40,
    };
    let mut plain = scene::generate(120, 100, features, 9);
    build_distance_field(&mut BuildContext::new(), &mut plain).unwrap();
    let mut observed = plain.clone();
    build_regions(&mut BuildContext::new(), &mut plain, 0, 64, 400).unwrap();

    let mut levels = Vec::new();
    let mut last_snapshot = Vec::new();
    navlab::recast::region::build_regions_observed(
        &mut BuildContext::new(),
        &mut observed,
        0,
        64,
        400,
        |level, regs| {
            levels.push(level);
            last_snapshot = regs.to_vec();
        },
    )
    .unwrap();
    assert_eq!(plain, observed);
    // Levels step down by 2 from the rounded-up maximum to 0, then the final expansion (0).
    let top = (observed.max_distance + 1) & !1;
    let expected: Vec<u16> = (0..top / 2).rev().map(|k| k * 2).chain([0]).collect();
    assert_eq!(levels, expected);
    // The last snapshot is the expanded watershed before merging: every walkable span that
    // still has a region after merging had one then.
    for (span, &before) in observed.spans.iter().zip(&last_snapshot) {
        if span.reg != 0 {
            assert_ne!(before, 0);
        }
    }
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let features = scene::Features {
        obstacles: 10,
        decks: 0,
        islands: 0,
    };
    let chf = scene::generate(30, 30, features, 1);
    let mut ctx = BuildContext::new();

    let mut no_distance = chf.clone();
    assert!(build_regions(&mut ctx, &mut no_distance, 0, 8, 20).is_err());
    let mut negative_border = chf.clone();
    assert!(build_layer_regions(&mut ctx, &mut negative_border, -1, 8).is_err());
    let mut truncated = chf.clone();
    truncated.spans.pop();
    assert!(build_distance_field(&mut ctx, &mut truncated).is_err());
    assert!(build_regions_monotone(&mut ctx, &mut truncated, 0, 8, 20).is_err());
    assert_eq!(ctx.entries().len(), 4);
    assert!(ctx.entries()[0].message.starts_with("rcBuildRegions: "));
}
