/* vm/int_bytes.c — int.to_bytes / int.from_bytes for 64-bit ints, which CPython's importlib
 * needs at import (MAGIC_NUMBER = (3495).to_bytes(2, 'little')).  INTERIM: the `pycore` branch
 * defines both on its arbitrary-precision ints (vm/num_methods.c); this file goes when that
 * reaches main. */
#include <string.h>

#include "vm/buffer.h"
#include "vm/dict.h"
#include "vm/native.h"
#include "vm/str.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static int byteorder(VM *vm, Value v, bool *little) {
    *little = false;
    if (val_is_null(v)) return 0;
    if (!val_is_str(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "to_bytes() argument 'byteorder' must be str, not %s", vm_type_name(vm, v));
        return -1;
    }
    if (str_eq_c(AS_STR(v), "little")) *little = true;
    else if (!str_eq_c(AS_STR(v), "big")) {
        vm_raise(vm, vm->e_ValueError, "byteorder must be either 'little' or 'big'");
        return -1;
    }
    return 0;
}

static Value to_bytes(ARGS) {
    static const char *const names[] = {"self", "length", "byteorder", "signed"};
    Value a[4];
    if (native_parse_args(vm, "to_bytes", argc, argv, kw, 3, 1, names, 4, a) < 0) return val_null();
    int64_t len = 1, x = val_as_intlike(argv[0]);
    bool little, sig = !val_is_null(a[3]) && vm_truthy(vm, a[3]) > 0;
    if ((!val_is_null(a[1]) && vm_index(vm, a[1], &len) < 0) || byteorder(vm, a[2], &little) < 0) return val_null();
    if (len < 0) return vm_raise(vm, vm->e_ValueError, "length argument must be non-negative");
    if (x < 0 && !sig) return vm_raise(vm, vm->e_OverflowError, "can't convert negative int to unsigned");
    if (len < 8) {
        int64_t lim = (int64_t)1 << (8 * len - (sig ? 1 : 0));
        if ((len == 0 && x != 0) || (len > 0 && (x >= lim || x < (sig ? -lim : 0))))
            return vm_raise(vm, vm->e_OverflowError, "int too big to convert");
    }
    BytesObj *b = bytes_new(vm, NULL, len);
    if (!b) return val_null();
    for (int64_t i = 0; i < len; i++) {
        uint8_t byte = i < 8 ? (uint8_t)((uint64_t)x >> (8 * i)) : (x < 0 ? 0xFF : 0);
        b->data[little ? i : len - 1 - i] = byte;
    }
    return val_obj(b);
}

static Value from_bytes(ARGS) {
    static const char *const names[] = {"cls", "bytes", "byteorder", "signed"};
    Value a[4];
    if (native_parse_args(vm, "from_bytes", argc, argv, kw, 3, 2, names, 4, a) < 0) return val_null();
    bool little, sig = !val_is_null(a[3]) && vm_truthy(vm, a[3]) > 0;
    if (byteorder(vm, a[2], &little) < 0) return val_null();
    Value h;
    const uint8_t *p;
    int64_t n;
    if (buffer_get(vm, a[1], "from_bytes", &h, &p, &n) < 0) return val_null();
    uint64_t u = 0;
    for (int64_t i = 0; i < n; i++) {
        uint8_t byte = p[little ? n - 1 - i : i];
        if (i < n - 8 && byte != 0 && !(sig && byte == 0xFF))
            return vm_raise(vm, vm->e_OverflowError, "int too big for Ember's 64-bit ints");
        u = (u << 8) | byte;
    }
    int64_t x = (int64_t)u;
    if (sig && n > 0 && n < 8 && (p[little ? n - 1 : 0] & 0x80)) x -= (int64_t)1 << (8 * n);
    return val_int(x);
}

void int_bytes_init(VM *vm) {
    static const MethodDef m[] = {{"to_bytes", to_bytes, NATIVEF_METHOD}, {"from_bytes", from_bytes, NATIVEF_CLASSMETHOD}, {NULL}};
    if (val_is_null(dict_get_c(vm, vm->t_int->dict, "to_bytes")) && type_add_methods(vm, vm->t_int, m) < 0) EM_UNREACHABLE();
}
