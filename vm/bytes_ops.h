/* vm/bytes_ops.h — binary sequences: the bytearray object, byte views of the bytes-like types
 * (bytes, bytearray, memoryview), and the methods bytes and bytearray share (vm/bytes_ops.c),
 * written once over byte views with results of the receiver's kind. */
#ifndef EMBER_VM_BYTES_OPS_H
#define EMBER_VM_BYTES_OPS_H

#include "vm/vm.h"

typedef struct ByteArrayObj {
    Obj hdr;
    uint8_t *data;        /* malloc'd through the VM funnel, cap bytes (+1 for a NUL) */
    int64_t len, cap;
    int64_t exports;      /* memoryviews not yet released: resizing is refused while > 0 */
    DictObj *dict;        /* attributes of bytearray-subclass instances */
} ByteArrayObj;

/* The bytes of a bytes-like object (bytes, bytearray, a C-contiguous memoryview) without
 * copying; false (no exception) when v is not one.  The pointer stays valid until script code
 * runs or v is resized. */
bool bytes_view(VM *vm, Value v, const uint8_t **data, int64_t *len);
/* The same, or -1 + TypeError "a bytes-like object is required, not 'X'". */
int bytes_view_arg(VM *vm, Value v, const uint8_t **data, int64_t *len) EM_MUST_CHECK;

Value bytearray_new(VM *vm, TypeObj *t, const uint8_t *data, int64_t len);
/* Make room for len bytes (growing only); BufferError while exported. */
int bytearray_resize(VM *vm, ByteArrayObj *b, int64_t len) EM_MUST_CHECK;

/* memoryview exporters count their views (vm/memoryview.c). */
void memoryview_gc_sweep(VM *vm);   /* drop the export counts of views dying in this collection */

/* The methods bytes and bytearray share, added to t. */
int bytes_ops_register(VM *vm, TypeObj *t) EM_MUST_CHECK;

void bytearray_init_type(VM *vm);
void memoryview_init_type(VM *vm);

#endif
