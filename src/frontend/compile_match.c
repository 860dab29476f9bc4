/* src/frontend/compile_match.c — the match statement (PEP 634), compiled as CPython 3.11's
 * compile.c does: the subject stays on the stack while each case's pattern runs; a pattern
 * consumes its subject and jumps to a "fail_pop" label that pops what it left on the
 * stack when it does not match; captured values stay on the stack, beneath what the
 * pattern still needs, until the whole pattern has matched, and are stored then (so a
 * failed case binds nothing).  The patterns' errors were reported by parse_check.c, which
 * walks them in this order; here they are invariants.
 *
 * Stack conventions (CPython's pattern_context): on_top counts the values above the
 * current subject that the pattern still needs (popped on failure); stores lists the names
 * captured so far, their values lying beneath those, stores[0] nearest the top. */
#include <stdlib.h>
#include <string.h>

#include "src/frontend/compile_internal.h"
#include "vm/gc.h"
#include "vm/seq.h"

typedef struct PatternCtx {
    const char **stores;
    size_t nstores, stores_cap;
    bool allow_irrefutable;
    Label *fail_pop;      /* jumping to fail_pop[i] pops i values, then continues at fail_pop[0] */
    size_t fail_pop_size;
    size_t on_top;
} PatternCtx;

static void *xrealloc(Compiler *c, void *p, size_t size) {
    void *n = realloc(p, size);
    if (!n) {
        vm_no_memory(c->vm);
        comp_fail(c);
    }
    return n;
}

static bool is_wildcard(const AstPattern *p) {
    return p->kind == AST_PAT_MATCH_AS && !p->v.MatchAs.pattern && !p->v.MatchAs.name;
}

static bool is_wildcard_star(const AstPattern *p) { return p->kind == AST_PAT_MATCH_STAR && !p->v.MatchStar.name; }

static void set_loc(Compiler *c, const AstPattern *p) { comp_set_loc(c, p->lineno, p->col_offset); }

/* ensure_fail_pop */
static void ensure_fail_pop(Compiler *c, PatternCtx *pc, size_t n) {
    size_t size = n + 1;
    if (size <= pc->fail_pop_size) return;
    pc->fail_pop = xrealloc(c, pc->fail_pop, size * sizeof *pc->fail_pop);
    while (pc->fail_pop_size < size) pc->fail_pop[pc->fail_pop_size++] = comp_label(c);
}

/* jump_to_fail_pop: the values on top and the captures so far are popped on failure */
static void jump_to_fail_pop(Compiler *c, PatternCtx *pc, Opcode op) {
    size_t pops = pc->on_top + pc->nstores;
    ensure_fail_pop(c, pc, pops);
    comp_emit_jump(c, op, pc->fail_pop[pops]);
}

/* emit_and_reset_fail_pop */
static void emit_and_reset_fail_pop(Compiler *c, PatternCtx *pc) {
    if (!pc->fail_pop_size) return;
    while (--pc->fail_pop_size) {
        comp_bind(c, pc->fail_pop[pc->fail_pop_size]);
        comp_emit(c, OP_POP_TOP, 0);
    }
    comp_bind(c, pc->fail_pop[0]);
    free(pc->fail_pop);
    pc->fail_pop = NULL;
}

/* pattern_helper_rotate: TOS moves count - 1 places down (3.10's ROT_N) */
static void rotate(Compiler *c, size_t count) {
    while (count > 1) comp_emit(c, OP_SWAP, (uint32_t)count--);
}

static void push_store(Compiler *c, PatternCtx *pc, const char *name) {
    if (pc->nstores == pc->stores_cap) {
        pc->stores_cap = pc->stores_cap ? pc->stores_cap * 2 : 8;
        pc->stores = xrealloc(c, pc->stores, pc->stores_cap * sizeof *pc->stores);
    }
    pc->stores[pc->nstores++] = name;
}

