// The one shader the UI draws with, both stages (the loader prepends #version and VERTEX or FRAGMENT): ImGui's
// draw lists, and the colour-mapped heatmaps drawn among them. One program, because in a browser a program's
// first use waits for the GPU process to have linked it (a second program was a second wait before the first
// frame); and no uniform to set, since asking a uniform's location waits too. Per-draw values are constant
// attributes (glVertexAttrib*, not arrays); the sampler is never set, so it reads texture unit 0. The attributes'
// locations are written here (gl_renderer.hpp's UiAttribute), so nothing binds them: the web page links this text
// as shipped (without comments) before the app loads, and the app takes that program (gl_program.cpp).
#ifdef VERTEX
layout(location = 0) in vec2 a_position;  // ImGui's vertices (arrays)
layout(location = 1) in vec2 a_uv;
layout(location = 2) in vec4 a_colour;
layout(location = 3) in vec4 a_proj;      // display coordinates to clip space: scale x, y; offset x, y
layout(location = 4) in vec4 a_rect;      // a heatmap's rectangle (x0, y0, x1, y1), display coordinates
// x: 1 draws a heatmap quad (four corners from gl_VertexID), 0 ImGui's vertices; y, z: vmin, vmax
layout(location = 5) in vec3 a_heatmap;
out vec2 v_uv;
out vec4 v_colour;
flat out vec3 v_heatmap;
void main() {
  vec2 position = a_position;
  v_uv = a_uv;
  v_colour = a_colour;
  if (a_heatmap.x > 0.5) {
    vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
    position = mix(a_rect.xy, a_rect.zw, corner);
    v_uv = corner;
  }
  v_heatmap = a_heatmap;
  gl_Position = vec4(position * a_proj.xy + a_proj.zw, 0.0, 1.0);
}
#else
uniform highp sampler2D u_texture;  // unit 0: ImGui's font atlas, or a heatmap's values (one R32F texel per cell)
in vec2 v_uv;
in vec4 v_colour;
flat in vec3 v_heatmap;
out vec4 frag_colour;
// The diverging colour map of src/app/ui/heatmap.cpp: t in [-1, 1], blue - dark - gold.
vec3 diverging(float t) {
  float a = pow(min(1.0, abs(t)), 0.8);
  vec3 mid = vec3(0.13, 0.14, 0.17);
  vec3 end = t < 0.0 ? vec3(0.26, 0.55, 0.98) : vec3(1.00, 0.74, 0.28);
  return mix(mid, end, a);
}
void main() {
  if (v_heatmap.x > 0.5) {  // each cell's value fetched exactly (WebGL2 cannot filter R32F)
    ivec2 size = textureSize(u_texture, 0);
    ivec2 cell = min(ivec2(v_uv * vec2(size)), size - 1);
    float v = texelFetch(u_texture, cell, 0).r;
    float t = (v - v_heatmap.y) / max(v_heatmap.z - v_heatmap.y, 1e-30) * 2.0 - 1.0;
    frag_colour = vec4(diverging(t), 1.0);
  } else {
    frag_colour = v_colour * texture(u_texture, v_uv);
  }
}
#endif
