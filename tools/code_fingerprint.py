#!/usr/bin/env python3
"""Print one of the two fingerprints of Ember's bytecode cache (meson's vcs_tag() writes each into
its header, rewriting it only when the value changes, so a build that changed nothing rebuilds
nothing).

usage: code_fingerprint.py SRCROOT tag|stamp

tag    'ember-' + 8 hex digits hashing the bytecode FORMAT: the opcode table (vm/opcodes.def) and
       PYCACHE_FORMAT (vm/pycache.h, bumped by hand when the marshal format or the code-object
       layout changes).  It names the cache files (name.<tag>.pyc) and is
       sys.implementation.cache_tag, so it stays the same across rebuilds of an unchanged format
       and the files of older builds are overwritten instead of piling up beside new ones.
stamp  0x + 8 hex digits hashing every source that decides what the compiler emits (the whole
       front end, the code objects, the assembler, marshal).  It is stored in the cache file's
       header (vm/pycache.c): a file written by another compiler has the right name but the
       wrong stamp, so it is recompiled and overwritten in place."""
import glob
import hashlib
import os
import re
import sys


def digest(root, pats):
    h = hashlib.sha256()
    for pat in pats:
        for f in sorted(glob.glob(os.path.join(root, pat))):
            h.update(os.path.relpath(f, root).encode())
            with open(f, 'rb') as fh:
                h.update(fh.read())
    return h


def main(root, what):
    if what == 'tag':
        h = digest(root, ['vm/opcodes.def'])
        with open(os.path.join(root, 'vm/pycache.h')) as fh:
            m = re.search(r'#define PYCACHE_FORMAT (\d+)', fh.read())
        h.update(b'format ' + m.group(1).encode())
        print('ember-' + h.hexdigest()[:8])
    else:
        h = digest(root, ['vm/opcodes.def', 'vm/code.h', 'vm/code.c', 'vm/value.h', 'vm/marshal.c',
                          'vm/marshal.h', 'vm/pycache.h', 'src/frontend/*.c', 'src/frontend/*.h',
                          'src/frontend/*.def'])
        print('0x' + h.hexdigest()[:8] + 'u')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else 'tag')