/* pattern_helper_store_name: keep the value, beneath what the pattern still needs */
static void store_name(Compiler *c, const char *name, PatternCtx *pc) {
    if (!name) {
        comp_emit(c, OP_POP_TOP, 0);
        return;
    }
    rotate(c, pc->on_top + pc->nstores + 1);
    push_store(c, pc, name);
}

static void comp_pattern(Compiler *c, const AstPattern *p, PatternCtx *pc);

/* compiler_pattern_subpattern */
static void subpattern(Compiler *c, const AstPattern *p, PatternCtx *pc) {
    bool saved = pc->allow_irrefutable;
    pc->allow_irrefutable = true;
    comp_pattern(c, p, pc);
    pc->allow_irrefutable = saved;
}

static void load_int(Compiler *c, int64_t n) { comp_emit(c, OP_LOAD_CONST, comp_const(c, val_int(n))); }

/* ---- sequences ---- */

/* pattern_helper_sequence_unpack: UNPACK_SEQUENCE / UNPACK_EX, then each item */
static void sequence_unpack(Compiler *c, const AstPatternSeq *ps, size_t star, PatternCtx *pc) {
    size_t n = ps->count;
    if (star < n) comp_emit(c, OP_UNPACK_EX, (uint32_t)(star | ((n - star - 1) << 8)));
    else comp_emit(c, OP_UNPACK_SEQUENCE, (uint32_t)n);
    pc->on_top += n;
    for (size_t i = 0; i < n; i++) {
        pc->on_top--;
        subpattern(c, ps->items[i], pc);
    }
}

/* pattern_helper_sequence_subscr: [a, *_, z] indexes the subject instead of unpacking it */
static void sequence_subscr(Compiler *c, const AstPatternSeq *ps, size_t star, PatternCtx *pc) {
    pc->on_top++;
    size_t n = ps->count;
    for (size_t i = 0; i < n; i++) {
        const AstPattern *p = ps->items[i];
        if (is_wildcard(p) || i == star) continue;
        comp_emit(c, OP_COPY, 1);
        if (i < star) {
            load_int(c, (int64_t)i);
        } else { /* the subject may not support negative indices */
            comp_emit(c, OP_GET_LEN, 0);
            load_int(c, (int64_t)(n - i));
            comp_emit(c, OP_BINARY_OP, BINOP_SUBTRACT);
        }
        comp_emit(c, OP_BINARY_SUBSCR, 0);
        subpattern(c, p, pc);
    }
    pc->on_top--;
    comp_emit(c, OP_POP_TOP, 0);
}

static void pattern_sequence(Compiler *c, const AstPattern *p, PatternCtx *pc) {
    const AstPatternSeq *ps = &p->v.MatchSequence.patterns;
    size_t n = ps->count, star = n;
    bool only_wildcard = true, star_wildcard = false;
    for (size_t i = 0; i < n; i++) {
        const AstPattern *sub = ps->items[i];
        if (sub->kind == AST_PAT_MATCH_STAR) {
            star_wildcard = is_wildcard_star(sub);
            only_wildcard &= star_wildcard;
            star = i;
            continue;
        }
        only_wildcard &= is_wildcard(sub);
    }
    pc->on_top++; /* the subject stays for the type and length checks */
    comp_emit(c, OP_MATCH_SEQUENCE, 0);
    jump_to_fail_pop(c, pc, OP_POP_JUMP_IF_FALSE);
    if (star == n) { /* len(subject) == n */
        comp_emit(c, OP_GET_LEN, 0);
        load_int(c, (int64_t)n);
        comp_emit(c, OP_COMPARE_OP, CMP_EQ);
        jump_to_fail_pop(c, pc, OP_POP_JUMP_IF_FALSE);
    } else if (n > 1) { /* len(subject) >= n - 1 */
        comp_emit(c, OP_GET_LEN, 0);
        load_int(c, (int64_t)(n - 1));
        comp_emit(c, OP_COMPARE_OP, CMP_GE);
        jump_to_fail_pop(c, pc, OP_POP_JUMP_IF_FALSE);
    }
    pc->on_top--;
    if (only_wildcard) comp_emit(c, OP_POP_TOP, 0); /* [] / [_, _] / [*_] / [_, *_] */
    else if (star_wildcard) sequence_subscr(c, ps, star, pc);
    else sequence_unpack(c, ps, star, pc);
}

