"""Renders a transition in gl-transitions' format with OpenGL (Mesa's llvmpipe through
EGL, no display), the reference Segue's ports are checked against.

    python glsl.py FILE.glsl FROM.rgba TO.rgba WIDTH HEIGHT OUT.rgba P1,P2,... [NAME=VALUE ...]

FROM and TO are WIDTH x HEIGHT pictures, RGBA, rows from the top. OUT gets one such
picture for each progress P. Uniforms take the defaults their file writes (`// = 0.5` or
`/* = vec3(...) */`), NAME=VALUE overriding (a number, true or false, or numbers joined
by commas for a vector). Textures are sampled bilinearly, clamped at their edges; `ratio`
is WIDTH / HEIGHT.
"""
import re
import sys

import moderngl
import numpy as np

PRELUDE = """#version 330
uniform sampler2D segue_from;
uniform sampler2D segue_to;
uniform float progress;
uniform float ratio;
vec4 getFromColor(vec2 uv) { return texture(segue_from, uv); }
vec4 getToColor(vec2 uv) { return texture(segue_to, uv); }
"""

MAIN = """
in vec2 segue_uv;
out vec4 segue_color;
void main() { segue_color = transition(segue_uv); }
"""

VERTEX = """#version 330
in vec2 position;
out vec2 segue_uv;
void main() { segue_uv = position * 0.5 + 0.5; gl_Position = vec4(position, 0.0, 1.0); }
"""

DECLARED = re.compile(r"uniform\s+(\w+)\s+(\w+)\s*(?:;\s*//\s*=\s*([^\n;]+)|/\*\s*=\s*(.+?)\s*\*/\s*;)")


def numbers(text):
    """The numbers of a default: 0.5, true, vec2(1.0, -1.0), ivec2(4)."""
    text = text.strip().rstrip(";").strip()
    if text in ("true", "false"):
        return [1.0 if text == "true" else 0.0]
    found = re.match(r"\w*\((.*)\)$", text)
    inner = found.group(1) if found else text
    return [float(v) for v in inner.split(",") if v.strip()]


def main():
    path, from_path, to_path, width, height, out_path, progresses = sys.argv[1:8]
    width, height = int(width), int(height)
    source = open(path, encoding="utf-8").read()
    values = {}
    for kind, name, line, block in DECLARED.findall(source):
        values[name] = (kind, numbers(line or block))
    for setting in sys.argv[8:]:
        name, value = setting.split("=", 1)
        values[name] = (values.get(name, ("float", None))[0], numbers(value))

    ctx = moderngl.create_context(standalone=True, backend="egl")
    program = ctx.program(vertex_shader=VERTEX, fragment_shader=PRELUDE + source + MAIN)

    def texture(file, unit):
        pixels = np.fromfile(file, dtype=np.uint8).reshape(height, width, 4)[::-1].copy()
        t = ctx.texture((width, height), 4, pixels.tobytes())
        t.filter = (moderngl.LINEAR, moderngl.LINEAR)
        t.repeat_x = t.repeat_y = False
        t.use(unit)
        return t

    textures = [texture(from_path, 0), texture(to_path, 1)]
    for name, unit in (("segue_from", 0), ("segue_to", 1)):
        if name in program:
            program[name].value = unit
    if "ratio" in program:
        program["ratio"].value = width / height
    for name, (kind, vector) in values.items():
        if name not in program or vector is None:
            continue
        if kind in ("int", "bool"):
            program[name].value = int(vector[0])
        elif kind.startswith(("vec", "ivec")):
            size = int(kind[-1])
            vector = vector * size if len(vector) == 1 else vector
            program[name].value = tuple(int(v) if kind[0] == "i" else v for v in vector)
        else:
            program[name].value = vector[0]

    quad = ctx.buffer(np.array([-1, -1, 1, -1, -1, 1, 1, 1], dtype="f4").tobytes())
    vao = ctx.vertex_array(program, [(quad, "2f", "position")])
    target = ctx.framebuffer(color_attachments=[ctx.texture((width, height), 4)])
    target.use()
    with open(out_path, "wb") as out:
        for p in progresses.split(","):
            if "progress" in program:
                program["progress"].value = float(p)
            target.clear(0, 0, 0, 0)
            vao.render(moderngl.TRIANGLE_STRIP)
            frame = np.frombuffer(target.read(components=4), dtype=np.uint8).reshape(height, width, 4)
            out.write(frame[::-1].tobytes())
    del textures


if __name__ == "__main__":
    main()
