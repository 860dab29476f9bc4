/* src/tracer/guard_program.c — the guard program of a cache entry: what a compiled call checks
 * before it runs the residual code.
 *
 * Design note
 * -----------
 * Guards name their values by source (G['mlp'].4.bias).  Resolving every guard's source from the
 * frame each time repeats work: an MLP frame has ~45 guards over ~15 distinct sources that share
 * prefixes.  The program lists each distinct source once, bases before what is read from them
 * (steps), resolves them all into a small array on the stack, then runs the checks on the
 * resolved values (guard_check_values): aliasing checks become pointer compares.
 *
 * Attribute steps are specialised when the entry is built, on the frame it was compiled for:
 * an attribute found in an nn.Module's _modules / _parameters / _buffers or C hook dict, or in
 * an instance __dict__, is read straight from there on later calls; when it is not found there
 * the step falls back to the general static read (trace_static_getattr), so the result is the same as
 * resolving the source afresh.  Nothing allocates and no script code runs.
 *
 * Dict reads are memoised on dict versions (DictMemo, tracer_state.h): a step that reads `name`
 * from a dict (a global, another module's global, a module attribute, a parameter, a submodule,
 * an instance attribute) keeps the dict, its version and the value read, and while the dict it
 * reaches is the same object at the same version it returns that value without the lookup.  Any
 * write to the dict changes its version, so the next check looks the name up again.  The steps
 * still run every time, bases first: only the hash lookup is saved, never a link of the chain.
 * A DICT_KEYS guard likewise passes without walking the keys while its dict is the one, at the
 * version, it last passed on.
 */
#include <stdint.h>
#include <string.h>

#include "src/torch/module.h"
#include "src/tracer/tracer_state.h"
#include "vm/dict.h"
#include "vm/str.h"

enum {
    HOW_GENERIC,
    HOW_MODULE,                                        /* a module object: its __dict__ */
    HOW_MOD_PARAMS, HOW_MOD_BUFFERS, HOW_MOD_MODULES,   /* an entry of that dict */
    HOW_MOD_HOOKS,                                     /* the hook dict `field` itself */
    HOW_MOD_PARAMS_DICT, HOW_MOD_BUFFERS_DICT, HOW_MOD_MODULES_DICT,   /* the dict itself */
    HOW_INSTANCE,
};

/* steps under construction, with the source each came from (to specialise them) */
typedef struct ProgramBuilder {
    CacheEntry *e;
    int32_t cap;
    const Source **from;
    /* Source pointer -> step (guards share Source objects: most lookups hit here) */
    const Source **seen_key;
    int32_t *seen_step;
    uint32_t seen_mask;
} ProgramBuilder;

static uint32_t ptr_slot(const void *p, uint32_t mask) { return (uint32_t)(((uintptr_t)p >> 4) * 2654435761u) & mask; }

static int32_t intern_uncached(ProgramBuilder *bd, const Source *s);

static int32_t intern_source(ProgramBuilder *bd, const Source *s) {
    if (!s) return -1;
    uint32_t h = ptr_slot(s, bd->seen_mask);
    while (bd->seen_key[h]) {
        if (bd->seen_key[h] == s) return bd->seen_step[h];
        h = (h + 1) & bd->seen_mask;
    }
    int32_t step = intern_uncached(bd, s);
    /* the table has room for every source of every guard (sized in guard_program_build) */
    h = ptr_slot(s, bd->seen_mask);
    while (bd->seen_key[h]) h = (h + 1) & bd->seen_mask;
    bd->seen_key[h] = s;
    bd->seen_step[h] = step;
    return step;
}

