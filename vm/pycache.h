/* vm/pycache.h — the bytecode cache (PEP 3147 layout, Ember's tag).
 *
 * For a source file dir/name.py the cache file is dir/__pycache__/name.<tag>.pyc, where <tag>
 * is sys.implementation.cache_tag ("ember-" + a hash of the opcode table and PYCACHE_FORMAT, see
 * tools/code_fingerprint.py), so it never collides with CPython's name.cpython-311.pyc and stays
 * the same across rebuilds that keep the format (older builds' files are overwritten, not piled
 * up beside).  The file is laid out as CPython's importlib writes it: a 16-byte header
 * (importlib's MAGIC_NUMBER, a flags word, the source's mtime and size, each 32-bit
 * little-endian) and marshal.dumps(code).  The flags word carries the compiler's stamp (a hash of
 * the sources that decide what the compiler emits) shifted past importlib's two flag bits; a
 * header whose stamp, mtime or size does not match is recompiled and overwritten.  importlib's
 * own SourceFileLoader (which wants flags 0) recompiles Ember's files rather than trusting them,
 * and Ember recompiles the files it writes, for the same reason: neither knows the other's
 * compiler.
 *
 * Where the source's directory is not writable (a system-wide library for an ordinary user),
 * the file goes to a per-user cache instead — $XDG_CACHE_HOME/ember/pycache (default
 * ~/.cache/ember/pycache) followed by the source's absolute directory, the layout of
 * sys.pycache_prefix — because without it every run of every script would recompile the whole
 * standard library.  When neither can be written the compiled code is used and not kept.
 * Writes are atomic (a temporary file renamed into place). */
#ifndef EMBER_VM_PYCACHE_H
#define EMBER_VM_PYCACHE_H

#include "vm/vm.h"

/* The bytecode cache's format version: bump it when the marshal format or the code-object layout
 * changes without the opcode table changing (tools/code_fingerprint.py hashes both into the
 * cache tag). */
#define PYCACHE_FORMAT 1

/* The compiled code of the source file at `path` (as code flags `flags`, e.g. CO_LIBRARY),
 * read from the cache when it is current, else compiled (and cached unless
 * sys.dont_write_bytecode).  The code's co_filename is `shown` (NULL: path).  *cached_path
 * (may be NULL) gets the cache file's path (malloc'd) or NULL.  NULL + exception (OSError
 * reading the source, SyntaxError). */
CodeObj *pycache_get_code(VM *vm, const char *path, const char *shown, uint32_t flags, char **cached_path);
/* The code of an Ember library module embedded in the binary (source text, shown as
 * `filename`, e.g. "<ember>/torch/__init__.py"): cached in the per-user directory as a
 * hash-based pyc (PEP 552: the source's SipHash in the header decides, there is no mtime). */
CodeObj *pycache_get_embedded_code(VM *vm, const char *filename, const char *src, size_t len, uint32_t flags);
/* _imp.source_hash's SipHash-1-3 (key, data) */
uint64_t pycache_source_hash(uint64_t key, const uint8_t *p, size_t n);
/* importlib.util.cache_from_source(path) for Ember's tag: the __pycache__ path (malloc'd). */
char *pycache_path_for(VM *vm, const char *path);

#endif
