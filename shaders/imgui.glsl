// ImGui's draw lists, both stages: the loader prepends #version and VERTEX or FRAGMENT.
#ifdef VERTEX
uniform mat4 u_proj;
in vec2 a_position;
in vec2 a_uv;
in vec4 a_colour;
out vec2 v_uv;
out vec4 v_colour;
void main() {
  v_uv = a_uv;
  v_colour = a_colour;
  gl_Position = u_proj * vec4(a_position, 0.0, 1.0);
}
#else
uniform sampler2D u_texture;
in vec2 v_uv;
in vec4 v_colour;
out vec4 frag_colour;
void main() {
  frag_colour = v_colour * texture(u_texture, v_uv);
}
#endif