static int32_t intern_uncached(ProgramBuilder *bd, const Source *s) {
    CacheEntry *e = bd->e;
    int32_t base = intern_source(bd, s->base);
    for (int32_t i = 0; i < e->n_steps; i++) {
        const GuardStep *t = &e->steps[i];
        if (t->kind != s->kind || t->base != base || t->index != s->index) continue;
        if (s->kind == SRC_ATTR || s->kind == SRC_GLOBAL) {
            if (t->name == s->name || (t->name && s->name && str_eq(t->name, s->name))) return i;
        } else if (s->kind == SRC_ITEM || s->kind == SRC_OBJECT) {
            if (val_identical(t->key, s->key) ||
                (t->key.tag == VAL_OBJ && s->key.tag == VAL_OBJ && t->key.as.o->type == s->key.as.o->type &&
                 t->key.as.o->type->layout == OBJ_LAYOUT_STR && str_eq(AS_STR(t->key), AS_STR(s->key))))
                return i;
        } else {
            return i;
        }
    }
    if (e->n_steps == bd->cap) {
        int32_t nc = bd->cap ? bd->cap * 2 : 16;
        GuardStep *n = trace_arena_alloc(&e->arena, sizeof(GuardStep) * (size_t)nc);
        const Source **f = trace_arena_alloc(&e->arena, sizeof(Source *) * (size_t)nc);
        if (e->n_steps) {
            memcpy(n, e->steps, sizeof(GuardStep) * (size_t)e->n_steps);
            memcpy(f, bd->from, sizeof(Source *) * (size_t)e->n_steps);
        }
        e->steps = n;
        bd->from = f;
        bd->cap = nc;
    }
    bd->from[e->n_steps] = s;
    GuardStep *t = &e->steps[e->n_steps];
    memset(t, 0, sizeof *t);
    t->kind = (uint8_t)s->kind;
    t->base = base;
    t->index = s->index;
    t->name = s->name;
    t->key = s->key;
    /* an item read by a str key can only be a dict's entry (source_resolve_static) */
    if (s->kind == SRC_ITEM && s->key.tag == VAL_OBJ && s->key.as.o->type->layout == OBJ_LAYOUT_STR)
        t->key_str = AS_STR(s->key);
    return e->n_steps++;
}

/* where trace_static_getattr finds `name` on obj, when it is one of the fast places */
static void specialise_attr(VM *vm, GuardStep *t, Value obj) {
    t->how = HOW_GENERIC;
    if (obj.tag != VAL_OBJ || !t->name) return;
    TypeObj *type = vm_type_of(vm, obj);
    t->base_type = type;
    /* trace_static_getattr reads a module's attributes from its __dict__ alone */
    if (type->layout == OBJ_LAYOUT_MODULE) {
        t->how = HOW_MODULE;
        return;
    }
    Value descr = type_lookup(vm, type, t->name);
    if (nn_state(vm) && nn_is_module(vm, obj)) {
        NnModuleObj *m = (NnModuleObj *)obj.as.o;
        static const char *const dicts[] = {"_parameters", "_buffers", "_modules"};
        for (int i = 0; i < 3; i++)
            if (strcmp(t->name->data, dicts[i]) == 0) {
                t->how = (uint8_t)(HOW_MOD_PARAMS_DICT + i);
                return;
            }
        static const char *const hooks[] = {
#define X(e, s) s,
            NN_HOOK_DICTS(X)
#undef X
        };
        for (int i = 0; i < NN_HOOKS_COUNT; i++)
            if (strcmp(t->name->data, hooks[i]) == 0) {
                t->how = HOW_MOD_HOOKS;
                t->field = (int16_t)i;
                return;
            }
        if (!val_is_null(descr) && vm_is_data_descriptor(vm, descr)) return;
        DictObj *inst = *obj_dict_slot(obj.as.o);
        if (inst && !val_is_null(dict_get_str(inst, t->name))) {
            t->how = HOW_INSTANCE;
            return;
        }
        if (m->parameters && !val_is_null(dict_get_str(m->parameters, t->name))) t->how = HOW_MOD_PARAMS;
        else if (m->buffers && !val_is_null(dict_get_str(m->buffers, t->name))) t->how = HOW_MOD_BUFFERS;
        else if (m->modules && !val_is_null(dict_get_str(m->modules, t->name))) t->how = HOW_MOD_MODULES;
        return;
    }
    if (type->layout != OBJ_LAYOUT_INSTANCE || !type->dict_offset) return;
    if (!val_is_null(descr) && vm_is_data_descriptor(vm, descr)) return;
    DictObj *inst = *obj_dict_slot(obj.as.o);
    if (inst && !val_is_null(dict_get_str(inst, t->name))) t->how = HOW_INSTANCE;
}

