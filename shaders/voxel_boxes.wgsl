// One quad per run of visible span-box faces (neighbouring cells whose face lies in the same
// plane with the same colour, or with a grey level per cell), expanded from 16 bytes of
// instance data (32 with grey levels): the voxel views (Voxels, Walkable Voxels, Compact…) draw
// millions of spans with four vertices per run and no vertex made on the CPU. A compact view's
// floor quad is the top of a box of no height. Faces come shaded as RecastDemo's
// duCalcBoxColors shades them.

#import bevy_pbr::mesh_view_bindings::{view, fog}
#import bevy_pbr::mesh_view_types::FOG_MODE_LINEAR

struct Vertex {
    // The quad corner along the face's two axes: (0,0), (1,0), (0,1), (1,1) as a strip.
    @location(0) corner: vec3<f32>,
    // The grid: minimum corner x, y, z and the cell size; then the cell height.
    @location(1) grid: vec4<f32>,
    @location(2) cell_height: f32,
    // The face: x | z << 16; bottom | top << 14 | face << 28 (heights in cell heights; faces
    // top, bottom, +x, -x, +z, -z; bit 31: the run has grey levels); the colour packed as
    // duRGBA (red in the lowest byte), sRGB; the cells the run covers (along z for the ±x
    // sides, else along x).
    @location(3) face: vec4<u32>,
#ifdef GREY_RUNS
    // With bit 31: each cell's grey level, four per word, the run's first cell lowest.
    @location(4) greys: vec4<u32>,
#endif
};

struct VertexOutput {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) color: vec4<f32>,
    @location(1) world_position: vec3<f32>,
#ifdef GREY_RUNS
    // The run's grey levels and its length (0: one colour for the run), and how far along the
    // run the point is, in cells.
    @location(2) @interpolate(flat) greys: vec4<u32>,
    @location(3) @interpolate(flat) grey_cells: u32,
    @location(4) along_run: f32,
#endif
};

fn srgb_to_linear(c: vec3<f32>) -> vec3<f32> {
    let low = c / 12.92;
    let high = pow((c + 0.055) / 1.055, vec3<f32>(2.4));
    return select(high, low, c <= vec3<f32>(0.04045));
}

@vertex
fn vertex(vertex: Vertex) -> VertexOutput {
    let cs = vertex.grid.w;
    let cell_x = vertex.face.x & 0xffffu;
    let cell_z = vertex.face.x >> 16u;
    let which = (vertex.face.y >> 28u) & 7u;
    let along_z = which == 2u || which == 3u;
    let x0 = vertex.grid.x + f32(cell_x) * cs;
    let z0 = vertex.grid.z + f32(cell_z) * cs;
    let x1 = vertex.grid.x + f32(cell_x + select(vertex.face.w, 1u, along_z)) * cs;
    let z1 = vertex.grid.z + f32(cell_z + select(1u, vertex.face.w, along_z)) * cs;
    let y0 = vertex.grid.y + f32(vertex.face.y & 0x3fffu) * vertex.cell_height;
    let y1 = vertex.grid.y + f32((vertex.face.y >> 14u) & 0x3fffu) * vertex.cell_height;
    // The strip's second corner steps along the first axis, its third along the second, so
    // that (first × second) points out of the box: counter-clockwise seen from outside.
    let s = vertex.corner.x > 0.5;
    let t = vertex.corner.y > 0.5;
    var world: vec3<f32>;
    switch (which) {
        case 0u: { world = vec3(select(x0, x1, t), y1, select(z0, z1, s)); }
        case 1u: { world = vec3(select(x0, x1, s), y0, select(z0, z1, t)); }
        case 2u: { world = vec3(x1, select(y0, y1, s), select(z0, z1, t)); }
        case 3u: { world = vec3(x0, select(y0, y1, t), select(z0, z1, s)); }
        case 4u: { world = vec3(select(x0, x1, s), select(y0, y1, t), z1); }
        default: { world = vec3(select(x0, x1, t), select(y0, y1, s), z0); }
    }
    let color = unpack4x8unorm(vertex.face.z);
    var out: VertexOutput;
    out.clip_position = view.clip_from_world * vec4<f32>(world, 1.0);
    out.color = vec4<f32>(srgb_to_linear(color.rgb), color.a);
    out.world_position = world;
#ifdef GREY_RUNS
    out.greys = vertex.greys;
    out.grey_cells = select(0u, vertex.face.w, (vertex.face.y >> 31u) != 0u);
    // The run's far end is where the corner along the run is 1.
    let far_end = select(s, t, which == 0u || which == 2u || which == 5u);
    out.along_run = select(0.0, f32(vertex.face.w), far_end);
#endif
    return out;
}

// The colour of the fragment's cell: the run's one colour, or its cell's grey level.
fn cell_color(in: VertexOutput) -> vec4<f32> {
#ifdef GREY_RUNS
    if (in.grey_cells != 0u) {
        let cell = min(u32(max(in.along_run, 0.0)), in.grey_cells - 1u);
        let level = (in.greys[cell / 4u] >> ((cell % 4u) * 8u)) & 0xffu;
        return vec4<f32>(srgb_to_linear(vec3<f32>(f32(level) / 255.0)), 1.0);
    }
#endif
    return in.color;
}

// The viewer's linear distance fog, as the other debug layers get it from their material.
@fragment
fn fragment(in: VertexOutput) -> @location(0) vec4<f32> {
    let color = cell_color(in);
    if (fog.mode != FOG_MODE_LINEAR) {
        return color;
    }
    let distance = length(in.world_position - view.world_position.xyz);
    let start = fog.be.x;
    let end = fog.be.y;
    let amount = fog.base_color.a * (1.0 - clamp((end - distance) / (end - start), 0.0, 1.0));
    return vec4<f32>(mix(color.rgb, fog.base_color.rgb, amount), color.a);
}
