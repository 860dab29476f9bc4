/* src/tracer/tracer_state.h — the tracer's per-VM state (vm->ext[TRACER_EXT]): its types,
 * torch._dynamo.config, the active compile options while a compiled call runs, counters for
 * stable names, and the cache chains hanging off code objects (CodeCache). */
#ifndef EMBER_TRACER_STATE_H
#define EMBER_TRACER_STATE_H

#include "ember/autograd.h"
#include "src/tracer/tracer.h"

enum { TRACER_EXT = VM_EXT_TRACER };

/* A dict's state as a guard program last saw it (guard_program.c).  Versions come from one global
 * counter and every write to a dict's entries takes a new one (vm/dict.c), so (dict, version)
 * names one state of one dict: while the dict a step reads is the same object at the same
 * version, the entry it read holds the same value, or is still absent.  `v` is not traced by
 * the collector and need not be: it is used only while `dict` (alive: the step has just reached
 * it from its base) still holds it; a dict freed and another allocated at its address has
 * another version. */
typedef struct DictMemo {
    DictObj *dict;            /* NULL: nothing seen yet */
    uint64_t version;
    Value v;                  /* what the read returned (VAL_NULL: absent) */
} DictMemo;

/* One value a guard program reads: a source, resolved once per check (guard_program.c). */
typedef struct GuardStep {
    uint8_t kind;             /* SourceKind */
    uint8_t how;              /* SRC_ATTR: where the attribute was found when compiled */
    int16_t field;            /* ... a module's C dict field (NnHookDict) */
    int32_t base;             /* step of the base source, -1 */
    int32_t index;            /* SRC_LOCAL slot, SRC_CLOSURE free index */
    StrObj *name;
    Value key;
    StrObj *key_str;          /* SRC_ITEM: key when it is a str (a dict entry read by name) */
    TypeObj *base_type;       /* SRC_ATTR specialised: the base's exact type when compiled */
    /* the dict reads of the step: the one it makes, and for SRC_GLOBAL the builtins fallback */
    DictMemo memo, memo_builtins;
} GuardStep;

/* The guards with no source, on the state a compiled call runs under: 1 / 0 when g is one of
 * them (guard_check_values and the guard program both decide them here), -1 when it is not. */
static inline int guard_check_ambient(VM *vm, const Guard *g) {
    switch (g->kind) {
    case G_GRAD_MODE: return ag_is_grad_enabled() == g->flag;
    case G_SAVED_HOOKS: return (ag_saved_tensors_hooks_depth() > 0) == g->flag;
    case G_DEFAULT_DTYPE: return (int64_t)tensor_default_dtype() == g->expected.as.i;
    case G_AUTOCAST: return (int64_t)tracer_autocast_state(vm) == g->expected.as.i;
    case G_BACKEND: {
        const CompileOptions *opts = trace_current_options(vm);
        return opts->backend == g->backend && val_identical(opts->user_backend, g->expected);
    }
    default: return -1;
    }
}

/* One check of a guard program: a guard with the steps of its values (-1: none), so the loop
 * reads four small fields instead of the Guard and three side arrays (guard_program.c). */
typedef struct GuardOp {
    int32_t kind;             /* GuardKind, copied */
    int32_t guard;            /* index into the entry's guards */
    int32_t a, b;             /* steps of the guard's source and other source */
} GuardOp;

/* One compiled entry of a code object: its guards and residual code. */
typedef struct CacheEntry {
    struct CacheEntry *next;
    TraceArena arena;              /* the guards' sources and program */
    Guard *guards;
    int32_t n_guards;
    /* the guard program: every distinct source once, bases first; per guard the steps of its
     * source and other source (-1: none) */
    GuardStep *steps;
    int32_t n_steps;
    int32_t *src_step, *other_step;
    /* the NO_TENSOR_ALIASING guards as one check: these steps' values are pairwise distinct
     * (those guards then have no op) */
    int32_t *distinct;
    int32_t n_distinct;
    /* the other guards' checks, in guard order */
    GuardOp *ops;
    int32_t n_ops;
    /* per guard: the dict state a G_DICT_KEYS guard last passed on (it passes again while the
     * dict is unchanged: the check reads nothing but the dict's keys) */
    DictMemo *passed;
    CodeObj *code;            /* residual code (NULL for a skip entry) */
    Value keep;               /* a list: compiled fns and resume functions it calls */
    int32_t compile_id;
} CacheEntry;

/* Resume functions made for a code object, by target instruction and stack shape. */
typedef struct ResumeFn {
    struct ResumeFn *next;
    int32_t target;
    uint64_t stack_shape;     /* bit i: stack slot i holds NULL; plus depth in the high bits */
    int32_t n_live;
    CodeObj *code;
    StrObj *name;
} ResumeFn;

typedef struct CodeCache {
    VM *vm;
    CodeObj *code;
    CacheEntry *entries;
    int32_t n_entries;
    bool skip;                /* run eagerly from now on (no ops, or untraceable) */
    char skip_reason[256];
    int32_t frame_id;         /* [frame_id/compile_id] in logs */
    int32_t n_compiles;
    bool warned_limit;
    ResumeFn *resumes;
} CodeCache;

/* What torch.compile(fn) returns (compiled_fn.c). */
typedef struct CompiledFnObj {
    Obj hdr;
    DictObj *dict;
    Value fn;                       /* the original callable */
    CompileOptions opts;            /* backend (static), user backend (traced), fullgraph */
} CompiledFnObj;

