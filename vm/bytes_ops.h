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
/* Exporters other than bytes/bytearray (io.BytesIO): a C type (or its subclasses) whose
 * native_data points at one of these.  `data` gives the bytes, `exports` the counter the
 * exporter checks before it resizes (BufferError while > 0). */
typedef struct MemExporter {
    uint8_t *(*data)(Obj *o, int64_t *len);
    int64_t *(*exports)(Obj *o);
} MemExporter;
/* A writable (or read-only) 'B' view of a whole exporter: memoryview(o) for such a type. */
Value memoryview_export(VM *vm, Value o, bool readonly);

/* The methods bytes and bytearray share, added to t. */
int bytes_ops_register(VM *vm, TypeObj *t) EM_MUST_CHECK;

void bytearray_init_type(VM *vm);
void memoryview_init_type(VM *vm);

#endif
