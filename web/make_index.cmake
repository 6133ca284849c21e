# Writes index.html from the shell: the app's code loads from ropeviz.js (high priority: the page is the app)
# instead of being inlined, and the wasm is preloaded, so its download runs alongside the script's (the app's
# fetch then takes the preloaded copy).
file(READ "${INPUT}" html)
string(REPLACE "<link rel=\"icon\"" "<link rel=\"preload\" href=\"ropeviz.wasm\" as=\"fetch\" type=\"application/wasm\" crossorigin>\n<link rel=\"icon\"" html "${html}")
string(REPLACE "{{{ SCRIPT }}}" "<script async fetchpriority=\"high\" src=\"ropeviz.js\"></script>" html "${html}")
file(WRITE "${OUTPUT}" "${html}")
