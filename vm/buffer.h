 /* vm/buffer.h — reading "bytes-like objects" from C (CPython's buffer protocol, simple
 * contiguous case): bytes directly; bytearray and memoryview through a bytes copy.
 *
 *   Value holder; const uint8_t *p; int64_t n;
 *   if (buffer_get(vm, v, "write()", &holder, &p, &n) < 0) return val_null();
 *   vm_push_root(vm, holder);  ...  vm_pop_root(vm);
 */
#ifndef EMBER_VM_BUFFER_H
#define EMBER_VM_BUFFER_H

#include <string.h>

#include "vm/vm.h"

/* 0 with *p and *n set (valid while *holder and v stay alive), or -1 + TypeError
 * "a bytes-like object is required, not 'str'" (what names the consumer, unused today). */
static inline int buffer_get(VM *vm, Value v, const char *what, Value *holder, const uint8_t **p, int64_t *n) {
    (void)what;
    *holder = val_null();
    if (v.tag == VAL_OBJ && vm_isinstance_type(vm, v, vm->t_bytes)) {
        BytesObj *b = (BytesObj *)v.as.o;
        *p = b->data;
        *n = b->len;
        return 0;
    }
    const char *tn = vm_type_name(vm, v);
    if (v.tag == VAL_OBJ && (strcmp(tn, "bytearray") == 0 || strcmp(tn, "memoryview") == 0 ||
                             strcmp(tn, "array") == 0 || strcmp(tn, "mmap") == 0)) {
        Value b = vm_call1(vm, val_obj(vm->t_bytes), v);
        if (val_is_null(b)) return -1;
        *holder = b;
        *p = ((BytesObj *)b.as.o)->data;
        *n = ((BytesObj *)b.as.o)->len;
        return 0;
    }
    vm_raise(vm, vm->e_TypeError, "a bytes-like object is required, not '%s'", tn);
    return -1;
}

#endif
