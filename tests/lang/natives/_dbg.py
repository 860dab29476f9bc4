import _sre
from _re_corpus_data import ENTRIES, SUBJECTS, BYTES_SUBJECTS, RSUBJECTS


def digest(s, h=0):
    for ch in s:
        h = (h * 1000003 + ord(ch)) & 0xFFFFFFFF
    return h


def describe(p, s):
    out = []
    m = p.search(s)
    if m is None:
        out.append('S-')
    else:
        out.append('S%r%r%r%r%r' % (m.span(), m.groups(), m.lastindex, m.lastgroup, m.groupdict()))
        out.append('R%r' % (m.regs,))
    m = p.match(s)
    out.append('M-' if m is None else 'M%r%r' % (m.span(), m.group(0)))
    m = p.fullmatch(s)
    out.append('F-' if m is None else 'F%r' % (m.span(),))
    out.append('A%r' % (p.findall(s),))
    out.append('I%r' % ([m.span() for m in p.finditer(s)],))
    out.append('P%r' % (p.split(s),))
    out.append('P1%r' % (p.split(s, 1),))
    empty = s[:0]
    rep = 'X' if isinstance(s, str) else b'X'
    out.append('U%r' % (p.subn(rep, s),))
    out.append('U1%r' % (p.sub(rep, s, 1),))
    out.append('C%r' % (p.sub(lambda m: empty.join([rep, m.group(0), rep]), s),))
    n = len(s)
    for pos, endpos in ((1, n), (0, n - 1), (2, n + 5), (n, n)):
        m = p.search(s, pos, endpos)
        out.append('s%r' % (None if m is None else (m.span(), m.groups(), m.pos, m.endpos),))
        m = p.match(s, pos=pos)
        out.append('m%r' % (None if m is None else m.span(),))
    return out
import sys
args, kind = ENTRIES[151]
p = _sre.compile(*args)
for s in SUBJECTS:
    sys.stderr.write(repr(s) + "\n")
    describe(p, s)
print("done")
