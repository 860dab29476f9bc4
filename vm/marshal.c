/* vm/marshal.c — marshal.dumps / marshal.loads (see marshal.h) and the marshal module.
 *
 * Writing: objects that can be shared (str, bytes, tuples, frozensets, code) are written with
 * FLAG_REF the first time and as a back-reference ('r' + index) after, so a code object's
 * repeated names cost four bytes each.  Reading follows CPython's r_object: every object whose
 * type byte has FLAG_REF is appended to the reference table when it is made (tuples before their
 * items, as CPython does, so they may refer to themselves only through later items).  Strings
 * written interned ('Z', 'A', 't') are interned on reading, found without allocating when the
 * VM already knows them. */
#include "vm/marshal.h"

#include <stdlib.h>
#include <string.h>

#include "vm/bigint.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"

enum {
    TYPE_NULL = '0', TYPE_NONE = 'N', TYPE_FALSE = 'F', TYPE_TRUE = 'T', TYPE_STOPITER = 'S',
    TYPE_ELLIPSIS = '.', TYPE_INT = 'i', TYPE_INT64 = 'I', TYPE_FLOAT = 'f', TYPE_BINARY_FLOAT = 'g',
    TYPE_COMPLEX = 'x', TYPE_BINARY_COMPLEX = 'y', TYPE_LONG = 'l', TYPE_STRING = 's', TYPE_INTERNED = 't',
    TYPE_REF = 'r', TYPE_TUPLE = '(', TYPE_LIST = '[', TYPE_DICT = '{', TYPE_CODE = 'c', TYPE_UNICODE = 'u',
    TYPE_UNKNOWN = '?', TYPE_SET = '<', TYPE_FROZENSET = '>', TYPE_ASCII = 'a', TYPE_ASCII_INTERNED = 'A',
    TYPE_SMALL_TUPLE = ')', TYPE_SHORT_ASCII = 'z', TYPE_SHORT_ASCII_INTERNED = 'Z',
    TYPE_EMBER_CODE = 'C',
    FLAG_REF = 0x80,
};

#define MAX_DEPTH 2000

/* ---- writing ----------------------------------------------------------------------------------- */

typedef struct RefMap {
    Obj **keys;
    int32_t *vals;
    int64_t cap, n;
} RefMap;

typedef struct Writer {
    VM *vm;
    StrBuf out;
    RefMap refs;
    int version, depth;
    bool error;
} Writer;

