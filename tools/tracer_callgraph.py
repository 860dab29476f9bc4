#!/usr/bin/env python3
"""tools/tracer_callgraph.py — the file-level call graph of src/tracer, from the object files.

For each tracer .c file, which other tracer files' exported functions it calls: `nm` gives each
object file's defined (T/D/B/R) and undefined (U) symbols; an undefined symbol that another
tracer object defines is an edge.  Prints the strongly connected components bottom first (a
line with several files is a cycle), the functions that tie each cycle, and the files in layers
(a file sits one above the highest file it calls).  -v lists every file's edges.
--allow-cycle a.c,b.c,... makes it a check (tests/trace/meson.build runs it): it fails when a
cycle holds a file outside that list, so no file joins the symbolic interpreter's recursion
unnoticed.

    python3 tools/tracer_callgraph.py [build/src/tracer/libember_tracer.a.p] [-v]
    python3 tools/tracer_callgraph.py OBJDIR --allow-cycle attrs.c,calls.c,...
"""
import subprocess, sys, os, collections, glob
argv = sys.argv[1:]
allowed = None
if '--allow-cycle' in argv:
    k = argv.index('--allow-cycle')
    allowed = set(argv[k + 1].split(','))
    del argv[k:k + 2]
args = [a for a in argv if a != '-v']
objdir = args[0] if args else 'build/src/tracer/libember_tracer.a.p'
if not glob.glob(os.path.join(objdir, '*.c.o')):
    print('no object files in %s' % objdir)
    sys.exit(77)   # meson: skipped
defs, undefs = {}, {}
for o in sorted(glob.glob(os.path.join(objdir, '*.c.o'))):
    name = os.path.basename(o)[:-2]
    if name.startswith('meson-generated'): continue
    out = subprocess.run(['nm', o], capture_output=True, text=True).stdout
    d, u = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == 'U': u.add(parts[1])
        elif len(parts) == 3 and parts[1] in 'TDBRVW': d.add(parts[2])
    defs[name], undefs[name] = d, u
owner = {s: f for f, ds in defs.items() for s in ds}
edges = collections.defaultdict(lambda: collections.defaultdict(set))
for f, us in undefs.items():
    for s in us:
        g = owner.get(s)
        if g and g != f: edges[f][g].add(s)
files = sorted(defs)
# Tarjan SCC
idx, low, st, on, sccs, c = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)
def sc(v):
    idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
    for w in edges[v]:
        if w not in idx: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        sccs.append(sorted(comp))
for f in files:
    if f not in idx: sc(f)
# Tarjan emits SCCs in reverse topological order: bottom (callees) first
print('== order, bottom first (a line with several files is a cycle) ==')
for i, comp in enumerate(sccs):
    print(f'{i:2d}. ' + ', '.join(comp))
print()
for comp in sccs:
    if len(comp) < 2: continue
    print(f'== cycle of {len(comp)} files: edges inside it ==')
    cs = set(comp)
    for f in comp:
        for g in sorted(edges[f]):
            if g in cs:
                print(f'  {f} -> {g}: ' + ', '.join(sorted(edges[f][g])))
if '-v' in sys.argv:
    for f in files:
        print(f, '->', ', '.join(f'{g}({len(s)})' for g, s in sorted(edges[f].items())))
# layers: a file's layer is one above the highest layer it calls (a cycle is one node)
comp_of = {f: i for i, comp in enumerate(sccs) for f in comp}
layer = {}
for i, comp in enumerate(sccs):   # callees come first in Tarjan's order
    deps = {comp_of[g] for f in comp for g in edges[f]} - {i}
    layer[i] = 1 + max((layer[d] for d in deps), default=-1)
print('== layers, bottom first ==')
for L in range(max(layer.values()) + 1):
    print(f'  {L}: ' + '  '.join('{' + ', '.join(sccs[i]) + '}' if len(sccs[i]) > 1 else sccs[i][0]
                               for i in sorted(layer) if layer[i] == L))

if allowed is not None:
    bad = [comp for comp in sccs if len(comp) > 1 and not set(comp) <= allowed]
    for comp in bad:
        print('FAIL: a cycle holds files outside --allow-cycle: ' + ', '.join(sorted(set(comp) - allowed)))
    sys.exit(1 if bad else 0)
