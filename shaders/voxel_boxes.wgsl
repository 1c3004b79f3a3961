// One box per heightfield span, expanded from a unit cube by instance data: the voxel views
// (Voxels, Walkable Voxels, Compact…) draw millions of spans without a vertex per span.
// Faces are shaded as RecastDemo's duCalcBoxColors: the top in the top colour, the bottom and
// the four sides from the side colour at fixed brightness.

#import bevy_pbr::mesh_view_bindings::{view, fog}
#import bevy_pbr::mesh_view_types::FOG_MODE_LINEAR

struct Vertex {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    // Span box: minimum corner x, y, z and the cell size.
    @location(3) corner_and_size: vec4<f32>,
    // The span's top (world y).
    @location(4) top: f32,
    // Top and side colours, packed as duRGBA (red in the lowest byte), sRGB; then the faces
    // to draw, a bit each: top, bottom, +x, -x, +z, -z.
    @location(5) colors_and_faces: vec3<u32>,
};

struct VertexOutput {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) color: vec4<f32>,
    @location(1) world_position: vec3<f32>,
};

fn srgb_to_linear(c: vec3<f32>) -> vec3<f32> {
    let low = c / 12.92;
    let high = pow((c + 0.055) / 1.055, vec3<f32>(2.4));
    return select(high, low, c <= vec3<f32>(0.04045));
}

// duCalcBoxColors: the top as given (already shaded), the bottom at 140/256 of the side
// colour, +x and +z faces at 165/256, -x and -z faces at 217/256 (duMultCol).
fn face_color(n: vec3<f32>, top: vec4<f32>, side: vec4<f32>) -> vec4<f32> {
    var scale = 217.0;
    var base = side;
    if (n.y > 0.5) {
        base = top;
        scale = 256.0;
    } else if (n.y < -0.5) {
        scale = 140.0;
    } else if (n.x > 0.5 || n.z > 0.5) {
        scale = 165.0;
    }
    return vec4<f32>(base.rgb * (scale / 256.0), base.a);
}

// The bit of the face a cube vertex belongs to, from its normal.
fn face_bit(n: vec3<f32>) -> u32 {
    if (n.y > 0.5) {
        return 1u;
    } else if (n.y < -0.5) {
        return 2u;
    } else if (n.x > 0.5) {
        return 4u;
    } else if (n.x < -0.5) {
        return 8u;
    } else if (n.z > 0.5) {
        return 16u;
    }
    return 32u;
}

@vertex
fn vertex(vertex: Vertex) -> VertexOutput {
    let corner = vertex.corner_and_size.xyz;
    let size = vertex.corner_and_size.w;
    let extent = vec3<f32>(size, max(vertex.top - corner.y, 0.0), size);
    let world = corner + (vertex.position + vec3<f32>(0.5)) * extent;
    let top = unpack4x8unorm(vertex.colors_and_faces.x);
    let side = unpack4x8unorm(vertex.colors_and_faces.y);
    let shaded = face_color(vertex.normal, top, side);
    var out: VertexOutput;
    out.clip_position = view.clip_from_world * vec4<f32>(world, 1.0);
    if ((vertex.colors_and_faces.z & face_bit(vertex.normal)) == 0u) {
        // A covered face: every corner outside the clip volume, so nothing is rasterized.
        out.clip_position = vec4<f32>(2.0, 2.0, 2.0, 1.0);
    }
    out.color = vec4<f32>(srgb_to_linear(shaded.rgb), shaded.a);
    out.world_position = world;
    return out;
}

// The viewer's linear distance fog, as the other debug layers get it from their material.
@fragment
fn fragment(in: VertexOutput) -> @location(0) vec4<f32> {
    if (fog.mode != FOG_MODE_LINEAR) {
        return in.color;
    }
    let distance = length(in.world_position - view.world_position.xyz);
    let start = fog.be.x;
    let end = fog.be.y;
    let amount = fog.base_color.a * (1.0 - clamp((end - distance) / (end - start), 0.0, 1.0));
    return vec4<f32>(mix(in.color.rgb, fog.base_color.rgb, amount), in.color.a);
}
