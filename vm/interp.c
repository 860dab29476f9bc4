/* vm/interp.c — the dispatch loop: one C function evaluates a frame and every script-to-script
 * call it makes inline (no C recursion for ordinary calls), unwinds exceptions through the
 * exception table, and returns to its C caller when its entry frame returns or raises.
 *
 * This file owns the loop itself: its registers, the dispatch macros (computed goto, or a
 * switch with -Ddispatch=switch), quickening's SPECIALIZE / DEOPT, the entry and the exception
 * unwinder.  The handlers live in fragments included into the loop's body, by kind:
 *     vm/interp_names.inc    stack, locals, globals, names, cells, attributes, subscripts
 *     vm/interp_ops.inc      operators, comparisons, jumps, iteration, building, unpacking
 *     vm/interp_calls.inc    calls and returns (frames pushed and popped inline)
 *     vm/interp_gen_exc.inc  generators, coroutines, match, exceptions, with, imports
 *     vm/interp_spec.inc     the specialised arithmetic / comparison / iteration forms
 * and the slow paths the handlers call are plain functions in vm/interp_slow.c (vm/interp.h).
 *
 * Discipline (see the invariant in vm/gc.h): before anything that can allocate or call, the
 * handler runs SYNC() so the frame's sp and ip are current, and it leaves its operands on the
 * stack until the result is ready. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vm/call.h"
#include "vm/coro.h"
#include "vm/dict.h"
#include "vm/exc.h"
#include "vm/func.h"
#include "vm/gc.h"
#include "vm/gen.h"
#include "vm/import.h"
#include "vm/interp.h"
#include "vm/iter.h"
#include "vm/match.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/specialize.h"
#include "vm/str.h"
#include "vm/type.h"

#if defined(EMBER_DISPATCH_SWITCH) || !defined(__GNUC__)
#define DISPATCH()                  \
    do {                            \
        next_op = pc->op;           \
        pc++;                       \
        goto dispatch_switch;       \
    } while (0)
#define CASE(op)                    \
    case OP_##op:                   \
        oparg = pc[-1].arg;
#else
#define USE_GOTO 1
#define DISPATCH()                  \
    do {                            \
        goto *labels[(pc++)->op];   \
    } while (0)
#define CASE(op)                    \
    L_##op:                         \
        oparg = pc[-1].arg;
#endif

#define SYNC()                                      \
    do {                                            \
        f->sp = sp;                                 \
        f->ip = (int32_t)(pc - code) - 1;           \
    } while (0)
/* Values move as two 8-byte words, never as one 16-byte block: handlers write a result's tag
 * and payload separately, and a 16-byte reload of those two stores stalls store-to-load
 * forwarding (it cost more than the rest of a loop iteration). */
#define VSET(dst, src)                  \
    do {                                \
        Value _s = (src);               \
        Value *_d = &(dst);             \
        _d->tag = _s.tag;               \
        _d->as.i = _s.as.i;             \
    } while (0)
#define PUSH(v)             \
    do {                    \
        VSET(*sp, (v));     \
        sp++;               \
    } while (0)
#define POP() (*--sp)
#define TOP() (sp[-1])
#define SET_TOP(v) VSET(sp[-1], (v))
#define PEEK(n) (sp[-(ptrdiff_t)(n)])
#define NAME(i) ((StrObj *)f->code->names->items[(i)].as.o)
#define CONST(i) (consts[(i)])
#define LOAD_REGS()                                 \
    do {                                            \
        code = f->code->qcode;                      \
        consts = f->code->consts->items;            \
        locals = f->localsplus;                     \
        sp = f->sp;                                 \
        pc = code + f->ip + 1;                      \
    } while (0)

/* Fuzz builds (meson -Dfuzz=true, tests/fuzz): a budget of backward jumps, so a generated program
 * that loops forever raises RuntimeError instead of timing the fuzzer out.  Nothing in other
 * builds. */
#ifdef EMBER_FUZZ
int64_t vm_fuzz_fuel = -1;   /* < 0: no budget */
#define FUEL(target)                                                                          \
    do {                                                                                      \
        if ((int32_t)(target) < (int32_t)(pc - code) && vm_fuzz_fuel >= 0 && vm_fuzz_fuel-- == 0) { \
            SYNC();                                                                           \
            vm_raise(vm, vm->e_RuntimeError, "fuzz: the budget of loop iterations is spent");  \
            goto error;                                                                       \
        }                                                                                     \
    } while (0)
#else
#define FUEL(target) ((void)0)
#endif

/* A safe point (backward jumps, returns): run the __del__ finalizers the collector queued
 * (vm/gc.c).  One predictable load and branch when none are due. */
#define SAFE_POINT()                                \
    do {                                            \
        if (__builtin_expect(vm->fin_n != 0, 0)) {  \
            SYNC();                                 \
            gc_run_finalizers(vm);                  \
        }                                           \
    } while (0)