/* ---- mappings ---- */

static void pattern_mapping(Compiler *c, const AstPattern *p, PatternCtx *pc) {
    const AstExprSeq *keys = &p->v.MatchMapping.keys;
    const AstPatternSeq *ps = &p->v.MatchMapping.patterns;
    const char *rest = p->v.MatchMapping.rest;
    size_t size = keys->count;
    pc->on_top++; /* the subject stays for the type and length checks */
    comp_emit(c, OP_MATCH_MAPPING, 0);
    jump_to_fail_pop(c, pc, OP_POP_JUMP_IF_FALSE);
    if (!size && !rest) { /* {} */
        pc->on_top--;
        comp_emit(c, OP_POP_TOP, 0);
        return;
    }
    if (size) { /* len(subject) >= len(keys) */
        comp_emit(c, OP_GET_LEN, 0);
        load_int(c, (int64_t)size);
        comp_emit(c, OP_COMPARE_OP, CMP_GE);
        jump_to_fail_pop(c, pc, OP_POP_JUMP_IF_FALSE);
    }
    for (size_t i = 0; i < size; i++) comp_expr(c, keys->items[i]);
    set_loc(c, p);
    comp_emit(c, OP_BUILD_TUPLE, (uint32_t)size);
    comp_emit(c, OP_MATCH_KEYS, 0);
    /* a tuple of keys and a tuple of values (or None) on top of the subject */
    pc->on_top += 2;
    comp_emit(c, OP_COPY, 1);
    comp_emit(c, OP_LOAD_CONST, comp_const(c, val_none()));
    comp_emit(c, OP_IS_OP, 1);
    jump_to_fail_pop(c, pc, OP_POP_JUMP_IF_FALSE);
    comp_emit(c, OP_UNPACK_SEQUENCE, (uint32_t)size);
    pc->on_top += size - 1;
    for (size_t i = 0; i < size; i++) {
        pc->on_top--;
        subpattern(c, ps->items[i], pc);
    }
    pc->on_top -= 2; /* matched: what follows consumes the keys and the subject */
    if (rest) {
        /* rest = dict(subject); for key in keys: del rest[key] */
        comp_emit(c, OP_BUILD_MAP, 0);
        comp_emit(c, OP_SWAP, 3);
        comp_emit(c, OP_DICT_UPDATE, 2);
        comp_emit(c, OP_UNPACK_SEQUENCE, (uint32_t)size);
        for (size_t n = size; n; n--) {
            comp_emit(c, OP_COPY, (uint32_t)(1 + n));
            comp_emit(c, OP_SWAP, 2);
            comp_emit(c, OP_DELETE_SUBSCR, 0);
        }
        store_name(c, rest, pc);
    } else {
        comp_emit(c, OP_POP_TOP, 0); /* the keys */
        comp_emit(c, OP_POP_TOP, 0); /* the subject */
    }
}

/* ---- classes ---- */

