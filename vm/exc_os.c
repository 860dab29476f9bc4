/* vm/exc_os.c — the exceptions whose constructors and messages CPython writes in C beyond
 * BaseException's: OSError (errno → subclass mapping in __new__, errno / strerror / filename /
 * filename2, "[Errno 2] No such file or directory: 'x'"), BlockingIOError.characters_written,
 * and the UnicodeDecodeError / UnicodeEncodeError / UnicodeTranslateError attributes and
 * messages.  Their attributes live in the instance dict, as ImportError's do (vm/exc.c), read
 * through getset descriptors that give None (or CPython's AttributeError) when unset. */
#include "vm/exc_os.h"

#include <errno.h>
#include <string.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define EXC(v) ((ExceptionObj *)(v).as.o)

static int attr_set(VM *vm, Value self, const char *name, Value v) {
    ExceptionObj *e = EXC(self);
    if (!e->dict) {
        vm_push_root(vm, v);
        e->dict = dict_new(vm);
        vm_pop_root(vm);
        if (!e->dict) return -1;
    }
    if (val_is_null(v)) {
        (void)dict_del_str(vm, e->dict, vm_intern_str(vm, name));
        return 0;
    }
    return dict_set_c(vm, e->dict, name, v);
}

static Value attr_get(VM *vm, Value self, const char *name) {
    DictObj *d = EXC(self)->dict;
    return d ? dict_get_c(vm, d, name) : val_null();
}

static Value get_or_none(VM *vm, Value s, void *c) {
    Value v = attr_get(vm, s, (const char *)c);
    return val_is_null(v) ? val_none() : v;
}
static int set_attr(VM *vm, Value s, Value v, void *c) {
    return attr_set(vm, s, (const char *)c, val_is_null(v) ? val_none() : v);
}

/* ---- OSError ------------------------------------------------------------------------------ */

static TypeObj *errno_subclass(VM *vm, int64_t e) {
    switch (e) {
    case EAGAIN: case EALREADY: case EINPROGRESS:
#if EWOULDBLOCK != EAGAIN
    case EWOULDBLOCK:
#endif
        return vm->e_BlockingIOError;
    case ECHILD: return vm->e_ChildProcessError;
    case EPIPE: case ESHUTDOWN: return vm->e_BrokenPipeError;
    case ECONNABORTED: return vm->e_ConnectionAbortedError;
    case ECONNREFUSED: return vm->e_ConnectionRefusedError;
    case ECONNRESET: return vm->e_ConnectionResetError;
    case EEXIST: return vm->e_FileExistsError;
    case ENOENT: return vm->e_FileNotFoundError;
    case EISDIR: return vm->e_IsADirectoryError;
    case ENOTDIR: return vm->e_NotADirectoryError;
    case EINTR: return vm->e_InterruptedError;
    case EACCES: case EPERM: return vm->e_PermissionError;
    case ESRCH: return vm->e_ProcessLookupError;
    case ETIMEDOUT: return vm->e_TimeoutError;
    default: return NULL;
    }
}

/* OSError(errno, strerror[, filename[, winerror[, filename2]]]): OSError itself becomes the
 * subclass its errno maps to. */
static Value oserror_new(ARGS) {
    if (argc < 1 || !vm_isinstance_type(vm, argv[0], vm->t_type))
        return vm_raise(vm, vm->e_TypeError, "OSError.__new__(X): X is not a type object");
    TypeObj *t = AS_TYPE(argv[0]);
    int n = argc - 1;
    if (t == vm->e_OSError && n >= 2 && n <= 5 && val_is_intlike(argv[1])) {
        TypeObj *sub = errno_subclass(vm, val_as_intlike(argv[1]));
        if (sub) t = sub;
    }
    Value e = t->alloc(vm, t);
    if (val_is_null(e)) return e;
    vm_push_root(vm, e);
    TupleObj *args = tuple_from_array(vm, argv + 1, n);
    vm_pop_root(vm);
    if (!args) return val_null();
    EXC(e)->args = args;
    return e;
}

static Value oserror_init(ARGS) {
    if (kw && kw->len)
        return vm_raise(vm, vm->e_TypeError, "%s() takes no keyword arguments", vm_type_name(vm, argv[0]));
    Value self = argv[0];
    int n = argc - 1;
    Value *a = argv + 1;
    TupleObj *args = tuple_from_array(vm, a, n);
    if (!args) return val_null();
    EXC(self)->args = args;
    if (n >= 2 && n <= 5) {
        if (attr_set(vm, self, "errno", a[0]) < 0 || attr_set(vm, self, "strerror", a[1]) < 0) return val_null();
        if (n >= 3 && !val_is_none(a[2])) {
            if (vm_isinstance_type(vm, self, vm->e_BlockingIOError) && val_is_intlike(a[2])) {
                if (attr_set(vm, self, "characters_written", a[2]) < 0) return val_null();
            } else {
                if (attr_set(vm, self, "filename", a[2]) < 0) return val_null();
                if (n >= 5 && !val_is_none(a[4]) && attr_set(vm, self, "filename2", a[4]) < 0) return val_null();
                /* with a filename, args keeps only (errno, strerror) */
                TupleObj *two = tuple_from_array(vm, a, 2);
                if (!two) return val_null();
                EXC(self)->args = two;
            }
        }
    }
    return val_none();
}

