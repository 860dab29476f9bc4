/* tests/ffi/customop/bad_ops.c — an op library whose registration fails (a schema Ember cannot
 * parse), for the error tests; dup_ops.c registers a name test_ops already has. */
#include <stddef.h>

#include "ember/custom_op.h"

static int noop(void) { return 0; }

int ember_register_ops(const EmOpRegistrar *r) {
    EmOpDef def = {"bad::op(Tensor x, list y) -> Tensor", (void *)noop, NULL, NULL};
    return r->register_op(r, &def);
}
