/* src/report/record.h — the structured compile records: the one source of Ember's inspection.
 *
 * Design note
 * -----------
 * Every artifact the tracer and the runtime show about a compiled frame is first built as data
 * here, then printed: as EMBER_LOGS text on stderr by text.c (the layout the logs always had),
 * and as the static HTML report by html.c.  Both read the same record, so the terminal and the
 * browser cannot disagree.  The layer is plain C (no vm/ headers): producers (src/tracer,
 * src/runtime) fill the records with strings they format themselves.
 *
 * One RpCompile per compile attempt `[frame/compile]` of a code object: a new cache entry, a
 * frame the tracer gave up on (skip_reason: it runs eagerly), or the cache-size-limit warning.
 * The events of one attempt arrive in order — the recompile reason (the guard of the entry it
 * replaces that failed), graph breaks (the trace restarts before each), then the finished
 * compile — and each is printed as it arrives, so log lines stay interleaved with the script's
 * own output.  The runtime adds runs (plans, arena peaks) later, found by graph name.
 *
 *     RpCompile *c = rp_compile_new(frame_id, compile_id, "step", "step", "x.py", 38);
 *     RpEffect *e = rp_add_effect(c);            // one side-effect row
 *     e->object = rp_strdup("L['model']"); ...
 *     rp_print_side_effects(c, stderr);          // EMBER_LOGS=side_effects
 *     rp_log_add(log, c);                        // kept for the report (or rp_compile_free)
 *
 * Residual instructions carry the side-effect row they replay (RpInstr.effect), set by the
 * tracer's codegen as it emits them; the side-effects table and the HTML links come from it.
 * Strings are malloc'd and owned by their record. */
#ifndef EMBER_REPORT_RECORD_H
#define EMBER_REPORT_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Which part of the residual code an instruction belongs to (codegen's phases). */
typedef enum RpPhase {
    RP_PHASE_NONE,        /* original bytecode */
    RP_PHASE_PROLOGUE,    /* cells and free variables, as the original */
    RP_PHASE_GRAPH_CALL,  /* load the inputs, call __compiled_fn_N, unpack its outputs */
    RP_PHASE_TEMPS,       /* objects created in the region, values used more than once */
    RP_PHASE_STATE,       /* the return value, or the stack and locals at a break */
    RP_PHASE_EFFECT,      /* replays a side-effect row (RpInstr.effect) */
    RP_PHASE_GRAD_MODE,   /* the grad mode the region ended in */
    RP_PHASE_BREAK,       /* the breaking instruction, run natively */
    RP_PHASE_RESUME,      /* the call of the resume function */
    RP_PHASE_RETURN,
    RP_PHASE__COUNT
} RpPhase;
const char *rp_phase_name(RpPhase p);

/* One row of a disassembly, exactly as vm/dis prints it. */
typedef struct RpInstr {
    int32_t index;        /* instruction index (the dis offset is 2 * index); -1: exception table */
    int32_t line;         /* the source line this row starts (dis prints it), else 0 */
    bool gap;             /* dis prints a blank line before it */
    char *text;
    RpPhase phase;        /* residual code only */
    int32_t effect;       /* residual code: the side-effect row it replays, or -1 */
} RpInstr;

typedef struct RpDis {
    RpInstr *rows;
    int32_t n, cap;
} RpDis;

typedef struct RpGuard {
    char *text;           /* "TENSOR_MATCH: check_tensor(L['x'], ...)" */
    int32_t line;         /* the user line that made it (0: none), in the compile's file */
    char *code;           /* that line's source, stripped */
} RpGuard;

/* A row of the side-effects table (see SideEffects in src/tracer/tracer.h for the order). */
typedef struct RpEffect {
    char *object;         /* its source, "globals", or "created in compiled region" */
    char *kind;           /* list, dict, global, del glob, cell, setattr, delattr, hook */
    char *attr;           /* attribute, global or key; "(appended)", "(contents)", "register_hook" */
    char *value;          /* the new value as shown */
    int32_t line;         /* user line of the mutation (0: unknown) */
    char *replay;         /* how residual code replays it: "STORE_ATTR calls", "register_hook" */
} RpEffect;

/* A hook and what the compiled code does with it. */
typedef struct RpHook {
    char *what;           /* "tensor hook", "graph hook node" */
    char *target;         /* the tensor (its source, or the graph node) */
    char *callable;
    int32_t line;
    char *how;            /* "registered by residual code", "called by the compiled backward (...)" */
} RpHook;

typedef struct RpFrame {  /* one entry of a user traceback */
    char *file;
    int32_t line;
    char *func;
    char *code;
} RpFrame;

typedef struct RpBreak {
    char *reason;
    RpFrame *tb;          /* outermost first; the break is in the last */
    int32_t n_tb, cap_tb;
} RpBreak;

/* A kind of run of a compiled graph by the runtime (EMBER_LOGS=plan,memory). */
typedef struct RpRun {
    char *kind;           /* "inference", "training (forward + CompiledFunctionBackward)", ... */
    char *plan;           /* rt_plan_describe's text, or NULL */
    size_t peak;          /* arena peak, bytes */
    char *why;            /* why it fell back to eager, or NULL */
} RpRun;

