"""The lessons' pictures, one per idea, drawn as plain SVG (no plotting
library): how work-items map to pixels (step 1), a tile and its halo
(step 3), a float4 row copy from a pitched image (step 5), and a register
block (step 6). docs.py writes them into docs/figures/ and its --check mode
fails when a committed file differs from what this module draws.
"""
CELL = 16
FONT = 'font-family="DejaVu Sans, Arial, sans-serif"'
COLORS = {"pad": "#e8e8e8", "image": "#ffffff", "idle": "#f4cccc", "group": "#cfe2f3",
          "item": "#3d85c6", "window": "#ffe599", "halo": "#fce5cd", "tile": "#cfe2f3",
          "vec": "#b6d7a8", "extra": "#eeeeee", "out": "#d9d2e9", "row": "#ffe599"}


class Svg:
    def __init__(self, width, height, title):
        self.width, self.height = width, height
        self.parts = ['<title>{}</title>'.format(title),
                      '<rect x="0" y="0" width="{}" height="{}" fill="white"/>'.format(width, height)]

    def rect(self, x, y, w, h, fill, stroke="#999999", width=0.5, dash=None):
        extra = ' stroke-dasharray="{}"'.format(dash) if dash else ""
        self.parts.append('<rect x="{:g}" y="{:g}" width="{:g}" height="{:g}" fill="{}" stroke="{}" '
                          'stroke-width="{:g}"{}/>'.format(x, y, w, h, fill, stroke, width, extra))

    def line(self, x1, y1, x2, y2, color="#333333", width=1.0, arrow=False):
        self.parts.append('<line x1="{:g}" y1="{:g}" x2="{:g}" y2="{:g}" stroke="{}" stroke-width="{:g}"{}/>'.format(
            x1, y1, x2, y2, color, width, ' marker-end="url(#arrow)"' if arrow else ""))

    def text(self, x, y, s, size=11, anchor="start", color="#222222", weight="normal"):
        s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        self.parts.append('<text x="{:g}" y="{:g}" font-size="{}" text-anchor="{}" fill="{}" '
                          'font-weight="{}" {}>{}</text>'.format(x, y, size, anchor, color, weight, FONT, s))

    def grid(self, x0, y0, cols, rows, fill_of, cell=CELL):
        for r in range(rows):
            for c in range(cols):
                self.rect(x0 + c * cell, y0 + r * cell, cell, cell, fill_of(c, r))

    def legend(self, x, y, items):
        for i, (fill, label) in enumerate(items):
            self.rect(x, y + i * 18, 12, 12, fill)
            self.text(x + 18, y + i * 18 + 10, label, 10)

    def render(self):
        head = ('<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">'
                '<defs><marker id="arrow" markerWidth="8" markerHeight="8" refX="7" refY="4" '
                'orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#333333"/></marker></defs>').format(
            w=self.width, h=self.height)
        return head + "\n" + "\n".join(self.parts) + "\n</svg>\n"


def step1_mapping():
    """A 13x10 image, 8x8 work-groups: the grid rounds up to 16x16."""
    w, h, wg = 13, 10, 8
    gw, gh = 16, 16
    s = Svg(680, 330, "Step 1: one work-item per output pixel")
    x0, y0 = 20, 40
    s.text(x0, 22, "global size {}x{} = image {}x{} rounded up to 8x8 work-groups".format(gw, gh, w, h), 12,
           weight="bold")

    def fill(c, r):
        if c == 5 and r == 3:
            return COLORS["item"]
        return COLORS["image"] if c < w and r < h else COLORS["idle"]

    s.grid(x0, y0, gw, gh, fill)
    for gx in range(0, gw + 1, wg):
        s.line(x0 + gx * CELL, y0, x0 + gx * CELL, y0 + gh * CELL, "#1c4587", 2)
    for gy in range(0, gh + 1, wg):
        s.line(x0, y0 + gy * CELL, x0 + gw * CELL, y0 + gy * CELL, "#1c4587", 2)
    s.rect(x0, y0, w * CELL, h * CELL, "none", "#000000", 2)
    s.text(x0 + 5 * CELL + 8, y0 + 3 * CELL - 4, "(5, 3)", 9, "middle", "#1c4587")
    lx = x0 + gw * CELL + 30
    s.legend(lx, 50, [(COLORS["image"], "output pixel: one work-item each"),
                      (COLORS["item"], "work-item (x, y) = (get_global_id(0), get_global_id(1))"),
                      (COLORS["idle"], "past the image: the range guard returns")])
    s.text(lx, 130, "thick lines: work-groups of 8x8 (--wg 8x8)", 10)
    s.text(lx, 148, "black frame: the 13x10 image", 10)
    s.text(lx, 180, "x runs along a row: neighbouring work-items", 10)
    s.text(lx, 194, "read neighbouring floats (coalesced on a GPU).", 10)
    s.text(lx, 226, "Work-item (5, 3) reads the F x F window whose", 10)
    s.text(lx, 240, "top-left corner is padded-input (5, 3).", 10)
    return s.render()