static uint64_t ptr_hash(const void *p) {
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* index of o, or -1 after inserting it as index n */
static int32_t refmap_lookup_or_add(RefMap *m, Obj *o) {
    if ((m->n + 1) * 2 > m->cap) {
        int64_t nc = m->cap ? m->cap * 2 : 64;
        Obj **nk = calloc((size_t)nc, sizeof(Obj *));
        int32_t *nv = calloc((size_t)nc, sizeof(int32_t));
        for (int64_t i = 0; i < m->cap; i++) {
            if (!m->keys[i]) continue;
            uint64_t h = ptr_hash(m->keys[i]) & (uint64_t)(nc - 1);
            while (nk[h]) h = (h + 1) & (uint64_t)(nc - 1);
            nk[h] = m->keys[i];
            nv[h] = m->vals[i];
        }
        free(m->keys);
        free(m->vals);
        m->keys = nk;
        m->vals = nv;
        m->cap = nc;
    }
    uint64_t h = ptr_hash(o) & (uint64_t)(m->cap - 1);
    while (m->keys[h]) {
        if (m->keys[h] == o) return m->vals[h];
        h = (h + 1) & (uint64_t)(m->cap - 1);
    }
    m->keys[h] = o;
    m->vals[h] = (int32_t)m->n++;
    return -1;
}

static void w_byte(Writer *w, int c) { sb_addc(&w->out, (char)c); }
static void w_int32(Writer *w, int32_t x) {
    uint8_t b[4] = {(uint8_t)x, (uint8_t)(x >> 8), (uint8_t)(x >> 16), (uint8_t)(x >> 24)};
    sb_add(&w->out, (const char *)b, 4);
}
static void w_bytes(Writer *w, const void *p, int64_t n) { sb_add(&w->out, (const char *)p, n); }
static void w_size(Writer *w, int64_t n) { w_int32(w, (int32_t)n); }

static void w_object(Writer *w, Value v);

/* Write the type byte, or a back-reference if o was written before (returns true then). */
static bool w_ref(Writer *w, Obj *o, int type) {
    if (w->version < 3) {
        w_byte(w, type);
        return false;
    }
    int32_t idx = refmap_lookup_or_add(&w->refs, o);
    if (idx >= 0) {
        w_byte(w, TYPE_REF);
        w_int32(w, idx);
        return true;
    }
    w_byte(w, type | FLAG_REF);
    return false;
}

static void w_str(Writer *w, StrObj *s) {
    bool interned = (s->hdr.flags & OBJF_INTERNED) && w->version >= 1;
    if (str_is_ascii(s) && w->version >= 4) {
        if (s->len < 256) {
            if (w_ref(w, &s->hdr, interned ? TYPE_SHORT_ASCII_INTERNED : TYPE_SHORT_ASCII)) return;
            w_byte(w, (int)s->len);
        } else {
            if (w_ref(w, &s->hdr, interned ? TYPE_ASCII_INTERNED : TYPE_ASCII)) return;
            w_size(w, s->len);
        }
        w_bytes(w, s->data, s->len);
        return;
    }
    /* UTF-8 with surrogates passed through, as CPython's "surrogatepass" writes them */
    if (w_ref(w, &s->hdr, interned ? TYPE_INTERNED : TYPE_UNICODE)) return;
    w_size(w, s->len);
    w_bytes(w, s->data, s->len);
}

/* TYPE_LONG: sign-and-size, then 15-bit digits, least significant first */
static void w_long(Writer *w, const mpz_t z) {
    size_t n = 0;
    uint16_t *d = mpz_export(NULL, &n, -1, sizeof(uint16_t), 0, 1, z);
    if (n > INT32_MAX) {
        free(d);
        w->error = true;
        vm_raise(w->vm, w->vm->e_ValueError, "int too large to marshal");
        return;
    }
    w_byte(w, TYPE_LONG);
    w_int32(w, mpz_sgn(z) < 0 ? -(int32_t)n : (int32_t)n);
    for (size_t i = 0; i < n; i++) {
        w_byte(w, d[i] & 0xFF);
        w_byte(w, d[i] >> 8);
    }
    free(d);
}

static void w_int(Writer *w, int64_t x) {
    if (x >= INT32_MIN && x <= INT32_MAX) {
        w_byte(w, TYPE_INT);
        w_int32(w, (int32_t)x);
        return;
    }
    mpz_t z;
    mpz_init(z);
    bigint_load(val_int(x), z);
    w_long(w, z);
    mpz_clear(z);
}

/* one double of a float or complex: 8 raw bytes (version > 1) or a length-prefixed repr */
static void w_double(Writer *w, double d) {
    if (w->version > 1) {
        w_bytes(w, &d, 8);
    } else {
        char buf[40];
        int n = snprintf(buf, sizeof buf, "%.17g", d);
        w_byte(w, n);
        w_bytes(w, buf, n);
    }
}

static void w_code(Writer *w, CodeObj *co) {
    if (w_ref(w, &co->hdr, TYPE_EMBER_CODE)) return;
    int32_t hdr[12] = {co->ncode, co->nexc, co->ncaches, co->argcount, co->posonlyargcount, co->kwonlyargcount,
                       co->nlocals, co->stacksize, (int32_t)co->flags, co->firstlineno, co->ncells, 0};
    for (int i = 0; i < 12; i++) w_int32(w, hdr[i]);
    w_bytes(w, co->code, sizeof(Instr) * (size_t)co->ncode);
    w_bytes(w, co->lines, sizeof(int32_t) * (size_t)co->ncode);
    w_bytes(w, co->cols, sizeof(int32_t) * (size_t)co->ncode);
    w_bytes(w, co->exc_table, sizeof(ExcEntry) * (size_t)co->nexc);
    w_bytes(w, co->cell2arg, sizeof(int32_t) * (size_t)co->ncells);
    w_object(w, val_obj(co->consts));
    w_object(w, val_obj(co->names));
    w_object(w, val_obj(co->varnames));
    w_object(w, val_obj(co->cellvars));
    w_object(w, val_obj(co->freevars));
    w_object(w, val_obj(co->name));
    w_object(w, val_obj(co->qualname));
    w_object(w, val_obj(co->filename));
}

static void w_object(Writer *w, Value v) {
    VM *vm = w->vm;
    if (w->error) return;
    if (++w->depth > MAX_DEPTH) {
        w->error = true;
        vm_raise(vm, vm->e_ValueError, "object too deeply nested to marshal");
        return;
    }
    switch (v.tag) {
    case VAL_NONE: w_byte(w, TYPE_NONE); break;
    case VAL_BOOL: w_byte(w, v.as.b ? TYPE_TRUE : TYPE_FALSE); break;
    case VAL_INT: w_int(w, v.as.i); break;
    case VAL_FLOAT:
        w_byte(w, w->version > 1 ? TYPE_BINARY_FLOAT : TYPE_FLOAT);
        w_double(w, v.as.f);
        break;
    case VAL_OBJ: {
        Obj *o = v.as.o;
        TypeObj *t = o->type;
        double re, im;
        if (t == vm->t_str) w_str(w, (StrObj *)o);
        else if (t == vm->t_complex && complex_parts(v, &re, &im)) {
            w_byte(w, w->version > 1 ? TYPE_BINARY_COMPLEX : TYPE_COMPLEX);
            w_double(w, re);
            w_double(w, im);
        }
        else if (t == vm->t_int) w_long(w, ((IntObj *)o)->z);
        else if (t == vm->t_bytes) {
            BytesObj *b = (BytesObj *)o;
            if (!w_ref(w, o, TYPE_STRING)) {
                w_size(w, b->len);
                w_bytes(w, b->data, b->len);
            }
        } else if (t == vm->t_tuple) {
            TupleObj *tu = (TupleObj *)o;
            if (w->version >= 4 && tu->len < 256) {
                if (w_ref(w, o, TYPE_SMALL_TUPLE)) break;
                w_byte(w, (int)tu->len);
            } else {
                if (w_ref(w, o, TYPE_TUPLE)) break;
                w_size(w, tu->len);
            }
            for (int64_t i = 0; i < tu->len; i++) w_object(w, tu->items[i]);
        } else if (t == vm->t_list) {
            ListObj *l = (ListObj *)o;
            w_byte(w, TYPE_LIST);
            w_size(w, l->len);
            for (int64_t i = 0; i < l->len; i++) w_object(w, l->items[i]);
        } else if (t == vm->t_dict) {
            DictObj *d = (DictObj *)o;
            w_byte(w, TYPE_DICT);
            int64_t pos = 0;
            Value k, val;
            while (dict_next(d, &pos, &k, &val)) {
                w_object(w, k);
                w_object(w, val);
            }
            w_byte(w, TYPE_NULL);
        } else if (t == vm->t_set || t == vm->t_frozenset) {
            SetObj *s = (SetObj *)o;
            if (t == vm->t_frozenset) {
                if (w_ref(w, o, TYPE_FROZENSET)) break;
            } else {
                w_byte(w, TYPE_SET);
            }
            w_size(w, s->used);
            int64_t pos = 0;
            Value k;
            while (set_next(s, &pos, &k)) w_object(w, k);
        } else if (t == vm->t_code) {
            w_code(w, (CodeObj *)o);
        } else if (val_identical(v, vm->ellipsis)) {
            w_byte(w, TYPE_ELLIPSIS);
        } else if (t == vm->t_type && (TypeObj *)o == vm->e_StopIteration) {
            w_byte(w, TYPE_STOPITER);
        } else {
            w->error = true;
            vm_raise(vm, vm->e_ValueError, "unmarshallable object");
        }
        break;
    }
    default:
        w->error = true;
        vm_raise(vm, vm->e_ValueError, "unmarshallable object");
    }
    w->depth--;
}

BytesObj *marshal_dumps(VM *vm, Value v, int version) {
    Writer w = {.vm = vm, .version = version};
    sb_init(&w.out);
    w_object(&w, v);
    free(w.refs.keys);
    free(w.refs.vals);
    BytesObj *b = w.error ? NULL : bytes_new(vm, (const uint8_t *)w.out.data, w.out.len);
    sb_free(&w.out);
    return b;
}

/* ---- reading ----------------------------------------------------------------------------------- */

typedef struct Reader {
    VM *vm;
    const uint8_t *p, *end;
    ListObj *refs;   /* rooted by marshal_loads */
    int depth;
} Reader;

static Value bad(Reader *r, const char *why) {
    return vm_raise(r->vm, r->vm->e_ValueError, "bad marshal data (%s)", why);
}

static Value eof(Reader *r) {
    return vm_raise(r->vm, r->vm->e_EOFError, "marshal data too short");
}

static bool need(Reader *r, int64_t n) { return n >= 0 && r->end - r->p >= n; }

static int32_t r_int32(Reader *r) {
    const uint8_t *p = r->p;
    r->p += 4;
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* reserve a slot in the reference table for an object flagged FLAG_REF; -1 if not flagged */
static int64_t r_ref_reserve(Reader *r, bool flag) {
    if (!flag) return -1;
    if (list_append(r->vm, r->refs, val_none()) < 0) return -2;
    return r->refs->len - 1;
}
static Value r_ref_set(Reader *r, int64_t idx, Value v) {
    if (idx >= 0 && !val_is_null(v)) r->refs->items[idx] = v;
    return v;
}

static Value r_object(Reader *r);

static StrObj *intern_bytes(VM *vm, const char *s, int64_t n) {
    if (n < 120) {
        _Alignas(StrObj) char buf[sizeof(StrObj) + 121];
        StrObj *key = (StrObj *)buf;
        memset(key, 0, sizeof(StrObj));
        key->hdr.type = vm->t_str;
        key->len = n;
        key->hash = -1;
        memcpy(key->data, s, (size_t)n);
        key->data[n] = 0;
        Value found = dict_get_str(vm->intern, key);
        if (!val_is_null(found)) return (StrObj *)found.as.o;
    }
    StrObj *o = str_new(vm, s, n);
    return o ? str_intern(vm, o) : NULL;
}

static Value r_str(Reader *r, int64_t n, bool interned) {
    if (!need(r, n)) return eof(r);
    const char *s = (const char *)r->p;
    r->p += n;
    StrObj *o = interned ? intern_bytes(r->vm, s, n) : str_new(r->vm, s, n);
    return o ? val_obj(o) : val_null();
}

static Value r_long(Reader *r) {
    if (!need(r, 4)) return eof(r);
    int32_t n = r_int32(r);
    if (n == INT32_MIN) return bad(r, "long size out of range");
    int32_t an = n < 0 ? -n : n;
    if (!need(r, 2 * (int64_t)an)) return eof(r);
    /* CPython's 15-bit digits, least significant first; the last must be nonzero */
    uint16_t *d = malloc(sizeof(uint16_t) * (size_t)(an ? an : 1));
    if (!d) return vm_raise(r->vm, r->vm->e_MemoryError, NULL);
    for (int32_t i = 0; i < an; i++) {
        d[i] = (uint16_t)(r->p[0] | r->p[1] << 8);
        r->p += 2;
        if (d[i] > 0x7FFF || (i == an - 1 && d[i] == 0)) {
            const char *why = d[i] ? "digit out of range in long" : "unnormalized long data";
            free(d);
            return bad(r, why);
        }
    }
    mpz_t z;
    mpz_init(z);
    mpz_import(z, (size_t)an, -1, sizeof(uint16_t), 0, 1, d);
    free(d);
    if (n < 0) mpz_neg(z, z);
    Value v = bigint_from_mpz(r->vm, z);
    mpz_clear(z);
    return v;
}

/* one double of a float or complex: 8 raw bytes (binary forms) or a length-prefixed repr */
static bool r_double(Reader *r, bool binary, double *out) {
    if (binary) {
        if (!need(r, 8)) return false;
        memcpy(out, r->p, 8);
        r->p += 8;
        return true;
    }
    if (!need(r, 1)) return false;
    int n = *r->p++;
    if (!need(r, n)) return false;
    char buf[260];
    memcpy(buf, r->p, (size_t)n);
    buf[n] = 0;
    r->p += n;
    *out = strtod(buf, NULL);
    return true;
}

static Value r_code(Reader *r, bool flag) {
    VM *vm = r->vm;
    int64_t idx = r_ref_reserve(r, flag);
    if (idx == -2) return val_null();
    if (!need(r, 48)) return eof(r);
    int32_t h[12];
    for (int i = 0; i < 12; i++) h[i] = r_int32(r);
    int32_t ncode = h[0], nexc = h[1], ncaches = h[2], ncells = h[10];
    if (ncode < 0 || nexc < 0 || ncaches < 1 || ncells < 0) return bad(r, "code object header");
    int64_t arrays = (int64_t)sizeof(Instr) * ncode + 8 * (int64_t)ncode + (int64_t)sizeof(ExcEntry) * nexc +
                     4 * (int64_t)ncells;
    if (!need(r, arrays)) return eof(r);
    const uint8_t *ap = r->p;
    r->p += arrays;
    /* the object fields: each read value stays rooted until the code object holds it */
    Value parts[8];
    for (int i = 0; i < 8; i++) {
        parts[i] = r_object(r);
        if (val_is_null(parts[i])) {
            vm_pop_roots(vm, i);
            return parts[i];
        }
        vm_push_root(vm, parts[i]);
    }
    for (int i = 0; i < 5; i++)
        if (!val_is_type(vm, parts[i], vm->t_tuple)) {
            vm_pop_roots(vm, 8);
            return bad(r, "code object tables");
        }
    for (int i = 5; i < 8; i++)
        if (!val_is_str(vm, parts[i])) {
            vm_pop_roots(vm, 8);
            return bad(r, "code object names");
        }
    CodeObj *co = gc_alloc(vm, vm->t_code, sizeof(CodeObj));
    if (!co) {
        vm_pop_roots(vm, 8);
        return val_null();
    }
    vm_push_root(vm, val_obj(co));
    int32_t n1 = ncode ? ncode : 1;
    Instr *code = code_alloc_instrs(vm, n1);
    int32_t *lines = code ? VM_ALLOC_ARRAY(vm, int32_t, n1) : NULL;
    int32_t *cols = lines ? VM_ALLOC_ARRAY(vm, int32_t, n1) : NULL;
    ExcEntry *et = cols ? VM_ALLOC_ARRAY(vm, ExcEntry, nexc ? nexc : 1) : NULL;
    int32_t *c2a = et ? VM_ALLOC_ARRAY(vm, int32_t, ncells ? ncells : 1) : NULL;
    InlineCache *caches = c2a ? VM_ALLOC_ARRAY(vm, InlineCache, ncaches) : NULL;
    if (!caches) {
        /* whatever was allocated is attached so the finalizer frees it */
        co->code = code;
        co->lines = lines;
        co->cols = cols;
        co->exc_table = et;
        co->cell2arg = c2a;
        co->ncode = ncode;
        co->nexc = nexc;
        co->ncells = ncells;
        vm_pop_roots(vm, 9);
        return val_null();
    }
    memcpy(code, ap, sizeof(Instr) * (size_t)ncode);
    ap += sizeof(Instr) * (size_t)ncode;
    memcpy(lines, ap, 4 * (size_t)ncode);
    ap += 4 * (size_t)ncode;
    memcpy(cols, ap, 4 * (size_t)ncode);
    ap += 4 * (size_t)ncode;
    memcpy(et, ap, sizeof(ExcEntry) * (size_t)nexc);
    ap += sizeof(ExcEntry) * (size_t)nexc;
    memcpy(c2a, ap, 4 * (size_t)ncells);
    memset(caches, 0, sizeof(InlineCache) * (size_t)ncaches);
    co->code = code;
    co->lines = lines;
    co->cols = cols;
    co->exc_table = et;
    co->cell2arg = c2a;
    co->caches = caches;
    co->ncode = ncode;
    co->nexc = nexc;
    co->ncaches = ncaches;
    co->ncells = ncells;
    co->argcount = h[3];
    co->posonlyargcount = h[4];
    co->kwonlyargcount = h[5];
    co->nlocals = h[6];
    co->stacksize = h[7];
    co->flags = (uint32_t)h[8];
    co->firstlineno = h[9];
    co->consts = AS_TUPLE(parts[0]);
    co->names = AS_TUPLE(parts[1]);
    co->varnames = AS_TUPLE(parts[2]);
    co->cellvars = AS_TUPLE(parts[3]);
    co->freevars = AS_TUPLE(parts[4]);
    co->name = AS_STR(parts[5]);
    co->qualname = AS_STR(parts[6]);
    co->filename = AS_STR(parts[7]);
    co->nlocalsplus = co->nlocals + ncells + (int32_t)co->freevars->len;
    vm_pop_roots(vm, 9);
    if (co->nlocals != co->varnames->len || ncells != co->cellvars->len) return bad(r, "code object counts");
    /* a damaged file must not run: the assembler's operand checks (the cache files are Ember's
     * own, named by the tag of the build that wrote them, so the stack-depth walk the assembler
     * already did is not repeated) */
    if (code_verify_operands(vm, co) < 0) return val_null();
    code_quicken_init(co);
    return r_ref_set(r, idx, val_obj(co));
}

static Value r_object_inner(Reader *r) {
    VM *vm = r->vm;
    if (!need(r, 1)) return vm_raise(vm, vm->e_EOFError, "EOF read where object expected");
    int code = *r->p++;
    bool flag = (code & FLAG_REF) != 0;
    int type = code & ~FLAG_REF;
    switch (type) {
    case TYPE_NULL: return bad(r, "NULL object in marshal data for object");
    case TYPE_NONE: return val_none();
    case TYPE_FALSE: return val_bool(false);
    case TYPE_TRUE: return val_bool(true);
    case TYPE_ELLIPSIS: return vm->ellipsis;
    case TYPE_STOPITER: return val_obj(vm->e_StopIteration);
    case TYPE_INT:
        if (!need(r, 4)) return eof(r);
        return r_ref_set(r, r_ref_reserve(r, flag), val_int(r_int32(r)));
    case TYPE_INT64: {
        if (!need(r, 8)) return eof(r);
        int64_t lo = (uint32_t)r_int32(r), hi = r_int32(r);
        return val_int(lo | (hi << 32));
    }
    case TYPE_LONG: {
        int64_t idx = r_ref_reserve(r, flag);
        if (idx == -2) return val_null();
        return r_ref_set(r, idx, r_long(r));
    }
    case TYPE_BINARY_FLOAT:
    case TYPE_FLOAT: {
        double d;
        if (!r_double(r, type == TYPE_BINARY_FLOAT, &d)) return eof(r);
        return r_ref_set(r, r_ref_reserve(r, flag), val_float(d));
    }
    case TYPE_COMPLEX:
    case TYPE_BINARY_COMPLEX: {
        double re, im;
        if (!r_double(r, type == TYPE_BINARY_COMPLEX, &re) || !r_double(r, type == TYPE_BINARY_COMPLEX, &im))
            return eof(r);
        int64_t idx = r_ref_reserve(r, flag);
        if (idx == -2) return val_null();
        return r_ref_set(r, idx, complex_new_value(vm, re, im));
    }
    case TYPE_STRING: {
        if (!need(r, 4)) return eof(r);
        int64_t n = r_int32(r);
        if (n < 0) return bad(r, "bytes object size out of range");
        if (!need(r, n)) return eof(r);
        int64_t idx = r_ref_reserve(r, flag);
        if (idx == -2) return val_null();
        BytesObj *b = bytes_new(vm, r->p, n);
        r->p += n;
        return r_ref_set(r, idx, b ? val_obj(b) : val_null());
    }
    case TYPE_ASCII_INTERNED:
    case TYPE_ASCII:
    case TYPE_UNICODE:
    case TYPE_INTERNED: {
        if (!need(r, 4)) return eof(r);
        int64_t n = r_int32(r);
        if (n < 0) return bad(r, "string size out of range");
        int64_t idx = r_ref_reserve(r, flag);
        if (idx == -2) return val_null();
        return r_ref_set(r, idx, r_str(r, n, type == TYPE_ASCII_INTERNED || type == TYPE_INTERNED));
    }
    case TYPE_SHORT_ASCII_INTERNED:
    case TYPE_SHORT_ASCII: {
        if (!need(r, 1)) return eof(r);
        int64_t n = *r->p++;
        int64_t idx = r_ref_reserve(r, flag);
        if (idx == -2) return val_null();
        return r_ref_set(r, idx, r_str(r, n, type == TYPE_SHORT_ASCII_INTERNED));
    }
    case TYPE_SMALL_TUPLE:
    case TYPE_TUPLE: {
        int64_t n;
        if (type == TYPE_SMALL_TUPLE) {
            if (!need(r, 1)) return eof(r);
            n = *r->p++;
        } else {
            if (!need(r, 4)) return eof(r);
            n = r_int32(r);
            if (n < 0) return bad(r, "tuple size out of range");
        }
        TupleObj *t = tuple_new(vm, n);
        if (!t) return val_null();
        Value tv = val_obj(t);
        vm_push_root(vm, tv);
        int64_t idx = r_ref_reserve(r, flag);
        if (idx == -2) {
            vm_pop_root(vm);
            return val_null();
        }
        r_ref_set(r, idx, tv);
        for (int64_t i = 0; i < n; i++) {
            Value it = r_object(r);
            if (val_is_null(it)) {
                vm_pop_root(vm);
                return it;
            }
            t->items[i] = it;
        }
        vm_pop_root(vm);
        return tv;
    }
    case TYPE_LIST: {
        if (!need(r, 4)) return eof(r);
        int64_t n = r_int32(r);
        if (n < 0) return bad(r, "list size out of range");
        ListObj *l = list_new(vm, n);
        if (!l) return val_null();
        Value lv = val_obj(l);
        vm_push_root(vm, lv);
        r_ref_set(r, r_ref_reserve(r, flag), lv);
        for (int64_t i = 0; i < n; i++) {
            Value it = r_object(r);
            if (val_is_null(it) || list_append(vm, l, it) < 0) {
                vm_pop_root(vm);
                return val_null();
            }
        }
        vm_pop_root(vm);
        return lv;
    }
    case TYPE_DICT: {
        DictObj *d = dict_new(vm);
        if (!d) return val_null();
        Value dv = val_obj(d);
        vm_push_root(vm, dv);
        r_ref_set(r, r_ref_reserve(r, flag), dv);
        for (;;) {
            if (!need(r, 1)) {
                vm_pop_root(vm);
                return eof(r);
            }
            if (*r->p == TYPE_NULL) {
                r->p++;
                break;
            }
            Value k = r_object(r);
            if (val_is_null(k)) {
                vm_pop_root(vm);
                return k;
            }
            vm_push_root(vm, k);
            Value v = r_object(r);
            int rc = val_is_null(v) ? -1 : dict_set(vm, d, k, v);
            vm_pop_root(vm);
            if (rc < 0) {
                vm_pop_root(vm);
                return val_null();
            }
        }
        vm_pop_root(vm);
        return dv;
    }
    case TYPE_SET:
    case TYPE_FROZENSET: {
        if (!need(r, 4)) return eof(r);
        int64_t n = r_int32(r);
        if (n < 0) return bad(r, "set size out of range");
        SetObj *s = set_new(vm, type == TYPE_SET ? vm->t_set : vm->t_frozenset);
        if (!s) return val_null();
        Value sv = val_obj(s);
        vm_push_root(vm, sv);
        int64_t idx = r_ref_reserve(r, flag);
        for (int64_t i = 0; i < n; i++) {
            Value it = r_object(r);
            if (val_is_null(it) || set_add(vm, s, it) < 0) {
                vm_pop_root(vm);
                return val_null();
            }
        }
        vm_pop_root(vm);
        return r_ref_set(r, idx, sv);
    }
    case TYPE_REF: {
        if (!need(r, 4)) return eof(r);
        int64_t i = r_int32(r);
        if (i < 0 || i >= r->refs->len) return bad(r, "invalid reference");
        Value v = r->refs->items[i];
        if (val_is_none(v) && false) return bad(r, "invalid reference");
        return v;
    }
    case TYPE_EMBER_CODE: return r_code(r, flag);
    case TYPE_CODE:
        return bad(r, "a CPython code object: Ember runs its own bytecode");
    default: return bad(r, "unknown type code");
    }
}

static Value r_object(Reader *r) {
    if (++r->depth > MAX_DEPTH) {
        r->depth--;
        return vm_raise(r->vm, r->vm->e_ValueError, "recursion limit exceeded");
    }
    Value v = r_object_inner(r);
    r->depth--;
    return v;
}

Value marshal_loads(VM *vm, const uint8_t *data, int64_t n, int64_t *used) {
    ListObj *refs = list_new(vm, 0);
    if (!refs) return val_null();
    vm_push_root(vm, val_obj(refs));
    Reader r = {.vm = vm, .p = data, .end = data + n, .refs = refs};
    Value v = r_object(&r);
    vm_pop_root(vm);
    if (used) *used = r.p - data;
    return v;
}

/* ---- the marshal module ------------------------------------------------------------------------- */

#include "vm/buffer.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define MARSHAL_VERSION 4

static int version_arg(VM *vm, Value v, int *out) {
    if (val_is_null(v)) {
        *out = MARSHAL_VERSION;
        return 0;
    }
    int64_t x;
    if (vm_index(vm, v, &x) < 0) return -1;
    *out = (int)x;
    return 0;
}

static Value m_dumps(ARGS) {
    static const char *const names[] = {"value", "version"};
    Value a[2];
    int version;
    if (native_parse_args(vm, "dumps", argc, argv, kw, 2, 1, names, 2, a) < 0 || version_arg(vm, a[1], &version) < 0)
        return val_null();
    BytesObj *b = marshal_dumps(vm, a[0], version);
    return b ? val_obj(b) : val_null();
}

static Value m_loads(ARGS) {
    Value holder;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, argv[0], "loads", &holder, &p, &n) < 0) return val_null();
    vm_push_root(vm, holder);
    Value v = marshal_loads(vm, p, n, NULL);
    vm_pop_root(vm);
    return v;
}