void guard_program_build(VM *vm, Frame *f, CacheEntry *e) {
    ProgramBuilder bd = {e, 0, NULL, NULL, NULL, 0};
    size_t n_sources = 0;
    for (int32_t i = 0; i < e->n_guards; i++)
        for (int k = 0; k < 2; k++)
            for (const Source *s = k ? e->guards[i].other : e->guards[i].source; s; s = s->base) n_sources++;
    uint32_t size = 16;
    while (size < 2 * n_sources) size *= 2;
    bd.seen_mask = size - 1;
    bd.seen_key = trace_arena_alloc(&e->arena, sizeof(Source *) * size);
    bd.seen_step = trace_arena_alloc(&e->arena, sizeof(int32_t) * size);
    e->steps = NULL;
    e->n_steps = 0;
    e->src_step = trace_arena_alloc(&e->arena, sizeof(int32_t) * (size_t)(e->n_guards + 1));
    e->other_step = trace_arena_alloc(&e->arena, sizeof(int32_t) * (size_t)(e->n_guards + 1));
    for (int32_t i = 0; i < e->n_guards; i++) {
        e->src_step[i] = intern_source(&bd, e->guards[i].source);
        e->other_step[i] = intern_source(&bd, e->guards[i].other);
    }
    /* the aliasing guards: every pair among the tensors they name (tracer_add_input guards each
     * new input against all earlier ones), checked as one set */
    uint8_t *skip = trace_arena_alloc(&e->arena, (size_t)(e->n_guards + 1));
    e->passed = trace_arena_alloc(&e->arena, sizeof(DictMemo) * (size_t)(e->n_guards + 1));
    e->distinct = trace_arena_alloc(&e->arena, sizeof(int32_t) * (size_t)(2 * e->n_guards + 1));
    e->n_distinct = 0;
    int32_t pairs = 0;
    for (int32_t i = 0; i < e->n_guards; i++) {
        if (e->guards[i].kind != G_NOT_SAME || e->src_step[i] < 0 || e->other_step[i] < 0) continue;
        int32_t ab[2] = {e->src_step[i], e->other_step[i]};
        for (int k = 0; k < 2; k++) {
            bool seen = false;
            for (int32_t j = 0; j < e->n_distinct && !seen; j++) seen = e->distinct[j] == ab[k];
            if (!seen) e->distinct[e->n_distinct++] = ab[k];
        }
        pairs++;
    }
    /* only when the guarded pairs are all the pairs of the set (else check them one by one) */
    if (pairs == e->n_distinct * (e->n_distinct - 1) / 2) {
        for (int32_t i = 0; i < e->n_guards; i++)
            skip[i] = e->guards[i].kind == G_NOT_SAME && e->src_step[i] >= 0 && e->other_step[i] >= 0;
    } else {
        e->n_distinct = 0;
    }
    e->ops = trace_arena_alloc(&e->arena, sizeof(GuardOp) * (size_t)(e->n_guards + 1));
    e->n_ops = 0;
    for (int32_t i = 0; i < e->n_guards; i++)
        if (!skip[i])
            e->ops[e->n_ops++] = (GuardOp){.kind = (int32_t)e->guards[i].kind, .guard = i, .a = e->src_step[i], .b = e->other_step[i]};
    /* specialise attribute reads on the values they had when compiled */
    for (int32_t i = 0; i < e->n_steps; i++) {
        GuardStep *t = &e->steps[i];
        if (t->kind != SRC_ATTR || t->base < 0) continue;
        specialise_attr(vm, t, source_resolve_static(vm, f, bd.from[i]->base));
    }
}

/* d[name], memoised on d's version (see DictMemo): unchanged since the last read, the same value */
static inline Value memo_get(DictMemo *m, DictObj *d, StrObj *name) {
    if (d == m->dict && d->version == m->version) return m->v;
    Value v = dict_get_str(d, name);
    m->dict = d;
    m->version = d->version;
    m->v = v;
    return v;
}

static inline Value attr_step(VM *vm, GuardStep *t, Value obj) {
    /* the fast places hold only for the exact type the step was specialised on */
    if (obj.tag != VAL_OBJ || obj.as.o->type != t->base_type) return obj.tag == VAL_OBJ ? trace_static_getattr(vm, obj, t->name) : val_null();
    switch (t->how) {
    case HOW_MODULE: return memo_get(&t->memo, ((ModuleObj *)obj.as.o)->dict, t->name);
    case HOW_MOD_PARAMS_DICT: case HOW_MOD_BUFFERS_DICT: case HOW_MOD_MODULES_DICT: {
        NnModuleObj *m = (NnModuleObj *)obj.as.o;
        DictObj *d = t->how == HOW_MOD_PARAMS_DICT ? m->parameters : t->how == HOW_MOD_BUFFERS_DICT ? m->buffers : m->modules;
        return d ? val_obj(d) : val_null();
    }
    case HOW_MOD_PARAMS: case HOW_MOD_BUFFERS: case HOW_MOD_MODULES: case HOW_MOD_HOOKS: {
        NnModuleObj *m = (NnModuleObj *)obj.as.o;
        if (t->how == HOW_MOD_HOOKS) {
            DictObj *d = m->hooks[t->field];
            return d ? val_obj(d) : val_null();
        }
        DictObj *d = t->how == HOW_MOD_PARAMS ? m->parameters : t->how == HOW_MOD_BUFFERS ? m->buffers : m->modules;
        Value v = d ? memo_get(&t->memo, d, t->name) : val_null();
        if (!val_is_null(v)) return v;
        break;
    }
    case HOW_INSTANCE: {
        DictObj *d = *obj_dict_slot(obj.as.o);
        Value v = d ? memo_get(&t->memo, d, t->name) : val_null();
        if (!val_is_null(v)) return v;
        break;
    }
    default: break;
    }
    return trace_static_getattr(vm, obj, t->name);
}

