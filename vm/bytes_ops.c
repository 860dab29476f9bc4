/* vm/bytes_ops.c — the methods bytes and bytearray share, written once over byte views (any
 * bytes-like argument: bytes, bytearray, memoryview) and returning the receiver's kind (bytes
 * for bytes and its subclasses, bytearray for bytearrays): length, indexing, comparison,
 * concatenation and repetition, searching (find/index/count/startswith with start/end),
 * splitting and joining, stripping, padding, case mapping and the is* tests (ASCII, as CPython),
 * replace, translate/maketrans, hex/fromhex, expandtabs, splitlines, and %-formatting. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vm/bigint.h"
#include "vm/bytes_ops.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static bool is_bytearray(Value v) { return v.tag == VAL_OBJ && v.as.o->type->layout == OBJ_LAYOUT_BYTEARRAY; }

/* The receiver's bytes (a bytes or a bytearray). */
static void self_view(Value s, const uint8_t **d, int64_t *n) {
    if (is_bytearray(s)) {
        *d = ((ByteArrayObj *)s.as.o)->data;
        *n = ((ByteArrayObj *)s.as.o)->len;
    } else {
        *d = ((BytesObj *)s.as.o)->data;
        *n = ((BytesObj *)s.as.o)->len;
    }
}

/* A result of the receiver's kind. */
static Value like(VM *vm, Value self, const uint8_t *d, int64_t n) {
    if (is_bytearray(self)) return bytearray_new(vm, vm->t_bytearray, d, n);
    BytesObj *b = bytes_new(vm, d, n);
    return b ? val_obj(b) : val_null();
}

/* The same, copying the bytes first (d may move when allocation collects: it points into a
 * bytearray, or a StrBuf). */
static Value like_buf(VM *vm, Value self, StrBuf *sb) {
    Value r = like(vm, self, (const uint8_t *)(sb->data ? sb->data : ""), sb->len);
    sb_free(sb);
    return r;
}

static const char *kind_name(Value self) { return is_bytearray(self) ? "bytearray" : "bytes"; }

/* A byte value 0..255 given as an int (or __index__); -1 + error. */
static int byte_arg(VM *vm, Value v, uint8_t *out) {
    int64_t x;
    if (vm_index(vm, v, &x) < 0) {
        if (vm_exc_matches(vm, vm->e_OverflowError)) {
            vm_clear_exc(vm);
            vm_raise(vm, vm->e_ValueError, "byte must be in range(0, 256)");
        }
        return -1;
    }
    if (x < 0 || x > 255) {
        vm_raise(vm, vm->e_ValueError, "byte must be in range(0, 256)");
        return -1;
    }
    *out = (uint8_t)x;
    return 0;
}

/* A subsequence argument: bytes-like, or an int for a single byte (find, count, in). */
static int sub_arg(VM *vm, Value v, uint8_t *one, const uint8_t **d, int64_t *n, const char *what) {
    if (bigint_check(vm, v) || (!bytes_view(vm, v, d, n) && !val_is_null(type_special(vm, vm_type_of(vm, v), SP_INDEX)))) {
        if (byte_arg(vm, v, one) < 0) return -1;
        *d = one;
        *n = 1;
        return 0;
    }
    if (bytes_view(vm, v, d, n)) return 0;
    if (what)
        vm_raise(vm, vm->e_TypeError, "argument should be integer or bytes-like object, not '%s'", vm_type_name(vm, v));
    else
        vm_raise(vm, vm->e_TypeError, "a bytes-like object is required, not '%s'", vm_type_name(vm, v));
    return -1;
}

/* Optional start/end arguments as slice bounds over n (None allowed), CPython's
 * ADJUST_INDICES. */
static int start_end(VM *vm, int argc, Value *argv, int first, int64_t n, int64_t *start, int64_t *end) {
    *start = 0;
    *end = n;
    for (int k = 0; k < 2; k++) {
        if (argc <= first + k || val_is_none(argv[first + k])) continue;
        Value v = argv[first + k];
        int64_t x;
        if (val_is_intobj(v)) {
            x = mpz_fits_slong_p(AS_INTOBJ(v)->z) ? mpz_get_si(AS_INTOBJ(v)->z) : mpz_sgn(AS_INTOBJ(v)->z) < 0 ? INT64_MIN / 2 : INT64_MAX / 2;
        } else if (vm_index(vm, v, &x) < 0) {
            if (vm_exc_matches(vm, vm->e_TypeError)) {
                vm_clear_exc(vm);
                vm_raise(vm, vm->e_TypeError, "slice indices must be integers or None or have an __index__ method");
            }
            return -1;
        }
        if (k == 0) *start = x;
        else *end = x;
    }
    if (*end > n) *end = n;
    else if (*end < 0) {
        *end += n;
        if (*end < 0) *end = 0;
    }
    if (*start < 0) {
        *start += n;
        if (*start < 0) *start = 0;
    }
    return 0;
}

static int64_t find_sub(const uint8_t *h, int64_t hn, const uint8_t *n, int64_t nn, bool reverse) {
    if (nn > hn) return -1;
    if (!reverse) {
        if (nn == 0) return 0;
        const void *p = memmem(h, (size_t)hn, n, (size_t)nn);
        return p ? (const uint8_t *)p - h : -1;
    }
    for (int64_t i = hn - nn; i >= 0; i--)
        if (memcmp(h + i, n, (size_t)nn) == 0) return i;
    return -1;
}

/* ---- sequence protocol -------------------------------------------------------------------------- */

static Value o_len(ARGS) {
    const uint8_t *d;
    int64_t n;
    self_view(argv[0], &d, &n);
    return val_int(n);
}