static Value oserror_str(ARGS) {
    Value self = argv[0];
    Value en = attr_get(vm, self, "errno"), se = attr_get(vm, self, "strerror");
    Value f1 = attr_get(vm, self, "filename"), f2 = attr_get(vm, self, "filename2");
    bool has_en = !val_is_null(en) && !val_is_none(en), has_se = !val_is_null(se) && !val_is_none(se);
    if (!val_is_null(f1) && !val_is_none(f1)) {
        Value parts[4] = {en, se, f1, f2};
        Value strs[4];
        int np = !val_is_null(f2) && !val_is_none(f2) ? 4 : 3;
        for (int i = 0; i < np; i++) {
            strs[i] = i < 2 ? vm_str(vm, val_is_null(parts[i]) ? val_none() : parts[i]) : vm_repr(vm, parts[i]);
            if (val_is_null(strs[i])) {
                vm_pop_roots(vm, i);
                return val_null();
            }
            vm_push_root(vm, strs[i]);
        }
        StrObj *s = np == 4 ? str_printf(vm, "[Errno %s] %s: %s -> %s", AS_STR(strs[0])->data, AS_STR(strs[1])->data,
                                         AS_STR(strs[2])->data, AS_STR(strs[3])->data)
                            : str_printf(vm, "[Errno %s] %s: %s", AS_STR(strs[0])->data, AS_STR(strs[1])->data,
                                         AS_STR(strs[2])->data);
        vm_pop_roots(vm, np);
        return s ? val_obj(s) : val_null();
    }
    if (has_en && has_se) {
        Value a = vm_str(vm, en);
        if (val_is_null(a)) return a;
        vm_push_root(vm, a);
        Value b = vm_str(vm, se);
        if (val_is_null(b)) {
            vm_pop_root(vm);
            return b;
        }
        vm_push_root(vm, b);
        StrObj *s = str_printf(vm, "[Errno %s] %s", AS_STR(a)->data, AS_STR(b)->data);
        vm_pop_roots(vm, 2);
        return s ? val_obj(s) : val_null();
    }
    /* BaseException.__str__ */
    TupleObj *args = EXC(self)->args;
    if (args->len == 0) return val_obj(vm->empty_str);
    if (args->len == 1) return vm_str(vm, args->items[0]);
    return vm_str(vm, val_obj(args));
}

/* (type, args [+ filename...], dict) so pickling keeps the filename */
static Value oserror_reduce(ARGS) {
    Value self = argv[0];
    TupleObj *args = EXC(self)->args;
    Value f1 = attr_get(vm, self, "filename"), f2 = attr_get(vm, self, "filename2");
    vm_push_root(vm, val_obj(args));
    if (args->len == 2 && !val_is_null(f1) && !val_is_none(f1)) {
        bool two = !val_is_null(f2) && !val_is_none(f2);
        TupleObj *na = tuple_new(vm, two ? 5 : 3);
        if (!na) {
            vm_pop_root(vm);
            return val_null();
        }
        na->items[0] = args->items[0];
        na->items[1] = args->items[1];
        na->items[2] = f1;
        if (two) {
            na->items[3] = val_none();
            na->items[4] = f2;
        }
        vm_pop_root(vm);
        args = na;
        vm_push_root(vm, val_obj(args));
    }
    Value d = EXC(self)->dict ? val_obj(EXC(self)->dict) : val_none();
    TupleObj *r = tuple_pack(vm, 3, val_obj(self.as.o->type), val_obj(args), d);
    vm_pop_root(vm);
    return r ? val_obj(r) : val_null();
}

static Value get_chars_written(VM *vm, Value s, void *c) {
    Value v = attr_get(vm, s, "characters_written");
    if (val_is_null(v)) return vm_raise(vm, vm->e_AttributeError, "characters_written");
    return v;
}
static int set_chars_written(VM *vm, Value s, Value v, void *c) {
    if (val_is_null(v) && val_is_null(attr_get(vm, s, "characters_written"))) {
        vm_raise(vm, vm->e_AttributeError, "characters_written");
        return -1;
    }
    if (!val_is_null(v)) {
        int64_t n;
        if (vm_index(vm, v, &n) < 0) return -1;
        v = val_int(n);
    }
    return attr_set(vm, s, "characters_written", v);
}