static Value run_step(VM *vm, Frame *f, GuardStep *t, const Value *vals) {
    switch (t->kind) {
    case SRC_LOCAL: return t->index >= 0 && t->index < f->code->nlocalsplus ? f->localsplus[t->index] : val_null();
    case SRC_GLOBAL: {
        Value v = memo_get(&t->memo, f->globals, t->name);
        if (val_is_null(v) && f->builtins) v = memo_get(&t->memo_builtins, f->builtins, t->name);
        return v;
    }
    case SRC_OBJECT: return t->key;
    case SRC_ATTR: {
        Value b = vals[t->base];
        return val_is_null(b) ? b : attr_step(vm, t, b);
    }
    case SRC_ITEM:
        if (t->key_str) {
            /* a dict entry by name: another module's global, sys.modules[name], a dict's item */
            Value b = vals[t->base];
            if (b.tag != VAL_OBJ || b.as.o->type->layout != OBJ_LAYOUT_DICT) return val_null();
            return memo_get(&t->memo, (DictObj *)b.as.o, t->key_str);
        }
        /* fall through */
    default: {
        /* other items and closure cells: the general resolver on a one-step source */
        Source s = {.kind = (SourceKind)t->kind, .index = t->index, .name = t->name, .key = t->key};
        if (t->kind == SRC_ITEM) {
            Value b = vals[t->base];
            if (b.tag != VAL_OBJ) return val_null();
            Source base = {.kind = SRC_OBJECT, .key = b};
            s.base = &base;
            return source_resolve_static(vm, f, &s);
        }
        return source_resolve_static(vm, f, &s);
    }
    }
}

/* A DICT_KEYS guard on the dict state it last passed on passes again (its check reads only the
 * dict's keys and order, which that state fixes); otherwise the full check, remembered if it passes. */
static bool dict_keys_check(VM *vm, const Guard *g, DictMemo *passed, Value v) {
    if (v.tag == VAL_OBJ && v.as.o->type->layout == OBJ_LAYOUT_DICT && (DictObj *)v.as.o == passed->dict &&
        passed->dict->version == passed->version)
        return true;
    if (!guard_check_values(vm, g, v, val_null())) return false;
    DictObj *d = (DictObj *)v.as.o;
    passed->dict = d;
    passed->version = d->version;
    return true;
}

bool guard_program_check(VM *vm, Frame *f, CacheEntry *e) {
    if (!e->src_step || e->n_steps > 256) {
        for (int32_t i = 0; i < e->n_guards; i++)
            if (!guard_check(vm, f, &e->guards[i])) return false;
        return true;
    }
    Value vals[256];
    for (int32_t i = 0; i < e->n_steps; i++) vals[i] = run_step(vm, f, &e->steps[i], vals);
    for (int32_t i = 0; i < e->n_distinct; i++) {
        Value a = vals[e->distinct[i]];
        if (val_is_null(a)) return false;
        for (int32_t j = 0; j < i; j++)
            if (val_identical(a, vals[e->distinct[j]])) return false;
    }
    for (int32_t i = 0; i < e->n_ops; i++) {
        const GuardOp *op = &e->ops[i];
        const Guard *g = &e->guards[op->guard];
        Value v = op->a >= 0 ? vals[op->a] : val_null();
        switch (op->kind) {
        case G_ID:   /* the most common guard, inline */
            if (val_is_null(v) || !val_identical(v, g->expected)) return false;
            break;
        case G_DICT_KEYS:
            if (!dict_keys_check(vm, g, &e->passed[op->guard], v)) return false;
            break;
        case G_GRAD_MODE: case G_SAVED_HOOKS: case G_DEFAULT_DTYPE: case G_AUTOCAST: case G_BACKEND:
            if (guard_check_ambient(vm, g) != 1) return false;
            break;
        default:
            if (!guard_check_values(vm, g, v, op->b >= 0 ? vals[op->b] : val_null())) return false;
        }
    }
    return true;
}
