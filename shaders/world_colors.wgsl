// The world view's blocks (src/viewer/draw/world.rs): each vertex's colour as it is, blended by
// the pipeline. No fog and no lighting path: a software renderer pays for every instruction of
// every pixel, and a world covers the screen.
#import bevy_pbr::forward_io::VertexOutput

@fragment
fn fragment(in: VertexOutput) -> @location(0) vec4<f32> {
#ifdef VERTEX_COLORS
    return in.color;
#else
    return vec4<f32>(1.0, 1.0, 1.0, 1.0);
#endif
}
