#!/usr/bin/python3
"""Regenerates the binaries of the demo bundle under files/.

    cd examples/demo-bundle && /usr/bin/python3 make-assets.py

Needs the Debian packages python3-pil (Pillow) and fonts-dejavu-core. The PDFs
are written by hand (no PDF library needed). To check the result, poppler-utils
(pdfinfo) and qpdf (qpdf --check) are handy, and imagemagick (identify).

Everything is drawn from fixed inputs and a fixed random seed, so running the
script again gives the same pictures and documents (byte-identical PDFs and text
files; the JPEG/PNG bytes can differ between Pillow versions).
"""

import hashlib
import os
import random

from PIL import Image, ImageDraw, ImageFilter, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
FONT_DIR = "/usr/share/fonts/truetype/dejavu"


def font(size, bold=False, serif=False):
    name = ("DejaVuSerif" if serif else "DejaVuSans") + ("-Bold" if bold else "") + ".ttf"
    return ImageFont.truetype(os.path.join(FONT_DIR, name), size)


def out(*parts):
    path = os.path.join(FILES, *parts)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return path


# --------------------------------------------------------------------------
# Images
# --------------------------------------------------------------------------


def vertical_gradient(w, h, top, bottom):
    img = Image.new("RGB", (w, h))
    d = ImageDraw.Draw(img)
    for y in range(h):
        t = y / max(1, h - 1)
        c = tuple(round(a + (b - a) * t) for a, b in zip(top, bottom))
        d.line([(0, y), (w, y)], fill=c)
    return img


def clouds(img, rng, n, area):
    x0, y0, x1, y1 = area
    layer = Image.new("L", img.size, 0)
    d = ImageDraw.Draw(layer)
    for _ in range(n):
        cx, cy = rng.randint(x0, x1), rng.randint(y0, y1)
        for _ in range(6):
            rx, ry = rng.randint(40, 90), rng.randint(18, 35)
            ox, oy = rng.randint(-70, 70), rng.randint(-12, 12)
            d.ellipse([cx + ox - rx, cy + oy - ry, cx + ox + rx, cy + oy + ry], fill=200)
    layer = layer.filter(ImageFilter.GaussianBlur(14))
    white = Image.new("RGB", img.size, (255, 255, 255))
    img.paste(white, (0, 0), layer)


def grain(img, rng, amount=6):
    """Light photographic grain so the JPEGs look less flat."""
    noise = Image.effect_noise(img.size, 40).convert("RGB")
    return Image.blend(img, noise, amount / 100.0)


def tree(d, x, ground, h, rng):
    d.rectangle([x - 6, ground - h * 0.35, x + 6, ground], fill=(96, 66, 40))
    for i in range(5):
        r = h * 0.28 - i * 3
        cx = x + rng.randint(-14, 14)
        cy = ground - h * 0.55 - rng.randint(0, int(h * 0.25))
        g = 95 + rng.randint(-15, 25)
        d.ellipse([cx - r, cy - r, cx + r, cy + r], fill=(40, g, 45))


def window_grid(d, x0, y0, cols, rows, w, h, gx, gy, frame=(245, 240, 228), glass=(86, 112, 140)):
    for r in range(rows):
        for c in range(cols):
            x = x0 + c * (w + gx)
            y = y0 + r * (h + gy)
            d.rectangle([x - 3, y - 3, x + w + 3, y + h + 3], fill=frame)
            d.rectangle([x, y, x + w, y + h], fill=glass)
            d.line([(x + w / 2, y), (x + w / 2, y + h)], fill=frame, width=2)
            d.line([(x, y + h * 0.4), (x + w, y + h * 0.4)], fill=frame, width=2)


