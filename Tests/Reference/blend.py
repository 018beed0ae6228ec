"""The blend modes of W3C Compositing and Blending Level 1, on premultiplied RGBA in numpy:
the reference Segue's `blend:` is checked against (BlendModeTests).

usage: blend.py MODE OPACITY WIDTH HEIGHT BACKDROP SOURCE RESULT
Each file is raw premultiplied RGBA, 8 bits a channel. Prints the largest difference, in
levels, between RESULT and SOURCE laid over BACKDROP at OPACITY by MODE, and how many
channels differ by more than one level.
"""
import sys

import numpy as np


def read(path, width, height):
    return np.fromfile(path, dtype=np.uint8).reshape(height, width, 4).astype(np.float64) / 255


def hard_light(cb, cs):
    return np.where(cs <= 0.5, cb * 2 * cs, cb + (2 * cs - 1) - cb * (2 * cs - 1))


def soft_light(cb, cs):
    d = np.where(cb <= 0.25, ((16 * cb - 12) * cb + 4) * cb, np.sqrt(cb))
    return np.where(cs <= 0.5, cb - (1 - 2 * cs) * cb * (1 - cb), cb + (2 * cs - 1) * (d - cb))


FUNCTIONS = {
    "normal": lambda cb, cs: cs,
    "multiply": lambda cb, cs: cb * cs,
    "screen": lambda cb, cs: cb + cs - cb * cs,
    "overlay": lambda cb, cs: hard_light(cs, cb),
    "darken": np.minimum,
    "lighten": np.maximum,
    "difference": lambda cb, cs: np.abs(cb - cs),
    "soft-light": soft_light,
}


def main():
    mode, opacity = sys.argv[1], float(sys.argv[2])
    width, height = int(sys.argv[3]), int(sys.argv[4])
    backdrop, source, result = (read(p, width, height) for p in sys.argv[5:8])
    source = source * opacity
    cs, a_s = source[..., :3], source[..., 3:]
    cb, a_b = backdrop[..., :3], backdrop[..., 3:]
    if mode == "add":
        co = np.minimum(cs + cb, 1)
        ao = np.minimum(a_s + a_b, 1)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            Cs = np.clip(np.where(a_s > 0, cs / a_s, 0), 0, 1)
            Cb = np.clip(np.where(a_b > 0, cb / a_b, 0), 0, 1)
        co = cs * (1 - a_b) + cb * (1 - a_s) + a_s * a_b * FUNCTIONS[mode](Cb, Cs)
        ao = a_s + a_b * (1 - a_s)
    expected = np.concatenate([co, ao], axis=-1) * 255
    difference = np.abs(np.round(expected) - result * 255)
    print(f"{difference.max():.0f} {(difference > 1).sum()}")


if __name__ == "__main__":
    main()