Value vm_raise_oserror(VM *vm, int err, Value filename, Value filename2) {
    StrObj *msg = str_from_c(vm, strerror(err));
    if (!msg) return val_null();
    vm_push_root(vm, val_obj(msg));
    Value args[5] = {val_int(err), val_obj(msg), filename, val_none(), filename2};
    int n = !val_is_null(filename2) ? 5 : !val_is_null(filename) ? 3 : 2;
    TypeObj *t = errno_subclass(vm, err);
    if (!t) t = vm->e_OSError;
    Value e = type_call(vm, t, n, args, NULL);
    vm_pop_root(vm);
    if (val_is_null(e)) return e;
    return vm_raise_value(vm, e);
}

/* ---- UnicodeError subclasses ------------------------------------------------------------- */

/* UnicodeDecodeError(encoding, object, start, end, reason) and the Encode twin; Translate
 * has no encoding. */
static Value unicode_error_init(ARGS) {
    Value self = argv[0];
    bool translate = vm_isinstance_type(vm, self, vm->e_UnicodeTranslateError);
    bool decode = vm_isinstance_type(vm, self, vm->e_UnicodeDecodeError);
    int want = translate ? 4 : 5;
    TupleObj *args = tuple_from_array(vm, argv + 1, argc - 1);
    if (!args) return val_null();
    EXC(self)->args = args;
    if (kw && kw->len)
        return vm_raise(vm, vm->e_TypeError, "%s() takes no keyword arguments", vm_type_name(vm, self));
    if (argc - 1 != want)
        return vm_raise(vm, vm->e_TypeError, "function takes exactly %d arguments (%d given)", want, argc - 1);
    Value *a = argv + 1;
    int k = 0;
    if (!translate) {
        if (!val_is_str(vm, a[0]))
            return vm_raise(vm, vm->e_TypeError, "argument 1 must be str, not %s", vm_type_name(vm, a[0]));
        k = 1;
    }
    Value obj = a[k];
    if (decode) {
        if (!val_is_type(vm, obj, vm->t_bytes)) {
            /* a bytes-like object is copied to bytes, as CPython does */
            Value b = vm_call1(vm, val_obj(vm->t_bytes), obj);
            if (val_is_null(b)) return b;
            obj = b;
        }
    } else if (!val_is_str(vm, obj)) {
        return vm_raise(vm, vm->e_TypeError, "argument %d must be str, not %s", k + 1, vm_type_name(vm, obj));
    }
    if (!val_is_intlike(a[k + 1]) || !val_is_intlike(a[k + 2]))
        return vm_raise(vm, vm->e_TypeError, "'%s' object cannot be interpreted as an integer",
                        vm_type_name(vm, val_is_intlike(a[k + 1]) ? a[k + 2] : a[k + 1]));
    if (!val_is_str(vm, a[k + 3]))
        return vm_raise(vm, vm->e_TypeError, "argument %d must be str, not %s", k + 4, vm_type_name(vm, a[k + 3]));
    vm_push_root(vm, obj);
    int rc = (!translate && attr_set(vm, self, "encoding", a[0]) < 0) || attr_set(vm, self, "object", obj) < 0 ||
             attr_set(vm, self, "start", a[k + 1]) < 0 || attr_set(vm, self, "end", a[k + 2]) < 0 ||
             attr_set(vm, self, "reason", a[k + 3]) < 0;
    vm_pop_root(vm);
    return rc ? val_null() : val_none();
}

static Value unicode_error_str(ARGS) {
    Value self = argv[0];
    Value enc = attr_get(vm, self, "encoding"), obj = attr_get(vm, self, "object");
    Value st = attr_get(vm, self, "start"), en = attr_get(vm, self, "end"), rs = attr_get(vm, self, "reason");
    if (val_is_null(obj) || !val_is_intlike(st) || !val_is_intlike(en) || !val_is_str(vm, rs)) {
        TupleObj *args = EXC(self)->args;
        if (args->len == 0) return val_obj(vm->empty_str);
        return vm_str(vm, args->len == 1 ? args->items[0] : val_obj(args));
    }
    int64_t start = val_as_intlike(st), end = val_as_intlike(en);
    const char *reason = AS_STR(rs)->data;
    const char *encname = val_is_str(vm, enc) ? AS_STR(enc)->data : "";
    StrObj *s;
    if (vm_isinstance_type(vm, self, vm->e_UnicodeDecodeError)) {
        BytesObj *b = (BytesObj *)obj.as.o;
        if (start >= 0 && start < b->len && end == start + 1)
            s = str_printf(vm, "'%s' codec can't decode byte 0x%02x in position %lld: %s", encname, b->data[start],
                           (long long)start, reason);
        else
            s = str_printf(vm, "'%s' codec can't decode bytes in position %lld-%lld: %s", encname, (long long)start,
                           (long long)end - 1, reason);
    } else {
        bool translate = vm_isinstance_type(vm, self, vm->e_UnicodeTranslateError);
        StrObj *o = AS_STR(obj);
        char prefix[64];
        if (translate) snprintf(prefix, sizeof prefix, "can't translate");
        else snprintf(prefix, sizeof prefix, "'%s' codec can't encode", encname);
        if (start >= 0 && start < o->ncp && end == start + 1) {
            int64_t pos = str_byte_offset(o, start);
            uint32_t cp = utf8_decode(o->data, o->len, &pos);
            const char *fmt = cp <= 0xff ? "%s character '\\x%02x' in position %lld: %s"
                              : cp <= 0xffff ? "%s character '\\u%04x' in position %lld: %s"
                                             : "%s character '\\U%08x' in position %lld: %s";
            s = str_printf(vm, fmt, prefix, cp, (long long)start, reason);
        } else {
            s = str_printf(vm, "%s characters in position %lld-%lld: %s", prefix, (long long)start,
                           (long long)end - 1, reason);
        }
    }
    return s ? val_obj(s) : val_null();
}