/* Quickening (opcodes.def note [13]).  A specialisable base instruction counts down in its pad
 * byte; at zero it asks vm/specialize.c for a form and, if it got one, runs it at once.  A
 * specialised form whose guard fails turns back into its base form with the counter backed
 * off and runs that: the base form computes the answer, so a guard failure costs time only. */
#define SPECIALIZE(call)                                        \
    do {                                                        \
        if (__builtin_expect(pc[-1]._pad-- == 0, 0)) {          \
            uint8_t _before = pc[-1].op;                        \
            call;                                               \
            if (pc[-1].op != _before) {                         \
                pc--;                                           \
                DISPATCH();                                     \
            }                                                   \
        }                                                       \
    } while (0)
/* A fused return (opcodes.def note [15]), pc past its RETURN_VALUE and v popped: the return
 * path with v in a register, or RETURN_VALUE's own entry (v pushed again, so rooted) when a
 * finalizer is due at its safe point. */
#define RETURN_FUSED(v)                             \
    do {                                            \
        retval = (v);                               \
        if (__builtin_expect(vm->fin_n != 0, 0)) {  \
            PUSH(retval);                           \
            goto return_value;                      \
        }                                           \
        goto return_popped;                         \
    } while (0)
#define DEOPT(base)                         \
    do {                                    \
        pc[-1].op = OP_##base;              \
        pc[-1]._pad = CODE_BACKOFF;         \
        pc--;                               \
        DISPATCH();                         \
    } while (0)

/* The entry of the attribute name a specialised attribute form's cache holds (its value) in the
 * instance dict d: the cache's hint when it still points there (instances made alike share
 * it), else a lookup that becomes the new hint; -1 when d lacks the name. */
__attribute__((always_inline)) static inline int64_t instance_dict_index(DictObj *d, InlineCache *c) {
    int64_t h = c->hint;
    if ((uint64_t)h < (uint64_t)d->nentries && d->entries[h].key.as.o == c->value.as.o &&
        d->entries[h].key.tag == VAL_OBJ)
        return h;
    h = dict_find_str(d, (StrObj *)c->value.as.o);
    if (h >= 0) c->hint = h;
    return h;
}

Value vm_eval_frame_default(VM *vm, Frame *f) {
#ifdef USE_GOTO
    static void *const labels[OP__COUNT] = {
#define OP(name, kind, pop, push, flags, doc) &&L_##name,
#include "vm/opcodes.def"
#undef OP
    };
#endif
    Instr *code;   /* the quickened copy (opcodes.def note [13]) */
    Instr *pc;
    Value *sp;
    Value *locals;
    Value *consts;   /* f->code->consts->items */
    uint32_t oparg;
    Value retval;   /* the value a return takes to the caller */
#ifndef USE_GOTO
    uint8_t next_op;   /* not `op`: handlers have locals of that name */
#endif
    f->is_entry = true;
    vm->frame = f;
    code = f->code->qcode;
    consts = f->code->consts->items;
    locals = f->localsplus;
    sp = f->sp;
    pc = code + f->ip;
    if (f->yielded) {
        /* resuming a generator: the caller pushed the sent value and we continue after the
         * yield, or the caller is throwing an exception in at the yield */
        f->yielded = false;
        if (!val_is_null(vm->exc)) goto error;
        pc = code + f->ip + 1;
    }
    DISPATCH();

#ifndef USE_GOTO
dispatch_switch:
    switch (next_op) {
#endif


#include "vm/interp_names.inc"
#include "vm/interp_ops.inc"
#include "vm/interp_calls.inc"
#include "vm/interp_gen_exc.inc"
#include "vm/interp_spec.inc"

    CASE(SETUP_FINALLY)
    CASE(SETUP_CLEANUP)
    CASE(SETUP_WITH)
    CASE(POP_BLOCK) {
        EM_UNREACHABLE();
    }

#ifndef USE_GOTO
    default: EM_UNREACHABLE();
    }
#endif

error:
    /* vm->exc is set; f->ip is the raising instruction */
    if (exc_add_traceback(vm, vm->exc, f) < 0) {
        /* out of memory while recording the traceback: keep unwinding with MemoryError */
    }
unwind:;
    {
        const ExcEntry *h = code_find_handler(f->code, f->ip);
        if (h) {
            sp = f->stack + h->depth;
            PUSH(vm->exc);
            vm->exc = val_null();
            pc = code + h->handler;
            DISPATCH();
        }
    }
    /* no handler: leave the frame */
    if (f->is_entry) {
        vm->frame = f->prev;
        frame_pop(vm, f);
        return val_null();
    }
    {
        Frame *caller = f->prev;
        frame_pop(vm, f);
        f = caller;
        vm->frame = f;
        LOAD_REGS();
        goto error;
    }
}