static void pattern_class(Compiler *c, const AstPattern *p, PatternCtx *pc) {
    const AstPatternSeq *pos = &p->v.MatchClass.patterns, *kps = &p->v.MatchClass.kwd_patterns;
    const AstIdentSeq *attrs = &p->v.MatchClass.kwd_attrs;
    size_t nargs = pos->count, nattrs = attrs->count;
    comp_expr(c, p->v.MatchClass.cls);
    set_loc(c, p);
    TupleObj *names = tuple_new(c->vm, (int64_t)nattrs);
    if (!names) comp_fail(c);
    vm_push_root(c->vm, val_obj(names));
    for (size_t i = 0; i < nattrs; i++) {
        StrObj *s = vm_intern_str(c->vm, attrs->items[i]);
        if (!s) comp_fail(c);
        names->items[i] = val_obj(s);
    }
    comp_emit(c, OP_LOAD_CONST, comp_const(c, val_obj(names)));
    vm_pop_root(c->vm);
    comp_emit(c, OP_MATCH_CLASS, (uint32_t)nargs);
    comp_emit(c, OP_COPY, 1);
    comp_emit(c, OP_LOAD_CONST, comp_const(c, val_none()));
    comp_emit(c, OP_IS_OP, 1);
    /* a tuple of the nargs + nattrs attributes (or None) */
    pc->on_top++;
    jump_to_fail_pop(c, pc, OP_POP_JUMP_IF_FALSE);
    comp_emit(c, OP_UNPACK_SEQUENCE, (uint32_t)(nargs + nattrs));
    pc->on_top += nargs + nattrs - 1;
    for (size_t i = 0; i < nargs + nattrs; i++) {
        pc->on_top--;
        const AstPattern *sub = i < nargs ? pos->items[i] : kps->items[i - nargs];
        if (is_wildcard(sub)) {
            comp_emit(c, OP_POP_TOP, 0);
            continue;
        }
        subpattern(c, sub, pc);
    }
}

/* ---- alternatives ---- */

static size_t store_index(const PatternCtx *pc, const char *name) {
    for (size_t i = 0; i < pc->nstores; i++)
        if (strcmp(pc->stores[i], name) == 0) return i;
    EM_UNREACHABLE(); /* parse_check: every alternative binds the same names */
}

static void pattern_or(Compiler *c, const AstPattern *p, PatternCtx *pc) {
    Label end = comp_label(c);
    const AstPatternSeq *alts = &p->v.MatchOr.patterns;
    PatternCtx outer = *pc;
    const char **control = NULL;
    size_t ncontrol = 0;
    for (size_t i = 0; i < alts->count; i++) {
        const AstPattern *alt = alts->items[i];
        set_loc(c, alt);
        PatternCtx a = {.allow_irrefutable = i + 1 == alts->count && outer.allow_irrefutable};
        comp_emit(c, OP_COPY, 1);
        comp_pattern(c, alt, &a);
        if (i == 0) {
            /* the first alternative's order of names: the others are rotated to match it */
            control = a.stores;
            ncontrol = a.nstores;
            a.stores = NULL;
        } else {
            EM_ASSERT(a.nstores == ncontrol, "compiler: alternatives bind different names");
            for (size_t icontrol = ncontrol; icontrol-- > 0;) {
                size_t istores = store_index(&a, control[icontrol]);
                if (istores == icontrol) continue;
                /* rotate stores[:istores + 1] to sit just above position icontrol, and the
                 * values on the stack likewise */
                size_t rotations = istores + 1;
                const char *moved[rotations];
                memcpy(moved, a.stores, rotations * sizeof *moved);
                memmove(a.stores, a.stores + rotations, (icontrol + 1 - rotations) * sizeof *a.stores);
                memcpy(a.stores + (icontrol + 1 - rotations), moved, rotations * sizeof *moved);
                while (rotations--) rotate(c, icontrol + 1);
            }
        }
        comp_emit_jump(c, OP_JUMP, end);
        emit_and_reset_fail_pop(c, &a);
        free(a.stores);
    }
    /* no alternative matched: pop the subject, fail */
    comp_emit(c, OP_POP_TOP, 0);
    jump_to_fail_pop(c, pc, OP_JUMP);
    comp_bind(c, end);
    /* each capture goes beneath the subject, what is on top, and the earlier captures */
    size_t nrots = ncontrol + 1 + pc->on_top + pc->nstores;
    for (size_t i = 0; i < ncontrol; i++) {
        rotate(c, nrots);
        push_store(c, pc, control[i]);
    }
    free(control);
    comp_emit(c, OP_POP_TOP, 0); /* the subject */
}

/* ---- the dispatch ---- */

