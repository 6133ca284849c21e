#!/usr/bin/env python3
"""The libraries of src/ link in one direction (the README's layout table): every #include of a file under src/
names a folder its own folder may depend on, and the core and the app's state include no ImGui or GL."""
import pathlib
import re
import sys

SRC = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1] / "src")

CORE = ["core/base", "core/rope", "core/encodings", "core/models", "core/decoder", "core/lab", "core/lesson",
        "core/weights", "core/infer", "core/tokenize"]
ROOMS = ["app/run", "app/lab", "app/lesson", "app/trained_table", "app/rope_usage"]
# A room's data struct in App (app/<room>/<name>_state.hpp, core's headers only): the one file of a room the house's
# state.hpp reads.
ROOM_STATE = re.compile(r"^app/[a-z_]+/[a-z_]+_state\.hpp$")
# A room's link-key rows (app/<room>/<name>_keys.hpp, over app/state/param_rows.hpp and core): the house's table of
# link keys (app/state/params.cpp) places them in Key's order. Like the data struct, it reads no UI.
ROOM_KEYS = re.compile(r"^app/[a-z_]+/[a-z_]+_keys\.hpp$")
# Where one room reads another's published header, and why (the only exceptions to "never another room's inside").
ROOM_READS = {
    ("app/rope_usage", "app/run/run_session.hpp"): "Frequencies in use draws the activation norms Run it measured",
}
# folder -> the folders its files may include (itself included)
ALLOWED = {
    "core/base": ["core/base"],
    "core/rope": ["core/base", "core/rope"],
    "core/encodings": ["core/base", "core/encodings"],
    "core/models": ["core/base", "core/rope", "core/models"],
    "core/decoder": ["core/base", "core/rope", "core/encodings", "core/decoder"],
    "core/lab": ["core/base", "core/rope", "core/encodings", "core/decoder", "core/weights", "core/lab"],
    "core/lesson": ["core/base", "core/rope", "core/encodings", "core/lesson"],
    "core/weights": ["core/base", "core/rope", "core/models", "core/weights"],
    "core/infer": ["core/base", "core/rope", "core/models", "core/weights", "core/infer"],
    "core/tokenize": ["core/base", "core/tokenize"],
    "cli": CORE + ["cli"],
    "app/state": CORE + ["app/state"],
    "app/ui": CORE + ["app/state", "app/ui", "assets"],
    "app/panels": CORE + ["app/state", "app/ui", "app/panels"] + ROOMS,  # the registry calls every room's
    "app/text": CORE + ["app/state", "app/ui", "app/panels", "app/text"] + ROOMS,
    "app/shell": CORE + ["app/state", "app/ui", "app/panels", "app/text", "app/shell"] + ROOMS,
    "app/imgui_hooks": [],
    "assets": ["assets"],
    "platform/gl": CORE + ["app/state", "app/ui", "app/panels", "app/text", "app/shell", "assets", "platform/gl"]
    + ROOMS,
}
for room in ROOMS:  # the feature rooms: core, the house's state and the shared UI, never another room's inside
    ALLOWED[room] = CORE + ["app/state", "app/ui", room]
for seam in ("platform/desktop", "platform/web"):
    ALLOWED[seam] = ALLOWED["platform/gl"] + [seam]
ALLOWED["platform/web"].append("cli")  # the page answers forward and passkey with the CLI's code (web_infer.cpp)
NO_UI = CORE + ["cli", "app/state"]  # no ImGui, no GL, no window
UI_HEADERS = re.compile(r'#include [<"](imgui[a-z_]*\.h|GLFW/|GL/|GLES3/|emscripten|platform/)')
INCLUDE = re.compile(r'^#include "((?:core|app|cli|assets|platform)/[^"]+)"', re.M)


def folder_of(rel):
    parts = rel.split("/")
    return "/".join(parts[:2]) if parts[0] in ("core", "app", "platform") else parts[0]


def main():
    problems, checked = [], 0
    for path in sorted(SRC.rglob("*")):
        if path.suffix not in (".cpp", ".hpp"):
            continue
        rel = path.relative_to(SRC).as_posix()
        folder = folder_of(rel)
        if folder not in ALLOWED:
            problems.append(f"{rel}: folder {folder} is not in the layering table")
            continue
        text = path.read_text(encoding="utf-8")
        for target in INCLUDE.findall(text):
            checked += 1
            allowed = folder_of(target) in ALLOWED[folder] or (folder, target) in ROOM_READS
            if folder == "app/state" and folder_of(target) in ROOMS:
                allowed = bool(ROOM_STATE.match(target) or ROOM_KEYS.match(target))
            if ROOM_STATE.match(rel) and folder_of(target) not in CORE:
                allowed = False  # the house reads it: it may read only core
            if ROOM_KEYS.match(rel):
                allowed = folder_of(target) in CORE or target in ("app/state/param_rows.hpp", "app/state/params.hpp")
            if not allowed:
                problems.append(f"{rel} includes {target}: {folder} may not depend on {folder_of(target)}")
        if (folder in NO_UI or ROOM_STATE.match(rel) or ROOM_KEYS.match(rel)) and UI_HEADERS.search(text):
            problems.append(f"{rel}: {folder} must not include ImGui, GL, GLFW or Emscripten headers")
    for p in problems:
        print(p)
    print(f"layering: {checked} includes checked, {len(problems)} against the direction")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
