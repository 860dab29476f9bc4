# unicodedata (Ember's C module over tables generated from CPython 3.11's Unicode 14.0.0):
# properties of a sample of code points, the four normalization forms (random strings of
# combining sequences, Hangul, compatibility characters), what tokenizers do with them
# (strip accents, NFKC), errors.
import unicodedata as u, random

print(u.unidata_version)
rng = random.Random(11)
cps = list(range(0x20, 0x300, 7)) + [rng.randrange(0x110000) for _ in range(300)] + [0xAC00, 0xD7A3, 0x1F600, 0x10FFFF, 0xE000, 0xD800]
for cp in cps:
    c = chr(cp)
    print(hex(cp), u.category(c), u.bidirectional(c), u.east_asian_width(c), u.combining(c), u.mirrored(c),
          repr(u.decomposition(c)), u.decimal(c, None), u.digit(c, None), u.numeric(c, None))

pool = [chr(c) for c in list(range(0x41, 0x7B)) + list(range(0xC0, 0x180)) + list(range(0x300, 0x350)) +
        list(range(0x1100, 0x1175)) + list(range(0x11A8, 0x11C3)) + list(range(0xAC00, 0xAC20)) +
        list(range(0x1E00, 0x1E40)) + [0x2126, 0x212B, 0xFB01, 0x2460, 0x00BD, 0x0344, 0x0F73, 0x1D15E, 0x3099, 0x304B]]
for i in range(400):
    s = "".join(rng.choice(pool) for _ in range(rng.randrange(1, 7)))
    print(ascii(s), [ascii(u.normalize(f, s)) for f in ("NFC", "NFD", "NFKC", "NFKD")],
          [u.is_normalized(f, s) for f in ("NFC", "NFD", "NFKC", "NFKD")])

def strip_accents(text):
    return "".join(ch for ch in u.normalize("NFD", text) if u.category(ch) != "Mn")
print(strip_accents("Crème brûlée à la Ångström, Dvořák, naïve café"))
print(u.normalize("NFKC", "ﬁne ½ ① Ｆｕｌｌｗｉｄｔｈ ㍿"), u.normalize("NFC", "한국어"), len(u.normalize("NFD", "한국어")))
print(u.numeric("½"), u.numeric("Ⅻ"), u.digit("①"), u.decimal("٣"), u.numeric("万"))
for f in (lambda: u.category("ab"), lambda: u.category(5), lambda: u.decimal("a"), lambda: u.digit("x"),
          lambda: u.numeric("x"), lambda: u.normalize("NFX", "a"), lambda: u.normalize("NFC", 3),
          lambda: u.combining(""), lambda: u.decimal("a", "dflt")):
    try:
        print(f())
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