static Value m_dump(ARGS) {
    static const char *const names[] = {"value", "file", "version"};
    Value a[3];
    int version;
    if (native_parse_args(vm, "dump", argc, argv, kw, 3, 2, names, 3, a) < 0 || version_arg(vm, a[2], &version) < 0)
        return val_null();
    BytesObj *b = marshal_dumps(vm, a[0], version);
    if (!b) return val_null();
    vm_push_root(vm, val_obj(b));
    Value r = vm_call_method(vm, a[1], "write", 1, (Value[]){val_obj(b)});
    vm_pop_root(vm);
    return val_is_null(r) ? r : val_none();
}

/* load(file): reads everything the file has left, decodes one value and seeks back over the
 * unused rest when the file can seek (CPython reads exactly the bytes it needs) */
static Value m_load(ARGS) {
    Value data = vm_call_method(vm, argv[0], "read", 0, NULL);
    if (val_is_null(data)) return data;
    vm_push_root(vm, data);
    Value holder;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, data, "load", &holder, &p, &n) < 0) {
        vm_pop_root(vm);
        return val_null();
    }
    vm_push_root(vm, holder);
    int64_t used = 0;
    Value v = marshal_loads(vm, p, n, &used);
    if (!val_is_null(v) && used < n) {
        vm_push_root(vm, v);
        Value r = vm_call_method(vm, argv[0], "seek", 2, (Value[]){val_int(used - n), val_int(1)});
        if (val_is_null(r)) vm_clear_exc(vm);
        vm_pop_root(vm);
    }
    vm_pop_roots(vm, 2);
    return v;
}

int marshal_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"dumps", m_dumps}, {"loads", m_loads, ARITY_O}, {"dump", m_dump}, {"load", m_load, ARITY_O}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    return module_set(vm, mod, "version", val_int(MARSHAL_VERSION));
}
