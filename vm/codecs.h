/* vm/codecs.h — text encodings from C: the three codecs CPython also writes in C for speed
 * (UTF-8, Latin-1, ASCII) with the standard error handlers, the codec registry for every other
 * encoding (the search functions of CPython's `encodings` package), and the file-system
 * encoding (UTF-8 with surrogateescape).  Used by str.encode / bytes.decode, posix, _io and
 * the _codecs module (vm/mod_codecs.c).
 *
 * Ember's str is UTF-8; a lone surrogate (from surrogateescape or chr(0xdc80)) is stored as
 * its 3-byte generalized UTF-8 form ED A0..BF xx, which the encoders below treat as CPython
 * treats a surrogate code point.
 *
 *   StrObj *s = codec_decode(vm, data, n, "utf-8", "strict");     // NULL + UnicodeDecodeError
 *   Value b = codec_encode(vm, s, "latin-1", "replace");            // bytes (or VAL_NULL)
 */
#ifndef EMBER_VM_CODECS_H
#define EMBER_VM_CODECS_H

#include "vm/vm.h"

typedef enum CodecId { CODEC_OTHER, CODEC_UTF8, CODEC_LATIN1, CODEC_ASCII } CodecId;

/* Which built-in codec an encoding name names ("UTF-8", "utf8", "latin_1", "iso-8859-1",
 * "us-ascii", ...), CODEC_OTHER for the rest. */
CodecId codec_id(const char *encoding);
/* The canonical Python name of a built-in codec ("utf-8", "iso8859-1", "ascii"). */
const char *codec_name(CodecId id);

/* Decode with a built-in codec.  final=false stops before an incomplete multi-byte sequence
 * at the end (incremental decoders); *consumed (may be NULL when final) gets the bytes used.
 * `source` is the bytes object being decoded when the caller has one (for the exception),
 * VAL_NULL to have one made on error. */
StrObj *codec_decode_builtin(VM *vm, CodecId id, const uint8_t *p, int64_t n, const char *errors, bool final,
                             int64_t *consumed, Value source);
BytesObj *codec_encode_builtin(VM *vm, CodecId id, StrObj *s, const char *errors);

/* Any encoding: built-in ones directly, others through the codec registry (which imports
 * CPython's `encodings` package on first use).  Return the str / bytes, or NULL. */
StrObj *codec_decode(VM *vm, const uint8_t *p, int64_t n, const char *encoding, const char *errors);
Value codec_encode(VM *vm, StrObj *s, const char *encoding, const char *errors);

/* codecs.lookup(encoding): the CodecInfo (normalising the name, caching, running the search
 * functions).  VAL_NULL + LookupError "unknown encoding: x". */
Value codec_lookup(VM *vm, const char *encoding);
/* codecs.lookup_error(name): the handler (VAL_NULL + LookupError). */
Value codec_lookup_error(VM *vm, const char *name);

/* The file-system encoding (os.fsencode / os.fsdecode): UTF-8 with surrogateescape. */
BytesObj *codec_fs_encode(VM *vm, StrObj *s);
StrObj *codec_fs_decode(VM *vm, const char *p, int64_t n);
/* s as C text for a system call: its own data when it holds no surrogate, else a converted
 * copy; NULL + exception on failure (*holder keeps the copy alive: root it). */
const char *codec_fs_cstr(VM *vm, StrObj *s, Value *holder);

/* A str's data contains an encoded surrogate (ED A0..BF). */
bool codec_has_surrogates(const StrObj *s);

/* The standard error handlers in the registry (vm/mod_codecs.c). */
void codecs_init(VM *vm);

#endif