def make_rathaus():
    """files/bilder/rathaus.jpg: 1200x800, town hall on the market square."""
    rng = random.Random(200)
    W, H = 1200, 800
    img = vertical_gradient(W, H, (92, 150, 214), (206, 228, 246))
    clouds(img, rng, 5, (0, 40, W, 260))
    d = ImageDraw.Draw(img)
    ground = 640

    # distant houses
    x = -20
    while x < W:
        w = rng.randint(70, 130)
        h = rng.randint(150, 230)
        col = rng.choice([(214, 196, 170), (200, 170, 150), (225, 214, 190), (190, 180, 170)])
        d.rectangle([x, ground - h, x + w, ground], fill=col)
        d.polygon([(x - 4, ground - h), (x + w / 2, ground - h - 50), (x + w + 4, ground - h)], fill=(150, 70, 55))
        window_grid(d, x + 12, ground - h + 25, max(1, (w - 20) // 34), 3, 18, 26, 16, 22,
                    frame=(235, 230, 220), glass=(110, 125, 140))
        x += w + 4

    # town hall
    bx0, bx1, btop = 300, 900, 330
    d.rectangle([bx0, btop, bx1, ground], fill=(222, 205, 172))
    d.rectangle([bx0, btop, bx1, btop + 14], fill=(190, 172, 140))
    d.polygon([(bx0 - 15, btop), (600, btop - 120), (bx1 + 15, btop)], fill=(120, 58, 48))
    # tower
    d.rectangle([555, 120, 645, btop - 60], fill=(212, 194, 160))
    d.polygon([(545, 120), (600, 20), (655, 120)], fill=(70, 110, 96))
    d.ellipse([570, 150, 630, 210], fill=(250, 246, 235), outline=(60, 50, 40), width=4)
    d.line([(600, 180), (600, 158)], fill=(30, 30, 30), width=4)
    d.line([(600, 180), (617, 188)], fill=(30, 30, 30), width=3)
    # flag
    d.line([(600, 20), (600, -10)], fill=(60, 60, 60), width=3)
    # windows: two storeys each side of the entrance
    window_grid(d, 330, 380, 5, 2, 34, 56, 18, 36)
    window_grid(d, 672, 380, 5, 2, 34, 56, 18, 36)
    window_grid(d, 558, 380, 2, 1, 34, 56, 18, 36)
    # entrance with arch and steps
    d.rectangle([560, 520, 640, ground - 20], fill=(92, 60, 40))
    d.pieslice([560, 480, 640, 560], 180, 360, fill=(92, 60, 40))
    d.line([(600, 500), (600, ground - 20)], fill=(60, 40, 26), width=3)
    for i, y in enumerate(range(ground - 20, ground, 7)):
        d.rectangle([540 - i * 8, y, 660 + i * 8, y + 7], fill=(170, 165, 158), outline=(140, 136, 130))
    # name plate
    d.rectangle([470, 470, 730, 505], fill=(40, 52, 70))
    label = "RATHAUS"
    f = font(26, bold=True, serif=True)
    tw = d.textlength(label, font=f)
    d.text((600 - tw / 2, 472), label, font=f, fill=(236, 206, 120))

    # square with cobbles
    d.rectangle([0, ground, W, H], fill=(168, 160, 150))
    for y in range(ground + 6, H, 14):
        off = 0 if (y // 14) % 2 else 12
        for x in range(-off, W, 24):
            shade = 150 + rng.randint(-12, 12)
            d.rounded_rectangle([x + 1, y, x + 22, y + 11], radius=4, fill=(shade, shade - 6, shade - 14))
    for tx in (120, 210, 990, 1090):
        tree(d, tx, ground + 10, rng.randint(230, 280), rng)

    # caption strip
    d.rectangle([0, H - 48, W, H], fill=(30, 40, 58))
    d.text((24, H - 40), "Rathaus Beispielstadt · Marktplatz 1", font=font(24), fill=(240, 240, 240))

    img = img.filter(ImageFilter.GaussianBlur(0.6))
    img = grain(img, rng)
    img.save(out("bilder", "rathaus.jpg"), "JPEG", quality=82, optimize=True)


def make_marktplatz():
    """files/bilder/marktplatz.jpg: shown as 800x600; the pixels are stored
    rotated (600x800) with EXIF Orientation 6, as a phone held upright writes them."""
    rng = random.Random(202)
    W, H = 800, 600
    img = vertical_gradient(W, H, (120, 170, 222), (222, 236, 248))
    clouds(img, rng, 3, (0, 20, W, 150))
    d = ImageDraw.Draw(img)
    ground = 430

    # half-timbered houses (Fachwerk)
    x = 0
    while x < W:
        w = rng.randint(110, 150)
        h = rng.randint(200, 250)
        plaster = rng.choice([(240, 232, 210), (236, 220, 196), (244, 238, 226)])
        beam = (88, 52, 34)
        d.rectangle([x, ground - h, x + w, ground], fill=plaster)
        d.polygon([(x - 6, ground - h), (x + w / 2, ground - h - 80), (x + w + 6, ground - h)], fill=(160, 62, 44))
        for yy in range(ground - h, ground, 60):
            d.line([(x, yy), (x + w, yy)], fill=beam, width=6)
        for xx in range(x, x + w + 1, max(1, w // 3)):
            d.line([(xx, ground - h), (xx, ground)], fill=beam, width=6)
        for yy in range(ground - h, ground - 60, 60):
            d.line([(x, yy + 60), (x + w // 3, yy)], fill=beam, width=4)
            d.line([(x + w, yy + 60), (x + w - w // 3, yy)], fill=beam, width=4)
        window_grid(d, x + w // 3 + 10, ground - h + 14, 1, 3, w // 3 - 20, 30, 0, 30,
                    frame=(250, 250, 250), glass=(90, 110, 130))
        x += w

    # ground
    d.rectangle([0, ground, W, H], fill=(176, 168, 156))
    for y in range(ground + 4, H, 12):
        off = 0 if (y // 12) % 2 else 10
        for xx in range(-off, W, 20):
            s = 160 + rng.randint(-14, 14)
            d.rounded_rectangle([xx + 1, y, xx + 18, y + 9], radius=3, fill=(s, s - 6, s - 12))

    # market stalls with striped awnings
    stall_colours = [((200, 40, 40), (250, 250, 250)), ((40, 110, 60), (250, 250, 250)),
                     ((30, 80, 160), (250, 240, 200)), ((220, 150, 30), (250, 250, 250))]
    for i, sx in enumerate((40, 230, 520, 660)):
        a, b = stall_colours[i]
        top = ground + 10
        d.rectangle([sx + 6, top + 40, sx + 10, top + 120], fill=(90, 70, 50))
        d.rectangle([sx + 110, top + 40, sx + 114, top + 120], fill=(90, 70, 50))
        for k in range(8):
            d.polygon([(sx + k * 15, top), (sx + k * 15 + 15, top), (sx + k * 15 + 20, top + 40),
                       (sx + k * 15 + 5, top + 40)], fill=a if k % 2 == 0 else b)
        d.rectangle([sx, top + 80, sx + 120, top + 110], fill=(150, 110, 70))
        for k in range(9):
            cx = sx + 10 + k * 12
            col = rng.choice([(220, 50, 40), (250, 180, 40), (110, 170, 60), (240, 120, 30)])
            d.ellipse([cx - 6, top + 70, cx + 6, top + 82], fill=col)

    # fountain in the middle
    d.ellipse([330, 500, 470, 560], fill=(120, 118, 112))
    d.ellipse([340, 505, 460, 550], fill=(110, 160, 200))
    d.rectangle([392, 440, 408, 525], fill=(130, 128, 120))
    d.ellipse([370, 430, 430, 450], fill=(130, 128, 120))

    d.rectangle([0, H - 40, W, H], fill=(30, 40, 58))
    d.text((18, H - 33), "Wochenmarkt auf dem Marktplatz", font=font(20), fill=(240, 240, 240))

    img = img.filter(ImageFilter.GaussianBlur(0.5))
    img = grain(img, rng)

    stored = img.rotate(90, expand=True)  # 600x800; Orientation 6 turns it back
    exif = Image.Exif()
    exif[0x0112] = 6                       # Orientation: rotate 90 CW to display
    exif[0x010E] = "Wochenmarkt auf dem Marktplatz"  # ImageDescription
    exif[0x013B] = "Presseamt Beispielstadt"         # Artist
    exif[0x8298] = "(c) Stadt Beispielstadt"         # Copyright (EXIF ASCII)
    stored.save(out("bilder", "marktplatz.jpg"), "JPEG", quality=82, optimize=True, exif=exif.tobytes())


def make_umleitungsplan():
    """files/bilder/umleitungsplan.png: 640x640 street map of the detour."""
    W = H = 640
    img = Image.new("RGBA", (W, H), (246, 243, 234, 255))
    d = ImageDraw.Draw(img)

    # park and river
    d.rounded_rectangle([400, 60, 600, 250], radius=24, fill=(186, 220, 160))
    for cx, cy in ((440, 100), (520, 130), (470, 200), (560, 210), (550, 90)):
        d.ellipse([cx - 14, cy - 14, cx + 14, cy + 14], fill=(110, 170, 100))
    d.line([(0, 560), (160, 520), (330, 560), (480, 520), (640, 545)], fill=(150, 196, 230), width=34, joint="curve")

    # blocks
    for bx, by in ((40, 40), (40, 200), (200, 40), (200, 200), (40, 360), (200, 360), (400, 300)):
        d.rectangle([bx, by, bx + 130, by + 120], fill=(222, 214, 200), outline=(200, 190, 175))

    def street(pts, width=22, fill=(255, 255, 255)):
        d.line(pts, fill=(190, 182, 168), width=width + 4)
        d.line(pts, fill=fill, width=width)

    street([(0, 180), (640, 180)])           # Schillerstraße
    street([(0, 340), (640, 340)])           # Goethestraße
    street([(185, 0), (185, 500)])           # Marktstraße
    street([(370, 0), (370, 500)])           # Parkallee
    street([(0, 500), (640, 500)], width=26) # Uferstraße

    # closed section of Goethestraße between Marktstraße and Parkallee
    d.line([(197, 340), (358, 340)], fill=(220, 40, 40), width=22)
    for x in range(205, 355, 22):
        d.line([(x, 332), (x + 12, 348)], fill=(255, 255, 255), width=4)

    # detour route: Marktstraße -> Schillerstraße -> Parkallee
    route = [(185, 340), (185, 180), (370, 180), (370, 340)]
    d.line(route, fill=(255, 150, 0), width=8, joint="curve")
    for (x0, y0), (x1, y1) in zip(route, route[1:]):
        mx, my = (x0 + x1) / 2, (y0 + y1) / 2
        if x0 == x1:
            s = -1 if y1 < y0 else 1
            d.polygon([(mx - 10, my - 8 * s), (mx + 10, my - 8 * s), (mx, my + 10 * s)], fill=(170, 80, 0))
        else:
            s = 1 if x1 > x0 else -1
            d.polygon([(mx - 8 * s, my - 10), (mx - 8 * s, my + 10), (mx + 10 * s, my)], fill=(170, 80, 0))

    # town hall marker
    d.rectangle([230, 230, 320, 300], fill=(196, 120, 100), outline=(120, 60, 50), width=2)
    f_small = font(14)
    f_label = font(15, bold=True)
    d.text((244, 256), "Rathaus", font=f_label, fill=(255, 255, 255))

    def label(text, xy, rot=0):
        tw = int(d.textlength(text, font=f_small)) + 4
        tmp = Image.new("RGBA", (tw, 20), (0, 0, 0, 0))
        ImageDraw.Draw(tmp).text((2, 1), text, font=f_small, fill=(60, 60, 60, 255))
        if rot:
            tmp = tmp.rotate(rot, expand=True)
        img.alpha_composite(tmp, xy)

    label("Schillerstraße", (20, 171))
    label("Goethestraße", (20, 331))
    label("Uferstraße", (480, 491))
    label("Marktstraße", (177, 40), rot=90)
    label("Parkallee", (362, 390), rot=90)
    label("Stadtpark", (455, 150))
    label("Marktplatz", (235, 305))

    # legend
    d.rounded_rectangle([395, 395, 630, 478], radius=8, fill=(255, 255, 255, 235), outline=(120, 120, 120))
    d.line([(408, 414), (440, 414)], fill=(220, 40, 40), width=10)
    d.text((450, 405), "Vollsperrung", font=f_small, fill=(30, 30, 30))
    d.line([(408, 440), (440, 440)], fill=(255, 150, 0), width=6)
    d.text((450, 431), "Umleitung", font=f_small, fill=(30, 30, 30))
    d.text((408, 454), "Stand: März 2026", font=font(12), fill=(90, 90, 90))

    # title bar
    d.rectangle([0, 600, W, H], fill=(30, 40, 58))
    d.text((14, 608), "Umleitung Goethestraße · Stadt Beispielstadt", font=font(18, bold=True),
           fill=(255, 255, 255))

    # a transparent margin ring so the alpha channel is really used
    mask = Image.new("L", (W, H), 0)
    ImageDraw.Draw(mask).rounded_rectangle([0, 0, W - 1, H - 1], radius=36, fill=255)
    img.putalpha(mask)
    img.save(out("bilder", "umleitungsplan.png"), "PNG", optimize=True)


# --------------------------------------------------------------------------
# PDFs, written by hand: one page, A4, Helvetica in WinAnsiEncoding
# --------------------------------------------------------------------------


def pdf_str(s):
    b = s.encode("cp1252")
    b = b.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
    return b"(" + b + b")"


def pdf_text_utf16(s):
    return b"<FEFF" + s.encode("utf-16-be").hex().upper().encode() + b">"


class Page:
    def __init__(self):
        self.ops = []

    def text(self, x, y, s, size=11, bold=False, rgb=(0, 0, 0)):
        self.ops.append(b"BT /%s %d Tf %.3f %.3f %.3f rg %d %d Td %s Tj ET" % (
            b"F2" if bold else b"F1", size, rgb[0] / 255, rgb[1] / 255, rgb[2] / 255, x, y, pdf_str(s)))

    def rect(self, x, y, w, h, rgb):
        self.ops.append(b"%.3f %.3f %.3f rg %d %d %d %d re f" % (
            rgb[0] / 255, rgb[1] / 255, rgb[2] / 255, x, y, w, h))

    def line(self, x0, y0, x1, y1, width=0.8, rgb=(150, 150, 150)):
        self.ops.append(b"%.3f %.3f %.3f RG %.1f w %d %d m %d %d l S" % (
            rgb[0] / 255, rgb[1] / 255, rgb[2] / 255, width, x0, y0, x1, y1))

    def content(self):
        return b"\n".join(self.ops) + b"\n"


def write_pdf(path, page, title, subject):
    stream = page.content()
    info = (b"<< /Title " + pdf_text_utf16(title) + b" /Subject " + pdf_text_utf16(subject)
            + b" /Author " + pdf_text_utf16("Stadt Beispielstadt") + b" /Creator (make-assets.py)"
            + b" /Producer (scoop demo bundle) /CreationDate (D:20260115090000Z) >>")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 4 0 R /F2 5 0 R >> >> /Contents 6 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"endstream",
        info,
    ]
    buf = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(buf))
        buf += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(buf)
    buf += b"xref\n0 %d\n" % (len(objects) + 1)
    buf += b"0000000000 65535 f \n"
    for off in offsets:
        buf += b"%010d 00000 n \n" % off
    file_id = hashlib.md5(bytes(buf)).hexdigest().upper().encode()
    buf += (b"trailer\n<< /Size %d /Root 1 0 R /Info 7 0 R /ID [<%s> <%s>] >>\nstartxref\n%d\n%%%%EOF\n"
            % (len(objects) + 1, file_id, file_id, xref))
    with open(path, "wb") as fh:
        fh.write(buf)


def letterhead(p, unit):
    p.rect(0, 772, 595, 70, (30, 40, 58))
    p.text(50, 808, "Stadt Beispielstadt", 20, bold=True, rgb=(255, 255, 255))
    p.text(50, 788, unit, 11, rgb=(220, 225, 235))
    p.text(50, 40, "Stadt Beispielstadt · Marktplatz 1 · 12345 Beispielstadt · www.beispielstadt.example",
           8, rgb=(110, 110, 110))
    p.line(50, 55, 545, 55)


def make_pdf_oeffnungszeiten():
    p = Page()
    letterhead(p, "Bürgeramt – Fachbereich Bürgerservice")
    p.text(50, 730, "Öffnungszeiten der Bürgerämter", 18, bold=True)
    p.text(50, 708, "gültig ab 1. Februar 2026", 11, rgb=(90, 90, 90))

    rows = [
        ("Tag", "Bürgeramt Mitte (Marktplatz 1)", "Bürgeramt Nord (Schillerstraße 12)"),
        ("Montag", "08:00 – 12:00 & 13:00 – 16:00", "08:00 – 12:00"),
        ("Dienstag", "08:00 – 12:00 & 13:00 – 18:00", "13:00 – 18:00"),
        ("Mittwoch", "geschlossen", "08:00 – 12:00"),
        ("Donnerstag", "08:00 – 12:00 & 13:00 – 18:00", "13:00 – 18:00"),
        ("Freitag", "08:00 – 12:30", "geschlossen"),
        ("Samstag*", "09:00 – 12:00", "geschlossen"),
    ]
    y = 670
    for i, (a, b, c) in enumerate(rows):
        if i == 0:
            p.rect(50, y - 6, 495, 22, (225, 230, 238))
        p.text(58, y, a, 10, bold=(i == 0))
        p.text(150, y, b, 10, bold=(i == 0))
        p.text(360, y, c, 10, bold=(i == 0))
        p.line(50, y - 7, 545, y - 7, 0.5)
        y -= 24
    p.text(50, y - 4, "* nur am ersten Samstag im Monat und nur mit Termin.", 9, rgb=(90, 90, 90))

    y -= 44
    p.text(50, y, "Hinweise", 13, bold=True)
    notes = [
        "Termine vereinbaren Sie online unter www.beispielstadt.example/termine oder",
        "telefonisch unter 0123 4567-0. Ohne Termin bedienen wir Sie, sofern es die",
        "Auslastung zulässt.",
        "Bitte bringen Sie Ihren gültigen Personalausweis oder Reisepass mit.",
        "Gebühren können bar oder mit girocard bezahlt werden.",
        "An gesetzlichen Feiertagen sowie am 24. und 31. Dezember bleiben die Bürgerämter",
        "geschlossen.",
    ]
    y -= 22
    for line in notes:
        p.text(50, y, line, 10)
        y -= 15
    y -= 20
    p.text(50, y, "Ansprechpartnerin: Sabine Größler, Leitung Bürgeramt, Telefon 0123 4567-210", 10,
           rgb=(30, 40, 58))
    write_pdf(out("anhaenge", "oeffnungszeiten-buergeramt.pdf"), p,
              "Öffnungszeiten der Bürgerämter", "Bürgeramt Mitte und Nord, gültig ab 1. Februar 2026")


def make_pdf_sommerfest():
    p = Page()
    letterhead(p, "Kulturamt")
    p.text(50, 730, "Sommerfest im Stadtpark 2024", 18, bold=True)
    p.text(50, 708, "Samstag, 13. Juli 2024 · Eintritt frei", 11, rgb=(90, 90, 90))
    program = [
        ("14:00", "Eröffnung durch den Bürgermeister auf der Parkbühne"),
        ("14:30", "Kinderprogramm: Hüpfburg, Kinderschminken & Stockbrot"),
        ("16:00", "Musikschule Beispielstadt – Jugendorchester"),
        ("17:30", "Vereinsmeile: Heimatverein, Feuerwehr, Sportfreunde 1908 e. V."),
        ("19:00", "Live-Musik: „Die Straßenmusikanten“"),
        ("22:15", "Lichterfest am Schwanenteich"),
    ]
    y = 670
    for t, what in program:
        p.text(58, y, t, 11, bold=True)
        p.text(120, y, what, 11)
        p.line(50, y - 8, 545, y - 8, 0.5)
        y -= 26
    y -= 20
    p.text(50, y, "Anfahrt: Bus 3 und 7 bis Haltestelle „Stadtpark“. Fahrräder bitte an der", 10)
    p.text(50, y - 15, "Uferstraße abstellen. Bei Unwetter entfällt das Abendprogramm.", 10)
    write_pdf(out("anhaenge", "programm-sommerfest-2024.pdf"), p,
              "Programm Sommerfest im Stadtpark 2024", "Kulturamt der Stadt Beispielstadt")


# --------------------------------------------------------------------------
# Plain-text attachments (UTF-8, LF line ends)
# --------------------------------------------------------------------------

CHECKLISTE = """\
Checkliste: Personalausweis beantragen
Stadt Beispielstadt – Bürgeramt

Bitte bringen Sie mit:
  [ ] Ihren bisherigen Ausweis oder Reisepass
  [ ] ein aktuelles biometrisches Passfoto (35 × 45 mm, nicht älter als 6 Monate)
  [ ] bei Namensänderung: Heirats- oder Geburtsurkunde
  [ ] Gebühr: 37,00 € (Antragsteller < 24 Jahre: 22,80 €)

Die Beantragung ist nur persönlich möglich. Kinder & Jugendliche unter
16 Jahren kommen bitte mit einer sorgeberechtigten Person.

Fragen? Telefon 0123 4567-0 oder buergeramt@beispielstadt.example
"""

MERKBLATT = """\
Merkblatt Winterdienst – Räum- und Streupflicht der Anlieger
Stadt Beispielstadt, Tiefbauamt

1. Gehwege sind werktags von 7:00 bis 20:00 Uhr, sonn- und feiertags von
   9:00 bis 20:00 Uhr von Schnee freizuhalten und bei Glätte zu streuen.
2. Die geräumte Fläche muss mindestens 1,20 m breit sein.
3. Streusalz ist nur auf Treppen, Rampen und an gefährlichen Stellen
   erlaubt. Verwenden Sie sonst abstumpfende Mittel wie Sand oder Splitt.
4. Schnee darf nicht auf die Fahrbahn geschoben werden; Hydranten,
   Gullys und Haltestellen bleiben frei.

Winterdienst-Hotline: 0123 4567-550 (Mo–Fr 7:00–16:00 Uhr)
"""


def make_texts():
    with open(out("anhaenge", "checkliste-personalausweis.txt"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(CHECKLISTE)
    with open(out("anhaenge", "merkblatt-winterdienst.txt"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(MERKBLATT)


if __name__ == "__main__":
    make_rathaus()
    make_marktplatz()
    make_umleitungsplan()
    make_pdf_oeffnungszeiten()
    make_pdf_sommerfest()
    make_texts()
    for root, _, names in sorted(os.walk(FILES)):
        for n in sorted(names):
            p = os.path.join(root, n)
            print(f"{os.path.getsize(p):>8}  {os.path.relpath(p, HERE)}")
