# Writes index.html from the shell: the app's code loads from ropeviz.js instead of being inlined.
file(READ "${INPUT}" html)
string(REPLACE "{{{ SCRIPT }}}" "<script async src=\"ropeviz.js\"></script>" html "${html}")
file(WRITE "${OUTPUT}" "${html}")
