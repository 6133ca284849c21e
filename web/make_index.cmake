# Writes index.html from the shell: the app's code loads from ropeviz.js (high priority: the page is the app)
# instead of being inlined, and both it and the wasm are preloaded from the head: they download while the shell's
# inline script waits for the WebGL context (which blocks the parser, and so the script tag, for 150-800 ms with a
# software GPU); the script tag and the app's fetch then take the preloaded copies. The script tag is a plain one
# at the end of the body: it runs as soon as the parser reaches it (an async one waited for a rendering update).
file(READ "${INPUT}" html)
string(CONCAT preloads
  "<link rel=\"preload\" href=\"ropeviz.js\" as=\"script\" fetchpriority=\"high\">\n"
  "<link rel=\"preload\" href=\"ropeviz.wasm\" as=\"fetch\" type=\"application/wasm\" crossorigin>\n")
string(REPLACE "<link rel=\"icon\"" "${preloads}<link rel=\"icon\"" html "${html}")
file(READ "${UI_SHADER}" shader)  # the UI shader as shipped (src/assets/embed_shaders.cmake), which the shell links
string(REPLACE "{{{ UI_SHADER }}}" "${shader}" html "${html}")
string(REPLACE "{{{ SCRIPT }}}" "<script src=\"ropeviz.js\"></script>" html "${html}")
file(WRITE "${OUTPUT}" "${html}")