typedef struct TracerState {
    TypeObj *t_compiled_graph;
    TypeObj *t_compiled_fn;   /* what torch.compile(fn) returns (compiled_fn.c) */
    /* the __exit__ residual code gives a grad-mode `with` block it resumes inside:
     * grad_restorer[m] sets grad mode m, whatever its arguments (codegen.c) */
    Value grad_restorer[2];
    /* _make_cell(value) / _make_cell(): a new closure cell, for closures residual code rebuilds
     * whose cells belong to a function inlined in the region (codegen.c) */
    Value make_cell;
    /* _iter_at(list, n): a list iterator n items in, for loops resumed after a break (codegen.c) */
    Value iter_at;
    /* torch._dynamo.config */
    int32_t cache_size_limit;
    bool suppress_errors;
    /* the compiled call in progress */
    CompileOptions opts;
    int32_t active;           /* nesting of compiled calls (hook installed while > 0) */
    EvalFrameFn prev_eval;
    bool compile_all;         /* ember run --compile-all: the hook stays installed */
    bool tracing;             /* a trace is running: frames run eagerly */
    /* the frame whose compile is in progress: the eval-frame hook gets it before the
     * interpreter links it as vm->frame, so its arguments are marked from here */
    Frame *compiling;
    int32_t next_frame_id;
    int32_t next_graph_id;
    int32_t next_resume_id;
    /* ember compile: --decompile, --dot DIR */
    bool decompile;
    char dot_dir[256];
    /* the compile report (ember compile --report DIR, EMBER_REPORT): every record is kept here
     * (NULL: no report); rec is the record of the compile attempt in progress (logs.c) */
    RpLog *report;
    char *report_dir;
    RpCompile *rec;
    double rec_t0;
    /* torch._dynamo.explain collects here while set */
    Value explain_sink;
    /* every code object with a cache (so reset() can clear them) */
    CodeObj **cached_codes;
    int32_t n_cached, cap_cached;
    /* where a fake call saves the default generator while its op runs (fake_call.c); made on
     * the first fake call, freed with the state; rng_busy while a save is held */
    TensorGenerator *rng_saved;
    bool rng_busy;
} TracerState;

static inline TracerState *tracer_state(VM *vm) { return (TracerState *)vm->ext[TRACER_EXT]; }

/* ---- functions, by file, bottom first ---------------------------------------------------------- */

/* cache.c: the cache chain of a code object (created when asked to); freeing an entry;
 * torch._dynamo.config.cache_size_limit, read when it matters (a miss); reset(). */
CodeCache *tracer_code_cache(VM *vm, CodeObj *co, bool create);
void tracer_entry_free(CacheEntry *e);
int32_t tracer_cache_size_limit(VM *vm);
void tracer_reset(VM *vm);

/* output.c: the CompiledGraph type; the built-in backends */
void tracer_output_init_types(VM *vm, TracerState *st);
void tracer_register_builtin_backends(void);

/* logs.c: the per-compile artifacts, break and recompile logs, the cache-limit warning, and the
 * records torch._dynamo.explain collects */
void tracer_log_compile(Tracer *tr, CodeCache *cc, CacheEntry *e, Value compiled_fn);
void tracer_log_break(Tracer *tr, CodeCache *cc);
void tracer_log_recompile(VM *vm, CodeObj *co, CodeCache *cc, const char *reason);
void tracer_warn_cache_limit(VM *vm, CodeObj *co, CodeCache *cc, const char *reason);
void tracer_explain_record(Tracer *tr, Value compiled_fn, bool skipped, const char *skip_reason);

/* guard_program.c: build an entry's program (after its guards are copied in; f is the frame it
 * was compiled for) and run it: true when every guard holds. */
void guard_program_build(VM *vm, Frame *f, CacheEntry *e);
bool guard_program_check(VM *vm, Frame *f, CacheEntry *e);   /* updates the entry's memos */

/* frame.c: run fn(*args, **kwargs) (or vectorcall arguments) with the hook installed and these
 * options */
Value tracer_run_compiled(VM *vm, Value fn, Value args, Value kwargs, const CompileOptions *opts);
Value tracer_run_compiled_vec(VM *vm, Value fn, int argc, Value *argv, TupleObj *kw, const CompileOptions *opts);

/* compiled_fn.c: what torch.compile(fn) returns */
int tracer_compiled_fn_init_type(VM *vm, TracerState *st);
Value tracer_compiled_fn_new(VM *vm, Value fn, const CompileOptions *opts);

/* logs.c: the record of one compile attempt (a miss), from its beginning (before the recompile
 * reason is known) to its end; NULL (st->rec) when neither a log nor the report wants it.  Each
 * event is recorded and printed as it happens. */
void tracer_record_begin(VM *vm, CodeObj *co, CodeCache *cc);
void tracer_record_end(VM *vm);
bool tracer_recompile_wanted(VM *vm);
void tracer_log_recompile(VM *vm, CodeObj *co, CodeCache *cc, const char *reason);
void tracer_warn_cache_limit(VM *vm, CodeObj *co, CodeCache *cc, const char *reason);
void tracer_log_break(Tracer *tr, CodeCache *cc);
void tracer_log_skip(Tracer *tr, CodeCache *cc, const char *reason);
void tracer_log_compile(Tracer *tr, CodeCache *cc, CacheEntry *e, Value compiled_fn);
void tracer_explain_record(Tracer *tr, Value compiled_fn, bool skipped, const char *skip_reason);
void tracer_report_free(TracerState *st);

#endif