def step3_tile():
    """An 8x8 work-group, F = 5: a 12x12 window, copied by striding."""
    wg, f = 8, 5
    t = wg + f - 1
    s = Svg(640, 290, "Step 3: a work-group's tile and halo in local memory")
    x0, y0 = 20, 40
    s.text(x0, 22, "work-group 8x8, F = 5: a (8 + 4) x (8 + 4) window in __local memory", 12, weight="bold")

    def fill(c, r):
        copied_by_00 = c % wg == 0 and r % wg == 0
        if copied_by_00:
            return COLORS["item"]
        return COLORS["tile"] if c < wg and r < wg else COLORS["halo"]

    s.grid(x0, y0, t, t, fill)
    s.rect(x0, y0, wg * CELL, wg * CELL, "none", "#1c4587", 2)
    s.rect(x0, y0, t * CELL, t * CELL, "none", "#000000", 1.5)
    lx = x0 + t * CELL + 30
    s.legend(lx, 50, [(COLORS["tile"], "the group's own 8x8 pixels (blue frame)"),
                      (COLORS["halo"], "halo: F - 1 = 4 more columns and rows"),
                      (COLORS["item"], "what work-item (0, 0) copies: stride 8 both ways")])
    s.text(lx, 120, "1. every work-item copies its share of the window", 10)
    s.text(lx, 134, "   (loops stride by the work-group size);", 10)
    s.text(lx, 152, "2. barrier(CLK_LOCAL_MEM_FENCE): all 64 arrive;", 10)
    s.text(lx, 170, "3. each work-item correlates from the tile.", 10)
    s.text(lx, 200, "global loads per output: 12 x 12 / 64 = 2.25", 10)
    s.text(lx, 214, "instead of F x F = 25", 10)
    return s.render()


def step5_float4():
    """One device row: pitch 32 floats, a tile row of 22 -> 24 floats."""
    pitch, image_w, wg, f = 32, 19, 4, 7
    tile_w = (wg + f - 1 + 3) // 4 * 4
    s = Svg(640, 250, "Step 5: float4 copies from rows aligned to 128 bytes")
    x0, y0, cell = 20, 60, 18
    s.text(x0, 22, "one device row, pitch 32 floats (128 bytes): image width 19 + F - 1 = 25", 12,
           weight="bold")
    s.text(x0, 40, "work-group 4 wide, F = 7: tile row 4 + 6 = 10, rounded up to 12 floats = 3 float4", 11)
    padded = image_w + f - 1
    for c in range(pitch):
        fill = COLORS["image"] if c < padded else COLORS["extra"]
        if c < tile_w:
            fill = COLORS["vec"]
        s.rect(x0 + c * cell, y0, cell, cell, fill)
        if c % 4 == 0:
            s.line(x0 + c * cell, y0 - 6, x0 + c * cell, y0 + cell + 6, "#38761d", 1.5)
    s.line(x0 + pitch * cell, y0 - 6, x0 + pitch * cell, y0 + cell + 6, "#38761d", 1.5)
    for q in range(tile_w // 4):
        s.text(x0 + (4 * q + 2) * cell, y0 + cell + 20, "lx = {}".format(q), 10, "middle", "#38761d")
    s.text(x0, y0 + cell + 44, "work-item lx loads the float4 at 4 * lx, then strides by 4 * work-group width;", 10)
    s.text(x0, y0 + cell + 58, "every float4 starts at a multiple of 16 bytes because the row starts at a multiple of 128.",
           10)
    s.legend(x0, y0 + cell + 76, [(COLORS["vec"], "this group's tile row, copied as 3 float4 loads"),
                                  (COLORS["image"], "rest of the padded image row"),
                                  (COLORS["extra"], "pitch padding: zeros, read but never used")])
    return s.render()


def step6_block():
    """BLOCK_X = 4, BLOCK_Y = 2, F = 3: a tile row meets up to 2 output rows."""
    bx, by, f = 4, 2, 3
    s = Svg(680, 300, "Step 6: a register block")
    x0, y0 = 40, 50
    s.text(20, 22, "BLOCK_X = 4, BLOCK_Y = 2, F = 3: one work-item, 8 outputs, a (4 + 2) x (2 + 2) window",
           12, weight="bold")
    rows, cols = by + f - 1, bx + f - 1
    j = 2  # the tile row shown loaded into row[]

    def fill(c, r):
        return COLORS["row"] if r == j else COLORS["halo"]

    s.grid(x0, y0, cols, rows, fill, 24)
    for r in range(rows):
        s.text(x0 - 6, y0 + r * 24 + 16, "j={}".format(r), 9, "end")
    s.text(x0, y0 + rows * 24 + 16, "tile window of one work-item", 10)
    ox = x0 + cols * 24 + 120
    s.grid(ox, y0 + 24, bx, by, lambda c, r: COLORS["out"], 24)
    s.text(ox, y0 + 24 + by * 24 + 16, "sum[2][4] in registers", 10)
    for b in range(by):
        s.text(ox + bx * 24 + 6, y0 + 24 + b * 24 + 16, "by={}: filter row {}".format(b, j - b), 10)
    s.line(x0 + cols * 24 + 4, y0 + j * 24 + 12, ox - 4, y0 + 24 + 12, "#333333", 1, True)
    s.line(x0 + cols * 24 + 4, y0 + j * 24 + 12, ox - 4, y0 + 24 + 24 + 12, "#333333", 1, True)
    ty = y0 + rows * 24 + 44
    s.text(x0, ty, "Tile row j is loaded once into row[] (6 values) and meets output row by through filter row j - by.", 10)
    s.text(x0, ty + 16, "Each value feeds up to min(BLOCK_X, F) = 3 FMAs per output row, for up to min(BLOCK_Y, F) = 2 rows.", 10)
    s.text(x0, ty + 32, "Whole window: 6 x 4 = 24 local loads for 4 x 2 x 3 x 3 = 72 FMAs: 1/3 of a load per FMA, not 1.", 10)
    s.text(x0, ty + 48, "The default for F = 7, 4 x 8: 10 x 14 = 140 loads for 1568 FMAs, about 1/11.", 10)
    return s.render()


def diagrams():
    """{file name in docs/figures: SVG text}."""
    return {"step1-mapping.svg": step1_mapping(), "step3-tile.svg": step3_tile(),
            "step5-float4.svg": step5_float4(), "step6-block.svg": step6_block()}
