/* vm/structseq.h — "struct sequences", CPython's named tuples written in C: os.stat_result,
 * time.struct_time, sys.flags, sys.version_info, sys.float_info, os.terminal_size, ...
 * A NULL field name makes an unnamed field (stat_result's integer times), reachable by index only.
 *
 * A struct sequence is a tuple subclass whose first n_in_sequence fields are its items and
 * whose remaining fields (st_atime as a float, tm_zone, ...) are reachable only by name.
 *
 *   static const char *const fields[] = {"major", "minor", "micro", "releaselevel", "serial"};
 *   static const StructSeqDesc d = {"sys.version_info", fields, 5, 5};
 *   TypeObj *t = structseq_new_type(vm, &d);
 *   TupleObj *v = structseq_new(vm, t, (Value[]){val_int(3), ...});
 */
#ifndef EMBER_VM_STRUCTSEQ_H
#define EMBER_VM_STRUCTSEQ_H

#include "vm/vm.h"

/* The description of a struct sequence type; static, it outlives every VM.  name is
 * "module.Name" (the part before the last dot is __module__). */
typedef struct StructSeqDesc {
    const char *name;
    const char *const *fields;
    int nfields, n_in_sequence;
} StructSeqDesc;

/* A new type for desc (one per VM).  NULL + exception on failure. */
TypeObj *structseq_new_type(VM *vm, const StructSeqDesc *desc);
/* An instance with values[0..nfields) (rooted by the caller). */
TupleObj *structseq_new(VM *vm, TypeObj *t, const Value *values);

#endif