static Value get_index_attr(VM *vm, Value s, void *c) { return get_or_none(vm, s, c); }
static int set_index_attr(VM *vm, Value s, Value v, void *c) {
    if (val_is_null(v)) return attr_set(vm, s, (const char *)c, val_none());
    int64_t n;
    if (vm_index(vm, v, &n) < 0) return -1;
    return attr_set(vm, s, (const char *)c, val_int(n));
}

Value vm_raise_unicode_error(VM *vm, TypeObj *type, const char *encoding, Value object, int64_t start, int64_t end,
                             const char *reason) {
    vm_push_root(vm, object);
    StrObj *r = str_from_c(vm, reason);
    if (!r) goto fail;
    vm_push_root(vm, val_obj(r));
    Value e;
    if (type == vm->e_UnicodeTranslateError) {
        Value args[4] = {object, val_int(start), val_int(end), val_obj(r)};
        e = type_call(vm, type, 4, args, NULL);
    } else {
        StrObj *en = str_from_c(vm, encoding);
        if (!en) {
            vm_pop_root(vm);
            goto fail;
        }
        vm_push_root(vm, val_obj(en));
        Value args[5] = {val_obj(en), object, val_int(start), val_int(end), val_obj(r)};
        e = type_call(vm, type, 5, args, NULL);
        vm_pop_root(vm);
    }
    vm_pop_roots(vm, 2);
    if (val_is_null(e)) return e;
    return vm_raise_value(vm, e);
fail:
    vm_pop_root(vm);
    return val_null();
}

void exc_os_init(VM *vm) {
    static const MethodDef os_methods[] = {
        {"__new__", oserror_new, NATIVEF_STATIC}, {"__init__", oserror_init, NATIVEF_METHOD},
        {"__str__", oserror_str, NATIVEF_METHOD | ARITY_NOARGS},
        {"__reduce__", oserror_reduce, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
    static const GetSetDef os_getsets[] = {
        {"errno", get_or_none, set_attr, (void *)"errno"}, {"strerror", get_or_none, set_attr, (void *)"strerror"},
        {"filename", get_or_none, set_attr, (void *)"filename"},
        {"filename2", get_or_none, set_attr, (void *)"filename2"}, {NULL}};
    static const GetSetDef bio_getsets[] = {{"characters_written", get_chars_written, set_chars_written}, {NULL}};
    static const MethodDef ue_methods[] = {
        {"__init__", unicode_error_init, NATIVEF_METHOD}, {"__str__", unicode_error_str, NATIVEF_METHOD | ARITY_NOARGS},
        {NULL}};
    static const GetSetDef ue_getsets[] = {
        {"encoding", get_or_none, set_attr, (void *)"encoding"}, {"object", get_or_none, set_attr, (void *)"object"},
        {"start", get_index_attr, set_index_attr, (void *)"start"}, {"end", get_index_attr, set_index_attr, (void *)"end"},
        {"reason", get_or_none, set_attr, (void *)"reason"}, {NULL}};
    if (type_add_methods(vm, vm->e_OSError, os_methods) < 0 || type_add_getsets(vm, vm->e_OSError, os_getsets) < 0 ||
        type_add_getsets(vm, vm->e_BlockingIOError, bio_getsets) < 0)
        EM_UNREACHABLE();
    TypeObj *ue[3] = {vm->e_UnicodeDecodeError, vm->e_UnicodeEncodeError, vm->e_UnicodeTranslateError};
    for (int i = 0; i < 3; i++)
        if (type_add_methods(vm, ue[i], ue_methods) < 0 || type_add_getsets(vm, ue[i], ue_getsets) < 0)
            EM_UNREACHABLE();
}
