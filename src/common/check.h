/* src/common/check.h — the one definition of Ember's internal-invariant and must-check macros,
 * for every layer (the tensor library, autograd, graph IR, VM, front end, tracer, runtime).
 *
 *   EM_ASSERT(cond, msg)  our own bug if false: print file, line and msg, then abort.  An
 *                         expression, so it also fits in a comma or conditional expression.
 *   EM_UNREACHABLE()      a path that cannot be taken; aborts likewise.
 *   EM_MUST_CHECK         on a function whose status (0 / -1, NULL) the caller must test.
 *
 * A user's mistake is never an EM_ASSERT: it is an error the caller turns into the exception
 * CPython or PyTorch would raise.  The public headers (include/ember/) stay self-contained for
 * embedders and spell their own must-check attribute (TENSOR_MUST_CHECK). */
#ifndef EMBER_COMMON_CHECK_H
#define EMBER_COMMON_CHECK_H

#define EM_MUST_CHECK __attribute__((warn_unused_result))

_Noreturn void em_assert_fail(const char *file, int line, const char *msg);

#define EM_ASSERT(cond, msg) ((cond) ? (void)0 : em_assert_fail(__FILE__, __LINE__, (msg)))
#define EM_UNREACHABLE() em_assert_fail(__FILE__, __LINE__, "unreachable")

#endif