static void comp_pattern(Compiler *c, const AstPattern *p, PatternCtx *pc) {
    set_loc(c, p);
    switch (p->kind) {
    case AST_PAT_MATCH_VALUE:
        comp_expr(c, p->v.MatchValue.value);
        set_loc(c, p);
        comp_emit(c, OP_COMPARE_OP, CMP_EQ);
        jump_to_fail_pop(c, pc, OP_POP_JUMP_IF_FALSE);
        return;
    case AST_PAT_MATCH_SINGLETON: {
        const AstConstant *k = &p->v.MatchSingleton.value;
        Value v = k->type == AST_CONST_NONE ? val_none() : val_bool(k->b);
        comp_emit(c, OP_LOAD_CONST, comp_const(c, v));
        comp_emit(c, OP_IS_OP, 0);
        jump_to_fail_pop(c, pc, OP_POP_JUMP_IF_FALSE);
        return;
    }
    case AST_PAT_MATCH_SEQUENCE: pattern_sequence(c, p, pc); return;
    case AST_PAT_MATCH_MAPPING: pattern_mapping(c, p, pc); return;
    case AST_PAT_MATCH_CLASS: pattern_class(c, p, pc); return;
    case AST_PAT_MATCH_STAR: store_name(c, p->v.MatchStar.name, pc); return;
    case AST_PAT_MATCH_AS:
        if (!p->v.MatchAs.pattern) { /* an irrefutable capture or wildcard */
            store_name(c, p->v.MatchAs.name, pc);
            return;
        }
        pc->on_top++; /* a copy to store once the sub-pattern matched */
        comp_emit(c, OP_COPY, 1);
        comp_pattern(c, p->v.MatchAs.pattern, pc);
        pc->on_top--;
        store_name(c, p->v.MatchAs.name, pc);
        return;
    case AST_PAT_MATCH_OR: pattern_or(c, p, pc); return;
    case AST_PAT__COUNT: break;
    }
    EM_UNREACHABLE();
}

/* compiler_match_inner */
void comp_match(Compiler *c, const AstStmt *s) {
    comp_expr(c, s->v.Match.subject);
    Label end = comp_label(c);
    const AstMatchCaseSeq *cases = &s->v.Match.cases;
    size_t n = cases->count;
    bool has_default = n > 1 && is_wildcard(cases->items[n - 1]->pattern);
    for (size_t i = 0; i < n - has_default; i++) {
        const AstMatchCase *m = cases->items[i];
        set_loc(c, m->pattern);
        bool last = i == n - has_default - 1;
        if (!last) comp_emit(c, OP_COPY, 1); /* the next case needs the subject too */
        PatternCtx pc = {.allow_irrefutable = m->guard != NULL || i + 1 == n};
        comp_pattern(c, m->pattern, &pc);
        EM_ASSERT(pc.on_top == 0, "compiler: pattern left values on top");
        for (size_t k = 0; k < pc.nstores; k++) comp_nameop(c, pc.stores[k], AST_STORE);
        free(pc.stores);
        if (m->guard) {
            ensure_fail_pop(c, &pc, 0);
            comp_jump_if(c, m->guard, pc.fail_pop[0], false);
        }
        if (!last) comp_emit(c, OP_POP_TOP, 0); /* matched: the subject is done with */
        comp_stmts(c, &m->body);
        comp_emit_jump(c, OP_JUMP, end);
        /* a failed pattern's cleanup belongs to the pattern's line, not the body's */
        set_loc(c, m->pattern);
        emit_and_reset_fail_pop(c, &pc);
    }
    if (has_default) { /* a trailing `case _:` compiles no pattern */
        const AstMatchCase *m = cases->items[n - 1];
        set_loc(c, m->pattern);
        comp_emit(c, OP_NOP, 0); /* line coverage for the default case */
        if (m->guard) comp_jump_if(c, m->guard, end, false);
        comp_stmts(c, &m->body);
    }
    comp_bind(c, end);
}
