// Heatmap shader, both stages: the loader prepends #version and VERTEX or FRAGMENT (one file, since
// src/assets' embed step handles a single shader file per build).
#ifdef VERTEX
// Quad: four corners from gl_VertexID (no vertex buffer) at u_rect (x0, y0, x1, y1) in display coords.
uniform mat4 u_proj;
uniform vec4 u_rect;
out vec2 v_uv;
void main() {
  vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
  v_uv = corner;
  gl_Position = u_proj * vec4(mix(u_rect.xy, u_rect.zw, corner), 0.0, 1.0);
}
#else
// One R32F texel per cell, fetched exactly (WebGL2 cannot filter R32F), diverging map of src/app/heatmap.cpp.
uniform highp sampler2D u_values;
uniform vec2 u_range;  // vmin, vmax
in vec2 v_uv;
out vec4 frag_colour;
vec3 diverging(float t) {
  float a = pow(min(1.0, abs(t)), 0.8);
  vec3 mid = vec3(0.13, 0.14, 0.17);
  vec3 end = t < 0.0 ? vec3(0.26, 0.55, 0.98) : vec3(1.00, 0.74, 0.28);
  return mix(mid, end, a);
}
void main() {
  ivec2 size = textureSize(u_values, 0);
  ivec2 cell = min(ivec2(v_uv * vec2(size)), size - 1);
  float v = texelFetch(u_values, cell, 0).r;
  float t = (v - u_range.x) / max(u_range.y - u_range.x, 1e-30) * 2.0 - 1.0;
  frag_colour = vec4(diverging(t), 1.0);
}
#endif
