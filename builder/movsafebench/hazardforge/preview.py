"""A picture of a layout: regions, vanishing point, masks and the intrusion canvas over the source image.

For a person to check a layout at a glance (`hazardkit forge preview`). When the layout has an intrusion
edit, the picture is the padded canvas (W + r wide): the outpainted strip is hatched grey and the crop-back
window is drawn dashed; every other edit is shifted into canvas coordinates.
"""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont

from builder.movsafebench.hazardforge.layout import Layout
from builder.movsafebench.hazardforge.regions import ANSWER_OF_REGION, REGION_OF_ANSWER, REGIONS, region_columns

ROLE_COLOURS: dict[str, tuple[int, int, int]] = {
    "near": (255, 60, 60),
    "far": (60, 200, 255),
    "motion": (255, 200, 0),
    "intrusion": (200, 80, 255),
}


def _font(size: int):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def _dashed_rect(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], colour, width: int, dash: int) -> None:
    x0, y0, x1, y1 = box
    for a, b, fixed, horizontal in ((x0, x1, y0, True), (x0, x1, y1 - 1, True), (y0, y1, x0, False),
                                    (y0, y1, x1 - 1, False)):
        for s in range(a, b, 2 * dash):
            e = min(s + dash, b)
            draw.line([(s, fixed), (e, fixed)] if horizontal else [(fixed, s), (fixed, e)], fill=colour, width=width)


def render_preview(image: Image.Image, layout: Layout) -> Image.Image:
    """The preview picture (RGB) of `layout` drawn over `image` (which must have the layout's size)."""
    if image.size != (layout.width, layout.height):
        raise ValueError(f"image is {image.size}, layout is for {(layout.width, layout.height)}")
    w, h = layout.width, layout.height
    pad_edit = next((e for e in layout.edits if e.pad_side), None)
    ox = pad_edit.pad if pad_edit is not None and pad_edit.pad_side == "left" else 0
    canvas_w = w + (pad_edit.pad if pad_edit is not None else 0)
    canvas = Image.new("RGB", (canvas_w, h), (128, 128, 128))
    canvas.paste(image.convert("RGB"), (ox, 0))
    overlay = Image.new("RGBA", canvas.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    line_w = max(2, round(h / 300))
    font = _font(max(12, round(h / 36)))
    small = _font(max(10, round(h / 50)))

    if pad_edit is not None:  # hatch the outpainted strip
        px0 = 0 if pad_edit.pad_side == "left" else w
        px1 = px0 + pad_edit.pad
        step = max(8, h // 40)
        for k in range(-h, pad_edit.pad + h, step):
            draw.line([(px0 + k, 0), (px0 + k + h, h)], fill=(90, 90, 90, 160), width=1)
        draw.rectangle([px0, 0, px1 - 1, h - 1], outline=(60, 60, 60, 255), width=line_w)

    gt_region = REGION_OF_ANSWER[layout.ground_truth]
    for region in REGIONS:
        x0, x1 = region_columns(w, region)
        if region == gt_region:
            draw.rectangle([ox + x0, 0, ox + x1 - 1, h - 1], fill=(0, 255, 0, 28))
        if x0 > 0:
            draw.line([(ox + x0, 0), (ox + x0, h)], fill=(255, 255, 255, 230), width=line_w)
        label = f"region {region} (go {ANSWER_OF_REGION[region]})" + ("  = ground truth" if region == gt_region else "")
        draw.text((ox + x0 + 8, 8), label, fill=(255, 255, 255, 255), font=font, stroke_width=2,
                  stroke_fill=(0, 0, 0, 255))

    for edit in layout.edits:
        colour = ROLE_COLOURS.get(edit.role, (255, 255, 255))
        shift = 0 if edit.pad_side else ox  # padded edits are already in canvas coordinates
        x0, y0, x1, y1 = edit.box
        box = [shift + x0, y0, shift + x1 - 1, y1 - 1]
        draw.rectangle(box, fill=(*colour, 70), outline=(*colour, 255), width=line_w)
        draw.text((box[0] + 6, box[1] + 6), f"{edit.role}: {edit.prompt}", fill=(*colour, 255), font=small,
                  stroke_width=2, stroke_fill=(0, 0, 0, 255))
        if edit.crop_box is not None:
            _dashed_rect(draw, edit.crop_box, (255, 255, 255, 255), line_w, dash=max(6, h // 60))

    if layout.vanishing_point is not None:
        vx, vy = ox + layout.vanishing_point[0], layout.vanishing_point[1]
        r = max(8, h // 60)
        draw.ellipse([vx - r, vy - r, vx + r, vy + r], outline=(255, 0, 0, 255), width=line_w)
        draw.line([(vx - 2 * r, vy), (vx + 2 * r, vy)], fill=(255, 0, 0, 255), width=line_w)
        draw.line([(vx, vy - 2 * r), (vx, vy + 2 * r)], fill=(255, 0, 0, 255), width=line_w)
        draw.text((vx + 2 * r, vy + 4), "VP", fill=(255, 0, 0, 255), font=small, stroke_width=2,
                  stroke_fill=(0, 0, 0, 255))

    title = f"{layout.scenario} | gt={layout.ground_truth} | {layout.category}" + (
        f" | side={layout.side}" if layout.side else "")
    draw.text((ox + 8, h - round(h / 36) - 16), title, fill=(255, 255, 255, 255), font=font, stroke_width=2,
              stroke_fill=(0, 0, 0, 255))
    return Image.alpha_composite(canvas.convert("RGBA"), overlay).convert("RGB")