typedef struct RpCompile {
    int32_t frame_id, compile_id;
    char *name, *qualname, *file;
    int32_t firstline, lastline;
    double ms;                    /* compile time, wall clock */
    bool compiled;                /* a cache entry was made */
    bool cache_limit;             /* the cache-size-limit warning (no compile) */
    int32_t cache_limit_n;
    char *skip_reason;            /* the frame runs eagerly: why */
    char *recompile_reason;       /* the guard of the replaced entry that failed */
    int32_t replaces;             /* compile id of that entry, -1 */
    RpBreak *breaks;
    int32_t n_breaks, cap_breaks;
    int32_t break_index;          /* the original instruction the graph breaks at, or -1 */
    /* the source file of the frame's function (line N is source[N - 1]), and per line marks */
    char **source;
    uint8_t *marks;               /* RP_MARK_* per source line */
    int32_t n_source;
    /* the compiled entry */
    RpDis original, residual;
    char *graph_name;             /* __compiled_fn_N, or NULL when the residual calls no graph */
    int32_t n_ops;
    char *graph_code;             /* annotated graph code */
    RpGuard *guards;
    int32_t n_guards, cap_guards;
    RpEffect *effects;
    int32_t n_effects, cap_effects;
    RpHook *hooks;
    int32_t n_hooks, cap_hooks;
    char *decompiled;             /* residual code as Python source */
    char **exec_modules, **exec_params;   /* execution order the graph shows (fqns) */
    int32_t n_exec_modules, n_exec_params;
    bool have_exec_order;
    RpRun *runs;
    int32_t n_runs, cap_runs;
    char **notes;                 /* runtime notes ("training runs keep eager autograd nodes (...)") */
    int32_t n_notes;
} RpCompile;

enum {
    RP_MARK_TRACED = 1,           /* the trace covered an instruction of the line */
    RP_MARK_OPS = 2,              /* a graph op was recorded at the line */
    RP_MARK_BREAK = 4,            /* the graph breaks at the line */
    RP_MARK_EFFECT = 8,           /* a side effect was recorded at the line */
    RP_MARK_GUARD = 16,           /* a guard names the line */
    RP_MARK_FUNC = 32,            /* a line of the compiled function itself */
};
enum { RP_MAX_SOURCE_LINES = 5000 };

/* A ModTracker event (the sequence the tracker saw). */
typedef struct RpModEvent {
    char *event;                  /* "pre_fw", "post_fw", "pre_bw", "post_bw" */
    char *module;
    char *parents;                /* the tracker's parents at that moment */
} RpModEvent;

/* Everything recorded during a run, kept for the report. */
typedef struct RpLog {
    RpCompile **compiles;
    int32_t n_compiles, cap_compiles;
    RpModEvent *mod_events;
    int32_t n_mod_events, cap_mod_events;
    char *script;                 /* the script the run started, and its arguments */
    char *command;
} RpLog;

char *rp_strdup(const char *s);               /* NULL stays NULL */
char *rp_strndup(const char *s, size_t n);
char *rp_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

RpCompile *rp_compile_new(int32_t frame_id, int32_t compile_id, const char *name, const char *qualname,
                          const char *file, int32_t firstline);
void rp_compile_free(RpCompile *c);
RpInstr *rp_add_instr(RpDis *d);
RpGuard *rp_add_guard(RpCompile *c);
RpEffect *rp_add_effect(RpCompile *c);
RpHook *rp_add_hook(RpCompile *c);
RpBreak *rp_add_break(RpCompile *c, const char *reason);
RpFrame *rp_add_frame(RpBreak *b);
RpRun *rp_add_run(RpCompile *c, const char *kind);
void rp_add_note(RpCompile *c, const char *note);
/* Split dis text (vm/dis's layout: one row per instruction) into rows: row k is instruction
 * instr_index[k], blank lines become `gap` flags, exception-table rows get index -1. */
void rp_dis_from_text(RpDis *d, const char *text, const int32_t *instr_index, int32_t n_instr);
/* Read c's source file (the function spans firstline..lastline: marked RP_MARK_FUNC). */
void rp_compile_read_source(RpCompile *c, int32_t lastline);
void rp_mark_line(RpCompile *c, int32_t line, uint8_t mark);

RpLog *rp_log_new(void);
void rp_log_free(RpLog *log);
void rp_log_add(RpLog *log, RpCompile *c);            /* takes c */
/* The compile that made graph `name` (the newest), or NULL. */
RpCompile *rp_log_find_graph(RpLog *log, const char *name);
/* The compile of frame_id with compile_id, or NULL. */
RpCompile *rp_log_find(RpLog *log, int32_t frame_id, int32_t compile_id);
void rp_log_mod_event(RpLog *log, const char *event, const char *module, const char *parents);

/* ---- text.c: the EMBER_LOGS text of each artifact (stderr layout) ---------------------------- */
void rp_print_bytecode(const RpCompile *c, FILE *out);
void rp_print_graph_code(const RpCompile *c, FILE *out);
void rp_print_guards(const RpCompile *c, FILE *out);
void rp_print_side_effects(const RpCompile *c, FILE *out);
void rp_print_decompiled(const RpCompile *c, FILE *out);
void rp_print_exec_order(const RpCompile *c, FILE *out);
void rp_print_hooks(const RpCompile *c, FILE *out);
void rp_print_break(const RpCompile *c, const RpBreak *b, FILE *out);
void rp_print_skip(const RpCompile *c, FILE *out);
void rp_print_recompile(const RpCompile *c, FILE *out);
void rp_print_cache_limit(const RpCompile *c, FILE *out);
void rp_print_plan(const char *graph, const RpRun *r, FILE *out);
void rp_print_memory(const char *graph, const RpRun *r, FILE *out);
void rp_print_note(const char *graph, const char *note, FILE *out);

/* ---- html.c: the static report --------------------------------------------------------------- */
/* Write DIR/index.html and one page per compile; 0, or -1 with errno set. */
int rp_write_html(const RpLog *log, const char *dir);

#endif
