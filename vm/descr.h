/* vm/descr.h — member descriptors (slots and fixed fields of built-in types) and mapping
 * proxies (read-only mapping views, what cls.__dict__ is). */
#ifndef EMBER_VM_DESCR_H
#define EMBER_VM_DESCR_H

#include "vm/vm.h"

enum { MEMBER_VALUE, MEMBER_OBJECT };   /* a Value field (VAL_NULL: unset), or an Obj* (NULL: None) */

typedef struct MemberObj {
    Obj hdr;
    StrObj *name;
    TypeObj *owner;
    int64_t offset;       /* byte offset of the field in the owner's instances */
    int kind;
    bool readonly;
} MemberObj;

Value member_new(VM *vm, TypeObj *owner, StrObj *name, int64_t offset, int kind, bool readonly);
Value member_get(VM *vm, MemberObj *m, Value obj);
int member_set(VM *vm, MemberObj *m, Value obj, Value v) EM_MUST_CHECK;   /* v VAL_NULL: delete */

Value mappingproxy_new(VM *vm, Value mapping);

void descr_init_types(VM *vm);

#endif
