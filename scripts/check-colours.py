"""The impact colours of the default theme, as readers with any colour vision see them.

    python3 scripts/check-colours.py [static/style.css]

Reads `--critical`, `--major`, `--minor`, `--none` and `--maintenance` (and their `-bg`)
of the light and the dark scheme from the stylesheet and checks, for each scheme:

- each colour, as a fill (calendar days, bars, dots, edges), at least 3:1 on the page and
  on the surface; critical, also text (ongoing labels), at least 4.5:1;
- a badge's text (the colour mixed 70 % with the text colour, as `.impact` does), at
  least 4.5:1 on its `-bg`;
- any two impacts at least 10 apart (CIEDE2000) for normal vision and as deuteranopia,
  protanopia and tritanopia show them (Machado, Oliveira and Fernandes 2009, severity 1).

Prints the figures, one line per scheme and vision, and exits non-zero on any failure.
"""

import itertools
import math
import re
import sys

IMPACTS = ["critical", "major", "minor", "none", "maintenance"]
MACHADO = {
    "normal": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                     [-0.011820, 0.042940, 0.968881]],
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                   [-0.003882, -0.048116, 1.051998]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                   [0.004733, 0.691367, 0.303900]],
}
MIN_DISTANCE = 10.0


def rgb(colour):
    return [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]


def linear(c):
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def encoded(c):
    c = min(max(c, 0.0), 1.0)
    return 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055


def luminance(colour):
    r, g, b = map(linear, rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def mix(a, b, share):
    """`color-mix(in srgb, a share, b)`: the encoded channels interpolated."""
    return "#" + "".join(f"{round((share * x + (1 - share) * y) * 255):02x}"
                         for x, y in zip(rgb(a), rgb(b)))


def simulate(colour, vision):
    m = MACHADO[vision]
    v = [linear(c) for c in rgb(colour)]
    return "#" + "".join(f"{round(encoded(sum(m[i][j] * v[j] for j in range(3))) * 255):02x}"
                         for i in range(3))


def lab(colour):
    r, g, b = map(linear, rgb(colour))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    f = lambda t: t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def ciede2000(c1, c2):
    (l1, a1, b1), (l2, a2, b2) = lab(c1), lab(c2)
    mean_c = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(mean_c ** 7 / (mean_c ** 7 + 25 ** 7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    ch1, ch2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1, h2 = math.degrees(math.atan2(b1, a1)) % 360, math.degrees(math.atan2(b2, a2)) % 360
    dh = 0 if ch1 * ch2 == 0 else (h2 - h1 + 180) % 360 - 180
    d_l, d_c = l2 - l1, ch2 - ch1
    d_h = 2 * math.sqrt(ch1 * ch2) * math.sin(math.radians(dh / 2))
    mean_l, mean_ch = (l1 + l2) / 2, (ch1 + ch2) / 2
    if ch1 * ch2 == 0:
        mean_h = h1 + h2
    elif abs(h1 - h2) <= 180:
        mean_h = (h1 + h2) / 2
    else:
        mean_h = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(mean_h - 30)) + 0.24 * math.cos(math.radians(2 * mean_h))
         + 0.32 * math.cos(math.radians(3 * mean_h + 6)) - 0.20 * math.cos(math.radians(4 * mean_h - 63)))
    rotation = 30 * math.exp(-((mean_h - 275) / 25) ** 2)
    rc = 2 * math.sqrt(mean_ch ** 7 / (mean_ch ** 7 + 25 ** 7))
    sl = 1 + 0.015 * (mean_l - 50) ** 2 / math.sqrt(20 + (mean_l - 50) ** 2)
    sc, sh = 1 + 0.045 * mean_ch, 1 + 0.015 * mean_ch * t
    rt = -math.sin(math.radians(2 * rotation)) * rc
    return math.sqrt((d_l / sl) ** 2 + (d_c / sc) ** 2 + (d_h / sh) ** 2
                     + rt * (d_c / sc) * (d_h / sh))


def schemes(css):
    """The light scheme's variables (`:root`), and the dark one's over them."""
    light_block = css[css.index(":root {"):]
    light_block = light_block[:light_block.index("}")]
    dark_block = css[css.index("prefers-color-scheme: dark"):]
    dark_block = dark_block[:dark_block.index("}")]
    read = lambda block: dict(re.findall(r"--([a-z-]+):\s*(#[0-9a-fA-F]{6})", block))
    light = read(light_block)
    return {"light": light, "dark": {**light, **read(dark_block)}}


def check(name, v):
    problems = []
    for impact in IMPACTS:
        colour = v[impact]
        need = 4.5 if impact == "critical" else 3.0
        for ground in ("bg", "surface"):
            if contrast(colour, v[ground]) < need:
                problems.append(f"{name}: --{impact} {colour} is {contrast(colour, v[ground]):.2f}:1 "
                                f"on --{ground}, under {need}:1")
        text = mix(colour, v["text"], 0.7)
        tint = v[f"{impact}-bg"]
        if contrast(text, tint) < 4.5:
            problems.append(f"{name}: a {impact} badge's text {text} is "
                            f"{contrast(text, tint):.2f}:1 on {tint}")
    for vision in MACHADO:
        seen = {impact: simulate(v[impact], vision) for impact in IMPACTS}
        distance, a, b = min((ciede2000(seen[a], seen[b]), a, b)
                             for a, b in itertools.combinations(IMPACTS, 2))
        print(f"{name:5} {vision:12}: the closest impacts, {a} and {b}, are {distance:.1f} apart")
        if distance < MIN_DISTANCE:
            problems.append(f"{name}, {vision}: {a} and {b} are only {distance:.1f} apart")
    return problems


def main():
    css = open(sys.argv[1] if len(sys.argv) > 1 else "static/style.css", encoding="utf-8").read()
    problems = [p for name, v in schemes(css).items() for p in check(name, v)]
    for problem in problems:
        print(f"colours: {problem}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