static Value o_getitem(ARGS) {
    const uint8_t *d;
    int64_t n;
    self_view(argv[0], &d, &n);
    if (val_is_type(vm, argv[1], vm->t_slice)) {
        int64_t start, stop, step, cnt;
        if (slice_indices(vm, (SliceObj *)argv[1].as.o, n, &start, &stop, &step, &cnt) < 0) return val_null();
        if (step == 1) {
            self_view(argv[0], &d, &n);
            return like(vm, argv[0], d + start, cnt);
        }
        uint8_t *tmp = malloc((size_t)cnt + 1);
        if (!tmp) return vm_no_memory(vm);
        self_view(argv[0], &d, &n);
        for (int64_t i = 0; i < cnt; i++) tmp[i] = d[start + i * step];
        Value r = like(vm, argv[0], tmp, cnt);
        free(tmp);
        return r;
    }
    if (!bigint_check(vm, argv[1]) && val_is_null(type_special(vm, vm_type_of(vm, argv[1]), SP_INDEX)))
        return vm_raise(vm, vm->e_TypeError, "%s indices must be integers or slices, not %s", is_bytearray(argv[0]) ? "bytearray" : "byte",
                        vm_type_name(vm, argv[1]));
    int64_t i;
    if (seq_index(vm, argv[1], n, is_bytearray(argv[0]) ? "bytearray" : NULL, &i) < 0) return val_null();
    self_view(argv[0], &d, &n);
    return val_int(d[i]);
}

static Value o_contains(ARGS) {
    const uint8_t *d, *s;
    int64_t n, sn;
    uint8_t one;
    if (sub_arg(vm, argv[1], &one, &s, &sn, NULL) < 0) return val_null();
    self_view(argv[0], &d, &n);
    return val_bool(find_sub(d, n, s, sn, false) >= 0);
}

/* __eq__ ... __ge__ with any bytes-like other: data is a CompareOp */
static Value o_cmp(ARGS) {
    const uint8_t *a, *b;
    int64_t na, nb;
    if (!bytes_view(vm, argv[1], &b, &nb)) return vm->not_implemented;
    self_view(argv[0], &a, &na);
    int64_t n = na < nb ? na : nb;
    int r = n ? memcmp(a, b, (size_t)n) : 0;
    if (r == 0) r = na < nb ? -1 : na > nb;
    switch ((CompareOp)(intptr_t)fn->data) {
    case CMP_LT: return val_bool(r < 0);
    case CMP_LE: return val_bool(r <= 0);
    case CMP_EQ: return val_bool(r == 0);
    case CMP_NE: return val_bool(r != 0);
    case CMP_GT: return val_bool(r > 0);
    default: return val_bool(r >= 0);
    }
}

static Value o_add(ARGS) {
    const uint8_t *a, *b;
    int64_t na, nb;
    if (!bytes_view(vm, argv[1], &b, &nb))
        return vm_raise(vm, vm->e_TypeError, "can't concat %s to %s", vm_type_name(vm, argv[1]), kind_name(argv[0]));
    self_view(argv[0], &a, &na);
    StrBuf sb;
    sb_init(&sb);
    sb_add(&sb, (const char *)a, na);
    sb_add(&sb, (const char *)b, nb);
    return like_buf(vm, argv[0], &sb);
}

static Value o_mul(ARGS) {
    if (!bigint_check(vm, argv[1]) && val_is_null(type_special(vm, vm_type_of(vm, argv[1]), SP_INDEX)))
        return vm->not_implemented;
    int64_t k;
    if (vm_index(vm, argv[1], &k) < 0) return val_null();
    const uint8_t *d;
    int64_t n;
    self_view(argv[0], &d, &n);
    if (k < 0) k = 0;
    if (n && k > (INT64_C(1) << 40) / n) return vm_no_memory(vm);
    /* one allocation, then the copies double (b'\0' * 65536 is common: no per-copy call) */
    int64_t total = n * k;
    StrBuf sb;
    sb_init(&sb);
    if (total) {
        if (!sb_reserve(&sb, (size_t)total)) {
            sb_free(&sb);
            return vm_no_memory(vm);
        }
        memcpy(sb.data, d, (size_t)n);
        for (int64_t done = n; done < total;) {
            int64_t c = done < total - done ? done : total - done;
            memcpy(sb.data + done, sb.data, (size_t)c);
            done += c;
        }
        sb.len = (size_t)total;
        sb.data[total] = 0;
    }
    return like_buf(vm, argv[0], &sb);
}

/* ---- searching ------------------------------------------------------------------------------------ */

/* find/rfind/index/rindex/count (data: bit0 reverse, bit1 index, bit2 count) */
static Value o_find(ARGS) {
    int kind = (int)(intptr_t)fn->data;
    static const char *const names[] = {"find", "rfind", "index", "rindex", "count"};
    const char *name = names[kind & 4 ? 4 : kind];
    if (native_check_args(vm, name, argc, kw, 2, 4) < 0) return val_null();
    const uint8_t *d, *s;
    int64_t n, sn, start, end;
    uint8_t one;
    if (sub_arg(vm, argv[1], &one, &s, &sn, name) < 0) return val_null();
    self_view(argv[0], &d, &n);
    if (start_end(vm, argc, argv, 2, n, &start, &end) < 0) return val_null();
    self_view(argv[0], &d, &n);
    if (kind & 4) {
        if (start > end || start > n) return val_int(0);
        if (sn == 0) return val_int(end - start + 1);
        int64_t c = 0, i = start, r;
        while ((r = find_sub(d + i, end - i, s, sn, false)) >= 0) {
            c++;
            i += r + sn;
        }
        return val_int(c);
    }
    int64_t r = -1;
    if (start <= end && start <= n) {
        r = find_sub(d + start, end - start, s, sn, kind & 1);
        if (r >= 0) r += start;
    }
    if (r < 0 && (kind & 2)) return vm_raise(vm, vm->e_ValueError, "subsection not found");
    return val_int(r);
}

/* startswith/endswith (data: 0/1): a bytes-like or a tuple of them, optional start/end */
static Value o_affix(ARGS) {
    bool at_end = fn->data != NULL;
    const char *name = at_end ? "endswith" : "startswith";
    if (native_check_args(vm, name, argc, kw, 2, 4) < 0) return val_null();
    const uint8_t *d;
    int64_t n, start, end;
    self_view(argv[0], &d, &n);
    if (start_end(vm, argc, argv, 2, n, &start, &end) < 0) return val_null();
    self_view(argv[0], &d, &n);
    Value *items = &argv[1];
    int64_t k = 1;
    if (val_is_type(vm, argv[1], vm->t_tuple)) {
        items = AS_TUPLE(argv[1])->items;
        k = AS_TUPLE(argv[1])->len;
    }
    for (int64_t i = 0; i < k; i++) {
        const uint8_t *x;
        int64_t xn;
        if (!bytes_view(vm, items[i], &x, &xn))
            return vm_raise(vm, vm->e_TypeError, "%s first arg must be bytes or a tuple of bytes, not %s", name,
                            vm_type_name(vm, items[i]));
        if (start > n || end - start < xn) continue;
        if (memcmp(d + (at_end ? end - xn : start), x, (size_t)xn) == 0) return val_bool(true);
    }
    return val_bool(false);
}

/* ---- splitting and joining --------------------------------------------------------------------------- */

static bool space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

static int append_piece(VM *vm, ListObj *out, Value self, int64_t from, int64_t to) {
    const uint8_t *d;
    int64_t n;
    self_view(self, &d, &n);
    Value p = like(vm, self, d + from, to - from);
    return val_is_null(p) ? -1 : list_append(vm, out, p);
}

/* split/rsplit (data: 0/1) with sep=None and maxsplit */
static Value o_split(ARGS) {
    bool rev = fn->data != NULL;
    static const char *const names[] = {"self", "sep", "maxsplit"};
    Value a[3];
    if (native_parse_args(vm, rev ? "rsplit" : "split", argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    int64_t maxsplit = -1;
    if (!val_is_null(a[2]) && vm_index(vm, a[2], &maxsplit) < 0) return val_null();
    const uint8_t *sep = NULL;
    int64_t sn = 0;
    uint8_t *sepcopy = NULL;
    if (!val_is_null(a[1]) && !val_is_none(a[1])) {
        if (bytes_view_arg(vm, a[1], &sep, &sn) < 0) return val_null();
        if (sn == 0) return vm_raise(vm, vm->e_ValueError, "empty separator");
        sepcopy = malloc((size_t)sn);
        if (!sepcopy) return vm_no_memory(vm);
        memcpy(sepcopy, sep, (size_t)sn);
        sep = sepcopy;
    }
    ListObj *out = list_new(vm, 0);
    if (!out) {
        free(sepcopy);
        return val_null();
    }
    vm_push_root(vm, val_obj(out));
    const uint8_t *d;
    int64_t n;
    self_view(argv[0], &d, &n);
    /* collect piece bounds first (the data may move as pieces are allocated) */
    int64_t cap = 16, np = 0;
    int64_t *pb = malloc(sizeof(int64_t) * 2 * (size_t)cap);
    int64_t count = 0;
    if (sep) {
        if (!rev) {
            int64_t i = 0;
            for (;;) {
                int64_t r = (maxsplit >= 0 && count >= maxsplit) ? -1 : find_sub(d + i, n - i, sep, sn, false);
                if (np == cap) pb = realloc(pb, sizeof(int64_t) * 2 * (size_t)(cap *= 2));
                pb[2 * np] = i;
                pb[2 * np + 1] = r < 0 ? n : i + r;
                np++;
                if (r < 0) break;
                i += r + sn;
                count++;
            }
        } else {
            int64_t j = n;
            for (;;) {
                int64_t r = (maxsplit >= 0 && count >= maxsplit) ? -1 : find_sub(d, j, sep, sn, true);
                if (np == cap) pb = realloc(pb, sizeof(int64_t) * 2 * (size_t)(cap *= 2));
                pb[2 * np] = r < 0 ? 0 : r + sn;
                pb[2 * np + 1] = j;
                np++;
                if (r < 0) break;
                j = r;
                count++;
            }
        }
    } else if (!rev) {
        int64_t i = 0;
        for (;;) {
            while (i < n && space(d[i])) i++;
            if (i >= n) break;
            int64_t s = i, e;
            if (maxsplit >= 0 && count >= maxsplit) {
                e = n;
                while (e > s && space(d[e - 1])) e--;
                i = n;
            } else {
                while (i < n && !space(d[i])) i++;
                e = i;
            }
            if (np == cap) pb = realloc(pb, sizeof(int64_t) * 2 * (size_t)(cap *= 2));
            pb[2 * np] = s;
            pb[2 * np + 1] = e;
            np++;
            count++;
        }
    } else {
        int64_t j = n;
        for (;;) {
            while (j > 0 && space(d[j - 1])) j--;
            if (j <= 0) break;
            int64_t e = j, s;
            if (maxsplit >= 0 && count >= maxsplit) {
                s = 0;   /* the rest keeps its leading whitespace */
                j = 0;
            } else {
                while (j > 0 && !space(d[j - 1])) j--;
                s = j;
            }
            if (np == cap) pb = realloc(pb, sizeof(int64_t) * 2 * (size_t)(cap *= 2));
            pb[2 * np] = s;
            pb[2 * np + 1] = e;
            np++;
            count++;
        }
    }
    int rc = 0;
    for (int64_t k = 0; k < np && rc == 0; k++) {
        int64_t idx = rev ? np - 1 - k : k;
        rc = append_piece(vm, out, argv[0], pb[2 * idx], pb[2 * idx + 1]);
    }
    free(pb);
    free(sepcopy);
    vm_pop_root(vm);
    return rc < 0 ? val_null() : val_obj(out);
}

static Value o_splitlines(ARGS) {
    static const char *const names[] = {"self", "keepends"};
    Value a[2];
    if (native_parse_args(vm, "splitlines", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    int keep = 0;
    if (!val_is_null(a[1]) && (keep = vm_truthy(vm, a[1])) < 0) return val_null();
    ListObj *out = list_new(vm, 0);
    if (!out) return val_null();
    vm_push_root(vm, val_obj(out));
    const uint8_t *d;
    int64_t n;
    self_view(argv[0], &d, &n);
    int64_t i = 0;
    int rc = 0;
    while (i < n && rc == 0) {
        int64_t s = i;
        while (i < n && d[i] != '\n' && d[i] != '\r') i++;
        int64_t e = i;
        if (i < n) {
            i += (d[i] == '\r' && i + 1 < n && d[i + 1] == '\n') ? 2 : 1;
            if (keep) e = i;
        }
        rc = append_piece(vm, out, argv[0], s, e);
        self_view(argv[0], &d, &n);
    }
    vm_pop_root(vm);
    return rc < 0 ? val_null() : val_obj(out);
}

/* partition/rpartition (data: 0/1) */
static Value o_partition(ARGS) {
    bool rev = fn->data != NULL;
    if (native_check_args(vm, rev ? "rpartition" : "partition", argc, kw, 2, 2) < 0) return val_null();
    const uint8_t *d, *s;
    int64_t n, sn;
    if (bytes_view_arg(vm, argv[1], &s, &sn) < 0) return val_null();
    if (sn == 0) return vm_raise(vm, vm->e_ValueError, "empty separator");
    self_view(argv[0], &d, &n);
    int64_t r = find_sub(d, n, s, sn, rev);
    /* piece bounds; not found: (self, b"", b"") or, reversed, (b"", b"", self) */
    int64_t b[3][2];
    if (r < 0) {
        for (int k = 0; k < 3; k++) b[k][0] = b[k][1] = 0;
        b[rev ? 2 : 0][1] = n;
    } else {
        b[0][0] = 0, b[0][1] = r;
        b[1][0] = r, b[1][1] = r + sn;
        b[2][0] = r + sn, b[2][1] = n;
    }
    TupleObj *t = tuple_new(vm, 3);
    if (!t) return val_null();
    vm_push_root(vm, val_obj(t));
    for (int k = 0; k < 3; k++) {
        Value p;
        if (k == 1 && r >= 0 && !is_bytearray(argv[0]) && val_is_type(vm, argv[1], vm->t_bytes)) {
            p = argv[1];   /* CPython returns the separator object itself */
        } else if (k == 1 && r >= 0) {
            const uint8_t *s2;
            int64_t sn2;
            if (bytes_view_arg(vm, argv[1], &s2, &sn2) < 0) {
                vm_pop_root(vm);
                return val_null();
            }
            p = like(vm, argv[0], s2, sn2);
        } else {
            self_view(argv[0], &d, &n);
            p = like(vm, argv[0], d + b[k][0], b[k][1] - b[k][0]);
        }
        if (val_is_null(p)) {
            vm_pop_root(vm);
            return p;
        }
        t->items[k] = p;
    }
    vm_pop_root(vm);
    return val_obj(t);
}

static Value o_join(ARGS) {
    if (native_check_args(vm, "join", argc, kw, 2, 2) < 0) return val_null();
    ListObj *l = vm_list_from_iterable(vm, argv[1]);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    StrBuf sb;
    sb_init(&sb);
    for (int64_t i = 0; i < l->len; i++) {
        const uint8_t *x, *d;
        int64_t xn, n;
        if (!bytes_view(vm, l->items[i], &x, &xn)) {
            sb_free(&sb);
            vm_pop_root(vm);
            return vm_raise(vm, vm->e_TypeError, "sequence item %lld: expected a bytes-like object, %s found",
                            (long long)i, vm_type_name(vm, l->items[i]));
        }
        if (i) {
            self_view(argv[0], &d, &n);
            sb_add(&sb, (const char *)d, n);
        }
        sb_add(&sb, (const char *)x, xn);
    }
    vm_pop_root(vm);
    return like_buf(vm, argv[0], &sb);
}

/* ---- transformations ---------------------------------------------------------------------------- */

/* strip/lstrip/rstrip (data: 3 both, 1 left, 2 right) */
static Value o_strip(ARGS) {
    int which = (int)(intptr_t)fn->data;
    if (native_check_args(vm, which == 3 ? "strip" : which == 1 ? "lstrip" : "rstrip", argc, kw, 1, 2) < 0)
        return val_null();
    const uint8_t *chars = NULL, *d;
    int64_t cn = 0, n;
    if (argc == 2 && !val_is_none(argv[1]) && bytes_view_arg(vm, argv[1], &chars, &cn) < 0) return val_null();
    self_view(argv[0], &d, &n);
    int64_t s = 0, e = n;
#define STRIPPED(c) (chars ? (cn && memchr(chars, (c), (size_t)cn) != NULL) : space(c))
    if (which & 1)
        while (s < e && STRIPPED(d[s])) s++;
    if (which & 2)
        while (e > s && STRIPPED(d[e - 1])) e--;
#undef STRIPPED
    return like(vm, argv[0], d + s, e - s);
}

enum { CASE_UPPER, CASE_LOWER, CASE_SWAP, CASE_CAPITALIZE, CASE_TITLE };

static Value o_case(ARGS) {
    int kind = (int)(intptr_t)fn->data;
    const uint8_t *d;
    int64_t n;
    self_view(argv[0], &d, &n);
    uint8_t *t = malloc((size_t)n + 1);
    if (!t) return vm_no_memory(vm);
    bool prev_cased = false;
    for (int64_t i = 0; i < n; i++) {
        uint8_t c = d[i];
        switch (kind) {
        case CASE_UPPER: c = (uint8_t)toupper(c); break;
        case CASE_LOWER: c = (uint8_t)tolower(c); break;
        case CASE_SWAP: c = isupper(c) ? (uint8_t)tolower(c) : (uint8_t)toupper(c); break;
        case CASE_CAPITALIZE: c = i == 0 ? (uint8_t)toupper(c) : (uint8_t)tolower(c); break;
        default:
            c = prev_cased ? (uint8_t)tolower(c) : (uint8_t)toupper(c);
            prev_cased = isalpha(c) != 0;
            break;
        }
        if (c >= 0x80) c = d[i];   /* ASCII only */
        t[i] = c;
    }
    Value r = like(vm, argv[0], t, n);
    free(t);
    return r;
}

/* isalnum ... istitle (data: which) */
static Value o_is(ARGS) {
    int kind = (int)(intptr_t)fn->data;
    const uint8_t *d;
    int64_t n;
    self_view(argv[0], &d, &n);
    if (kind == 7) {   /* isascii: also true for empty */
        for (int64_t i = 0; i < n; i++)
            if (d[i] >= 0x80) return val_bool(false);
        return val_bool(true);
    }
    if (n == 0) return val_bool(false);
    bool cased = false, prev = false;
    for (int64_t i = 0; i < n; i++) {
        uint8_t c = d[i];
        switch (kind) {
        case 0: if (!isalnum(c)) return val_bool(false); break;
        case 1: if (!isalpha(c)) return val_bool(false); break;
        case 2: if (!isdigit(c)) return val_bool(false); break;
        case 3: if (isupper(c)) return val_bool(false); cased |= islower(c) != 0; break;
        case 4: if (islower(c)) return val_bool(false); cased |= isupper(c) != 0; break;
        case 5: if (!space(c)) return val_bool(false); break;
        case 6:
            if (isupper(c)) {
                if (prev) return val_bool(false);
                prev = cased = true;
            } else if (islower(c)) {
                if (!prev) return val_bool(false);
                prev = cased = true;
            } else {
                prev = false;
            }
            break;
        }
    }
    if (kind == 3 || kind == 4 || kind == 6) return val_bool(cased);
    return val_bool(true);
}

/* center/ljust/rjust (data: 0/1/2) */
static Value o_pad(ARGS) {
    int kind = (int)(intptr_t)fn->data;
    static const char *const names[] = {"center", "ljust", "rjust"};
    if (native_check_args(vm, names[kind], argc, kw, 2, 3) < 0) return val_null();
    int64_t width;
    if (vm_index(vm, argv[1], &width) < 0) return val_null();
    uint8_t fill = ' ';
    if (argc == 3) {
        const uint8_t *f;
        int64_t fnn;
        if (!bytes_view(vm, argv[2], &f, &fnn) || fnn != 1)
            return vm_raise(vm, vm->e_TypeError, "%s() argument 2 must be a byte string of length 1, not %s", names[kind],
                            vm_type_name(vm, argv[2]));
        fill = f[0];
    }
    const uint8_t *d;
    int64_t n;
    self_view(argv[0], &d, &n);
    if (width <= n) return like(vm, argv[0], d, n);
    int64_t padn = width - n, left = kind == 1 ? 0 : kind == 2 ? padn : padn / 2 + (padn & width & 1);
    StrBuf sb;
    sb_init(&sb);
    for (int64_t i = 0; i < left; i++) sb_addc(&sb, (char)fill);
    sb_add(&sb, (const char *)d, n);
    for (int64_t i = 0; i < padn - left; i++) sb_addc(&sb, (char)fill);
    return like_buf(vm, argv[0], &sb);
}

static Value o_zfill(ARGS) {
    if (native_check_args(vm, "zfill", argc, kw, 2, 2) < 0) return val_null();
    int64_t width;
    if (vm_index(vm, argv[1], &width) < 0) return val_null();
    const uint8_t *d;
    int64_t n;
    self_view(argv[0], &d, &n);
    if (width <= n) return like(vm, argv[0], d, n);
    StrBuf sb;
    sb_init(&sb);
    int64_t start = 0;
    if (n && (d[0] == '+' || d[0] == '-')) {
        sb_addc(&sb, (char)d[0]);
        start = 1;
    }
    for (int64_t i = 0; i < width - n; i++) sb_addc(&sb, '0');
    sb_add(&sb, (const char *)d + start, n - start);
    return like_buf(vm, argv[0], &sb);
}

static Value o_expandtabs(ARGS) {
    static const char *const names[] = {"self", "tabsize"};
    Value a[2];
    if (native_parse_args(vm, "expandtabs", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    int64_t tab = 8;
    if (!val_is_null(a[1]) && vm_index(vm, a[1], &tab) < 0) return val_null();
    const uint8_t *d;
    int64_t n;
    self_view(argv[0], &d, &n);
    StrBuf sb;
    sb_init(&sb);
    int64_t col = 0;
    for (int64_t i = 0; i < n; i++) {
        if (d[i] == '\t') {
            if (tab > 0) {
                int64_t k = tab - col % tab;
                for (int64_t j = 0; j < k; j++) sb_addc(&sb, ' ');
                col += k;
            }
        } else {
            sb_addc(&sb, (char)d[i]);
            col = (d[i] == '\n' || d[i] == '\r') ? 0 : col + 1;
        }
    }
    return like_buf(vm, argv[0], &sb);
}

static Value o_replace(ARGS) {
    if (native_check_args(vm, "replace", argc, kw, 3, 4) < 0) return val_null();
    const uint8_t *old, *new_, *d;
    int64_t on, nn, n, count = -1;
    if (argc == 4 && vm_index(vm, argv[3], &count) < 0) return val_null();
    if (bytes_view_arg(vm, argv[1], &old, &on) < 0 || bytes_view_arg(vm, argv[2], &new_, &nn) < 0) return val_null();
    self_view(argv[0], &d, &n);
    StrBuf sb;
    sb_init(&sb);
    int64_t i = 0, done = 0;
    while (i <= n && (count < 0 || done < count)) {
        int64_t r = on ? find_sub(d + i, n - i, old, on, false) : 0;
        if (r < 0) break;
        if (!on && i == n) {
            sb_add(&sb, (const char *)new_, nn);
            i++;
            done++;
            break;
        }
        sb_add(&sb, (const char *)d + i, r);
        sb_add(&sb, (const char *)new_, nn);
        done++;
        if (on) {
            i += r + on;
        } else {
            sb_addc(&sb, (char)d[i]);
            i++;
        }
    }
    if (i < n) sb_add(&sb, (const char *)d + i, n - i);
    return like_buf(vm, argv[0], &sb);
}

/* removeprefix/removesuffix (data: 0/1) */
static Value o_removeaffix(ARGS) {
    bool suffix = fn->data != NULL;
    if (native_check_args(vm, suffix ? "removesuffix" : "removeprefix", argc, kw, 2, 2) < 0) return val_null();
    const uint8_t *p, *d;
    int64_t pn, n;
    if (bytes_view_arg(vm, argv[1], &p, &pn) < 0) return val_null();
    self_view(argv[0], &d, &n);
    if (pn && pn <= n && memcmp(d + (suffix ? n - pn : 0), p, (size_t)pn) == 0)
        return like(vm, argv[0], d + (suffix ? 0 : pn), n - pn);
    if (!is_bytearray(argv[0]) && argv[0].as.o->type == vm->t_bytes) return argv[0];
    return like(vm, argv[0], d, n);
}

static Value o_translate(ARGS) {
    static const char *const names[] = {"self", "table", "delete"};
    Value a[3];
    if (native_parse_args(vm, "translate", argc, argv, kw, 3, 2, names, 3, a) < 0) return val_null();
    const uint8_t *table = NULL, *del = NULL, *d;
    int64_t tn = 0, dn = 0, n;
    if (!val_is_none(a[1])) {
        if (bytes_view_arg(vm, a[1], &table, &tn) < 0) return val_null();
        if (tn != 256) return vm_raise(vm, vm->e_ValueError, "translation table must be 256 characters long");
    }
    if (!val_is_null(a[2]) && bytes_view_arg(vm, a[2], &del, &dn) < 0) return val_null();
    uint8_t map[256];
    for (int i = 0; i < 256; i++) map[i] = table ? table[i] : (uint8_t)i;
    bool drop[256] = {false};
    for (int64_t i = 0; i < dn; i++) drop[del[i]] = true;
    self_view(argv[0], &d, &n);
    StrBuf sb;
    sb_init(&sb);
    for (int64_t i = 0; i < n; i++)
        if (!drop[d[i]]) sb_addc(&sb, (char)map[d[i]]);
    return like_buf(vm, argv[0], &sb);
}

/* bytes.maketrans(from, to) */
static Value o_maketrans(ARGS) {
    if (native_check_args(vm, "maketrans", argc, kw, 2, 2) < 0) return val_null();
    const uint8_t *f, *t;
    int64_t fnn, tn;
    if (bytes_view_arg(vm, argv[0], &f, &fnn) < 0 || bytes_view_arg(vm, argv[1], &t, &tn) < 0) return val_null();
    if (fnn != tn) return vm_raise(vm, vm->e_ValueError, "maketrans arguments must have same length");
    uint8_t map[256];
    for (int i = 0; i < 256; i++) map[i] = (uint8_t)i;
    for (int64_t i = 0; i < fnn; i++) map[f[i]] = t[i];
    BytesObj *b = bytes_new(vm, map, 256);
    return b ? val_obj(b) : val_null();
}

/* hex([sep[, bytes_per_sep]]) */
static Value o_hex(ARGS) {
    static const char *const names[] = {"self", "sep", "bytes_per_sep"};
    Value a[3];
    if (native_parse_args(vm, "hex", argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    char sep = 0;
    int64_t per = 1;
    if (!val_is_null(a[1])) {
        const uint8_t *s;
        int64_t sn;
        if (val_is_str(vm, a[1])) {
            if (AS_STR(a[1])->len != 1 || (unsigned char)AS_STR(a[1])->data[0] >= 0x80)
                return vm_raise(vm, vm->e_ValueError, "sep must be ASCII.");
            sep = AS_STR(a[1])->data[0];
        } else if (bytes_view(vm, a[1], &s, &sn)) {
            if (sn != 1) return vm_raise(vm, vm->e_ValueError, "sep must be length 1.");
            sep = (char)s[0];
        } else {
            return vm_raise(vm, vm->e_TypeError, "sep must be str or bytes.");
        }
    }
    if (!val_is_null(a[2]) && vm_index(vm, a[2], &per) < 0) return val_null();
    const uint8_t *d;
    int64_t n;
    self_view(argv[0], &d, &n);
    StrBuf sb;
    sb_init(&sb);
    int64_t group = per < 0 ? -per : per;
    for (int64_t i = 0; i < n; i++) {
        if (sep && group && i) {
            /* positive: groups counted from the right; negative: from the left */
            bool brk = per > 0 ? (n - i) % group == 0 : i % group == 0;
            if (brk) sb_addc(&sb, sep);
        }
        sb_printf(&sb, "%02x", d[i]);
    }
    StrObj *s = sb_finish(vm, &sb);
    return s ? val_obj(s) : val_null();
}

/* bytes.fromhex / bytearray.fromhex (class methods) */
static Value o_fromhex(ARGS) {
    if (native_check_args(vm, "fromhex", argc, kw, 2, 2) < 0) return val_null();
    if (!val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "fromhex() argument must be str, not %s", vm_type_name(vm, argv[1]));
    StrObj *s = AS_STR(argv[1]);
    StrBuf sb;
    sb_init(&sb);
    for (int64_t i = 0; i < s->len;) {
        unsigned char c = (unsigned char)s->data[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
            i++;
            continue;
        }
        if (i + 1 >= s->len || !isxdigit(c) || !isxdigit((unsigned char)s->data[i + 1])) {
            sb_free(&sb);
            int64_t pos = isxdigit(c) ? i + 1 : i;
            return vm_raise(vm, vm->e_ValueError, "non-hexadecimal number found in fromhex() arg at position %lld",
                            (long long)utf8_count(s->data, pos));
        }
        char hx[3] = {(char)c, s->data[i + 1], 0};
        sb_addc(&sb, (char)strtol(hx, NULL, 16));
        i += 2;
    }
    TypeObj *cls = AS_TYPE(argv[0]);
    Value r;
    if (type_is_subtype(cls, vm->t_bytearray)) r = bytearray_new(vm, vm->t_bytearray, (const uint8_t *)(sb.data ? sb.data : ""), sb.len);
    else {
        BytesObj *b = bytes_new(vm, (const uint8_t *)(sb.data ? sb.data : ""), sb.len);
        r = b ? val_obj(b) : val_null();
    }
    sb_free(&sb);
    if (val_is_null(r) || cls == vm->t_bytes || cls == vm->t_bytearray) return r;
    return vm_call1(vm, argv[0], r);
}

/* ---- %-formatting ----------------------------------------------------------------------------------- */

/* bytes % args (PEP 461): %s/%b take bytes-like or __bytes__, %r/%a ascii(), numbers as str's */
static Value o_mod(ARGS) {
    const uint8_t *d;
    int64_t n;
    Value args = argv[1];
    Value *items = &argv[1];
    int64_t nargs = 1, ai = 0;
    bool is_map = false;
    if (val_is_type(vm, args, vm->t_tuple)) {
        items = AS_TUPLE(args)->items;
        nargs = AS_TUPLE(args)->len;
    } else if (val_is_obj(args) && !bytes_view(vm, args, &d, &n) && !val_is_str(vm, args) &&
               !val_is_null(type_special(vm, vm_type_of(vm, args), SP_GETITEM))) {
        is_map = true;
    }
    StrBuf sb;
    sb_init(&sb);
    self_view(argv[0], &d, &n);
    uint8_t *fmt = malloc((size_t)n + 1);
    if (!fmt) return vm_no_memory(vm);
    memcpy(fmt, d, (size_t)n);
    for (int64_t i = 0; i < n; i++) {
        if (fmt[i] != '%') {
            sb_addc(&sb, (char)fmt[i]);
            continue;
        }
        int64_t start = i++;
        if (i >= n) goto incomplete;
        Value arg = val_null();
        if (fmt[i] == '(') {
            int64_t k = ++i, depth = 1;
            while (i < n && depth) {
                if (fmt[i] == '(') depth++;
                else if (fmt[i] == ')') depth--;
                if (depth) i++;
            }
            if (i >= n) {
                vm_raise(vm, vm->e_ValueError, "incomplete format key");
                goto fail;
            }
            if (!is_map) {
                vm_raise(vm, vm->e_TypeError, "format requires a mapping");
                goto fail;
            }
            BytesObj *key = bytes_new(vm, fmt + k, i - k);
            if (!key) goto fail;
            arg = vm_getitem(vm, args, val_obj(key));
            if (val_is_null(arg)) goto fail;
            i++;
        }
        /* flags, width, precision: passed through to str's formatter */
        char spec[64];
        int sl = 0;
        spec[sl++] = '%';
        while (i < n && strchr("-+ #0", fmt[i]) && sl < 60) spec[sl++] = (char)fmt[i++];
        while (i < n && (isdigit(fmt[i]) || fmt[i] == '.' || fmt[i] == '*') && sl < 60) {
            if (fmt[i] == '*') {
                if (ai >= nargs) goto notenough;
                int64_t w;
                if (vm_index(vm, items[ai++], &w) < 0) goto fail;
                sl += snprintf(spec + sl, sizeof spec - (size_t)sl, "%lld", (long long)w);
                i++;
                continue;
            }
            spec[sl++] = (char)fmt[i++];
        }
        while (i < n && strchr("hlL", fmt[i])) i++;
        if (i >= n) goto incomplete;
        spec[sl] = 0;
        char conv = (char)fmt[i];
        if (conv == '%') {
            sb_addc(&sb, '%');
            continue;
        }
        if (val_is_null(arg)) {
            if (is_map) arg = args;
            else if (ai < nargs) arg = items[ai++];
            else goto notenough;
        }
        if (conv == 's' || conv == 'b' || conv == 'r' || conv == 'a' || conv == 'c') {
            const uint8_t *x;
            int64_t xn;
            Value hold = val_null();
            uint8_t one;
            if (conv == 'c') {
                if (bigint_check(vm, arg)) {
                    int64_t v;
                    if (vm_index(vm, arg, &v) < 0) goto fail;
                    if (v < 0 || v > 255) {
                        vm_raise(vm, vm->e_OverflowError, "%%c arg not in range(256)");
                        goto fail;
                    }
                    one = (uint8_t)v;
                    x = &one;
                    xn = 1;
                } else if (!bytes_view(vm, arg, &x, &xn) || xn != 1) {
                    vm_raise(vm, vm->e_TypeError, "%%c requires an integer in range(256) or a single byte");
                    goto fail;
                }
            } else if (conv == 'r' || conv == 'a') {
                hold = vm_ascii(vm, arg);
                if (val_is_null(hold)) goto fail;
                x = (const uint8_t *)AS_STR(hold)->data;
                xn = AS_STR(hold)->len;
            } else if (!bytes_view(vm, arg, &x, &xn)) {
                Value conv_b = type_lookup(vm, vm_type_of(vm, arg), vm_intern_str(vm, "__bytes__"));
                if (val_is_null(conv_b)) {
                    vm_raise(vm, vm->e_TypeError,
                             "%%b requires a bytes-like object, or an object that implements __bytes__, not '%s'",
                             vm_type_name(vm, arg));
                    goto fail;
                }
                hold = vm_call_method(vm, arg, "__bytes__", 0, NULL);
                if (val_is_null(hold)) goto fail;
                if (!bytes_view(vm, hold, &x, &xn)) {
                    vm_raise(vm, vm->e_TypeError, "__bytes__ returned non-bytes (type %s)", vm_type_name(vm, hold));
                    goto fail;
                }
            }
            /* width/precision/'-' on the byte string */
            int64_t width = 0, prec = -1;
            bool left = false;
            const char *p = spec + 1;
            while (*p && strchr("-+ #0", *p)) left |= *p++ == '-';
            while (isdigit((unsigned char)*p)) width = width * 10 + (*p++ - '0');
            if (*p == '.') {
                p++;
                prec = 0;
                while (isdigit((unsigned char)*p)) prec = prec * 10 + (*p++ - '0');
            }
            if (prec >= 0 && prec < xn) xn = prec;
            if (!left)
                for (int64_t k = xn; k < width; k++) sb_addc(&sb, ' ');
            sb_add(&sb, (const char *)x, xn);
            if (left)
                for (int64_t k = xn; k < width; k++) sb_addc(&sb, ' ');
            continue;
        }
        if (!strchr("diouxXeEfFgG", conv)) {
            vm_raise(vm, vm->e_ValueError, "unsupported format character '%c' (0x%x) at index %lld", conv, conv,
                     (long long)i);
            goto fail;
        }
        /* numbers: str's % formatting of this one conversion */
        spec[sl++] = conv;
        spec[sl] = 0;
        StrObj *fs = str_from_c(vm, spec);
        if (!fs) goto fail;
        vm_push_root(vm, val_obj(fs));
        Value r = vm_binary_op(vm, BINOP_REMAINDER, val_obj(fs), arg);
        vm_pop_root(vm);
        if (val_is_null(r)) goto fail;
        sb_add_str(&sb, AS_STR(r));
        (void)start;
    }
    if (!is_map && ai < nargs) {
        vm_raise(vm, vm->e_TypeError, "not all arguments converted during bytes formatting");
        goto fail;
    }
    free(fmt);
    return like_buf(vm, argv[0], &sb);
incomplete:
    vm_raise(vm, vm->e_ValueError, "incomplete format");
    goto fail;
notenough:
    vm_raise(vm, vm->e_TypeError, "not enough arguments for format string");
fail:
    free(fmt);
    sb_free(&sb);
    return val_null();
}

/* ---- registration ------------------------------------------------------------------------------------ */

#define CMP(n, op) {n, o_cmp, NATIVEF_METHOD | ARITY_O, (void *)(intptr_t)(op)}
int bytes_ops_register(VM *vm, TypeObj *t) {
    static const MethodDef m[] = {
        {"__len__", o_len, NATIVEF_METHOD | ARITY_NOARGS}, {"__getitem__", o_getitem, NATIVEF_METHOD | ARITY_O},
        {"__contains__", o_contains, NATIVEF_METHOD | ARITY_O},
        CMP("__eq__", CMP_EQ), CMP("__ne__", CMP_NE), CMP("__lt__", CMP_LT), CMP("__le__", CMP_LE),
        CMP("__gt__", CMP_GT), CMP("__ge__", CMP_GE),
        {"__add__", o_add, NATIVEF_METHOD | ARITY_O}, {"__mul__", o_mul, NATIVEF_METHOD | ARITY_O},
        {"__rmul__", o_mul, NATIVEF_METHOD | ARITY_O}, {"__mod__", o_mod, NATIVEF_METHOD | ARITY_O},
        {"find", o_find, NATIVEF_METHOD, (void *)0}, {"rfind", o_find, NATIVEF_METHOD, (void *)1},
        {"index", o_find, NATIVEF_METHOD, (void *)2}, {"rindex", o_find, NATIVEF_METHOD, (void *)3},
        {"count", o_find, NATIVEF_METHOD, (void *)4},
        {"startswith", o_affix, NATIVEF_METHOD, NULL}, {"endswith", o_affix, NATIVEF_METHOD, (void *)1},
        {"split", o_split, NATIVEF_METHOD, NULL}, {"rsplit", o_split, NATIVEF_METHOD, (void *)1},
        {"splitlines", o_splitlines, NATIVEF_METHOD}, {"partition", o_partition, NATIVEF_METHOD, NULL},
        {"rpartition", o_partition, NATIVEF_METHOD, (void *)1}, {"join", o_join, NATIVEF_METHOD},
        {"strip", o_strip, NATIVEF_METHOD, (void *)3}, {"lstrip", o_strip, NATIVEF_METHOD, (void *)1},
        {"rstrip", o_strip, NATIVEF_METHOD, (void *)2},
        {"upper", o_case, NATIVEF_METHOD | ARITY_NOARGS, (void *)CASE_UPPER},
        {"lower", o_case, NATIVEF_METHOD | ARITY_NOARGS, (void *)CASE_LOWER},
        {"swapcase", o_case, NATIVEF_METHOD | ARITY_NOARGS, (void *)CASE_SWAP},
        {"capitalize", o_case, NATIVEF_METHOD | ARITY_NOARGS, (void *)CASE_CAPITALIZE},
        {"title", o_case, NATIVEF_METHOD | ARITY_NOARGS, (void *)CASE_TITLE},
        {"isalnum", o_is, NATIVEF_METHOD | ARITY_NOARGS, (void *)0}, {"isalpha", o_is, NATIVEF_METHOD | ARITY_NOARGS, (void *)1},
        {"isdigit", o_is, NATIVEF_METHOD | ARITY_NOARGS, (void *)2}, {"islower", o_is, NATIVEF_METHOD | ARITY_NOARGS, (void *)3},
        {"isupper", o_is, NATIVEF_METHOD | ARITY_NOARGS, (void *)4}, {"isspace", o_is, NATIVEF_METHOD | ARITY_NOARGS, (void *)5},
        {"istitle", o_is, NATIVEF_METHOD | ARITY_NOARGS, (void *)6}, {"isascii", o_is, NATIVEF_METHOD | ARITY_NOARGS, (void *)7},
        {"center", o_pad, NATIVEF_METHOD, (void *)0}, {"ljust", o_pad, NATIVEF_METHOD, (void *)1},
        {"rjust", o_pad, NATIVEF_METHOD, (void *)2}, {"zfill", o_zfill, NATIVEF_METHOD},
        {"expandtabs", o_expandtabs, NATIVEF_METHOD}, {"replace", o_replace, NATIVEF_METHOD},
        {"removeprefix", o_removeaffix, NATIVEF_METHOD, NULL}, {"removesuffix", o_removeaffix, NATIVEF_METHOD, (void *)1},
        {"translate", o_translate, NATIVEF_METHOD}, {"maketrans", o_maketrans, NATIVEF_STATIC},
        {"hex", o_hex, NATIVEF_METHOD}, {"fromhex", o_fromhex, NATIVEF_CLASSMETHOD}, {NULL}};
    return type_add_methods(vm, t, m);
}
#undef CMP
