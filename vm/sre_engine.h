/* vm/sre_engine.h — the _sre matching engine, instantiated once per character width by
 * vm/mod_sre.c (SRE_CHAR = uint8_t for bytes and ASCII/Latin-1 text, uint32_t for other
 * text; SRE(name) makes the per-width names).  It executes the code CPython's
 * re/_compiler.py emits, with CPython 3.11's semantics (Modules/_sre/sre_lib.h):
 *
 *   sre_X_match(state, code, toplevel)  anchored match at state->ptr; 1 found, 0 not, <0 error
 *   sre_X_search(state, code)           leftmost match from state->start
 *
 * Backtracking never recurses in C: every point the engine may come back to is a context
 * frame on state's data stack (a heap block that grows), and "calling" a sub-pattern pushes a
 * frame and jumps to `entrance`; returning pops it and jumps back to the label its `jump`
 * field names.  So a catastrophic pattern costs heap and time, never the C stack.
 *
 * Capture marks are saved on the same data stack around alternatives that may have to undo
 * them (BRANCH, REPEAT_ONE tails, MAX_UNTIL iterations, ASSERT_NOT, ...), only when a REPEAT
 * is active above (otherwise a failing alternative can leave marks that the next attempt
 * overwrites before anyone reads them), exactly as CPython does — group values after a match
 * depend on it. */

typedef struct {
    int64_t count;
    union {
        SreCode chr;
        SreRepeat *rep;
    } u;
    int lastmark;
    int lastindex;
    const SreCode *pattern;
    const SRE_CHAR *ptr;
    int toplevel;
    int jump;
    int64_t last_ctx_pos;
} SRE(ctx);

static int SRE(at)(SreState *state, const SRE_CHAR *ptr, SreCode at) {
    const SRE_CHAR *beg = (const SRE_CHAR *)state->beginning, *end = (const SRE_CHAR *)state->end;
    bool thisp, thatp;
    switch (at) {
    case SRE_AT_BEGINNING:
    case SRE_AT_BEGINNING_STRING: return ptr == beg;
    case SRE_AT_BEGINNING_LINE: return ptr == beg || sre_is_linebreak(ptr[-1]);
    case SRE_AT_END: return (end - ptr == 1 && sre_is_linebreak(ptr[0])) || ptr == end;
    case SRE_AT_END_LINE: return ptr == end || sre_is_linebreak(ptr[0]);
    case SRE_AT_END_STRING: return ptr == end;
    case SRE_AT_BOUNDARY:
    case SRE_AT_NON_BOUNDARY:
    case SRE_AT_LOC_BOUNDARY:
    case SRE_AT_LOC_NON_BOUNDARY:
    case SRE_AT_UNI_BOUNDARY:
    case SRE_AT_UNI_NON_BOUNDARY: {
        if (beg == end) return 0;
        bool (*word)(uint32_t) = at <= SRE_AT_NON_BOUNDARY ? sre_is_word
                                 : at <= SRE_AT_LOC_NON_BOUNDARY ? sre_loc_is_word : sre_uni_is_word;
        thatp = ptr > beg ? word(ptr[-1]) : false;
        thisp = ptr < end ? word(ptr[0]) : false;
        bool boundary = at == SRE_AT_BOUNDARY || at == SRE_AT_LOC_BOUNDARY || at == SRE_AT_UNI_BOUNDARY;
        return boundary ? thisp != thatp : thisp == thatp;
    }
    }
    return 0;
}

static int64_t SRE(match)(SreState *state, const SreCode *pattern, int toplevel);

static int64_t SRE(count)(SreState *state, const SreCode *pattern, int64_t maxcount) {
    const SRE_CHAR *ptr = (const SRE_CHAR *)state->ptr;
    const SRE_CHAR *end = (const SRE_CHAR *)state->end;
    if (maxcount < end - ptr && maxcount != SRE_MAXREPEAT) end = ptr + maxcount;
    SreCode chr;
    switch (pattern[0]) {
    case SRE_OP_IN:
        while (ptr < end && sre_charset(pattern + 2, *ptr)) ptr++;
        break;
    case SRE_OP_ANY:
        while (ptr < end && !sre_is_linebreak(*ptr)) ptr++;
        break;
    case SRE_OP_ANY_ALL:
        ptr = end;
        break;
    case SRE_OP_LITERAL:
        chr = pattern[1];
        if ((SreCode)(SRE_CHAR)chr == chr)   /* else the literal cannot occur at this width */
            while (ptr < end && *ptr == (SRE_CHAR)chr) ptr++;
        break;
    case SRE_OP_LITERAL_IGNORE:
        chr = pattern[1];
        while (ptr < end && sre_lower_ascii(*ptr) == chr) ptr++;
        break;
    case SRE_OP_LITERAL_UNI_IGNORE:
        chr = pattern[1];
        while (ptr < end && sre_lower_unicode(*ptr) == chr) ptr++;
        break;
    case SRE_OP_LITERAL_LOC_IGNORE:
        chr = pattern[1];
        while (ptr < end && sre_char_loc_ignore(chr, *ptr)) ptr++;
        break;
    case SRE_OP_NOT_LITERAL:
        chr = pattern[1];
        if ((SreCode)(SRE_CHAR)chr != chr) ptr = end;
        else
            while (ptr < end && *ptr != (SRE_CHAR)chr) ptr++;
        break;
    case SRE_OP_NOT_LITERAL_IGNORE:
        chr = pattern[1];
        while (ptr < end && sre_lower_ascii(*ptr) != chr) ptr++;
        break;
    case SRE_OP_NOT_LITERAL_UNI_IGNORE:
        chr = pattern[1];
        while (ptr < end && sre_lower_unicode(*ptr) != chr) ptr++;
        break;
    case SRE_OP_NOT_LITERAL_LOC_IGNORE:
        chr = pattern[1];
        while (ptr < end && !sre_char_loc_ignore(chr, *ptr)) ptr++;
        break;
    default: {
        /* a one-character item of another kind: run it as a sub-match per character */
        const SRE_CHAR *start = ptr;
        while ((const SRE_CHAR *)state->ptr < end) {
            int64_t i = SRE(match)(state, pattern, 0);
            if (i < 0) return i;
            if (!i) break;
        }
        return (const SRE_CHAR *)state->ptr - start;
    }
    }
    return ptr - (const SRE_CHAR *)state->ptr;
}

/* Growing the data stack moves it: every context pointer is re-derived from its offset. */
#define SRE_ALLOC_CTX(p)                                                          \
    do {                                                                          \
        alloc_pos = state->data_stack_base;                                       \
        if (sizeof(SRE(ctx)) > state->data_stack_size - alloc_pos) {              \
            if (sre_data_stack_grow(state, sizeof(SRE(ctx))) < 0) return SRE_ERROR_MEMORY; \
            if (ctx_pos != -1) ctx = (SRE(ctx) *)(state->data_stack + ctx_pos);   \
        }                                                                         \
        (p) = (SRE(ctx) *)(state->data_stack + alloc_pos);                        \
        state->data_stack_base += sizeof(SRE(ctx));                               \
    } while (0)

#define SRE_PUSH_BYTES(data, size)                                                \
    do {                                                                          \
        size_t size_ = (size);                                                    \
        if (size_ > state->data_stack_size - state->data_stack_base) {            \
            if (sre_data_stack_grow(state, size_) < 0) return SRE_ERROR_MEMORY;   \
            if (ctx_pos != -1) ctx = (SRE(ctx) *)(state->data_stack + ctx_pos);   \
        }                                                                         \
        memcpy(state->data_stack + state->data_stack_base, (data), size_);        \
        state->data_stack_base += size_;                                          \
    } while (0)

#define SRE_POP_BYTES(data, size, discard)                                        \
    do {                                                                          \
        size_t size_ = (size);                                                    \
        memcpy((void *)(data), state->data_stack + state->data_stack_base - size_, size_); \
        if (discard) state->data_stack_base -= size_;                             \
    } while (0)

#define LASTMARK_SAVE() (ctx->lastmark = state->lastmark, ctx->lastindex = state->lastindex)
#define LASTMARK_RESTORE() (state->lastmark = ctx->lastmark, state->lastindex = ctx->lastindex)
#define MARKS_SIZE(lm) ((size_t)((lm) + 1) * sizeof(void *))
#define MARK_PUSH(lm) do if ((lm) >= 0) SRE_PUSH_BYTES(state->mark, MARKS_SIZE(lm)); while (0)
#define MARK_POP(lm) do if ((lm) >= 0) SRE_POP_BYTES(state->mark, MARKS_SIZE(lm), 1); while (0)
#define MARK_POP_KEEP(lm) do if ((lm) >= 0) SRE_POP_BYTES(state->mark, MARKS_SIZE(lm), 0); while (0)
#define MARK_POP_DISCARD(lm) do if ((lm) >= 0) state->data_stack_base -= MARKS_SIZE(lm); while (0)

#define RETURN_FAILURE do { ret = 0; goto exit; } while (0)
#define RETURN_SUCCESS do { ret = 1; goto exit; } while (0)
#define RETURN_ON_ERROR(i) do { if ((i) < 0) return (i); } while (0)
#define RETURN_ON_SUCCESS(i) do { RETURN_ON_ERROR(i); if ((i) > 0) RETURN_SUCCESS; } while (0)
#define RETURN_ON_FAILURE(i) do { RETURN_ON_ERROR(i); if ((i) == 0) RETURN_FAILURE; } while (0)

/* "Call" nextpattern: save where we are, push a context, and restart at entrance; the
 * callee's exit comes back to `label` with ret set. */
#define DO_JUMPX(jumpvalue, label, nextpattern, toplevel_)                        \
    ctx->pattern = pattern;                                                       \
    ctx->ptr = ptr;                                                               \
    SRE_ALLOC_CTX(nextctx);                                                       \
    nextctx->pattern = (nextpattern);                                             \
    nextctx->toplevel = (toplevel_);                                              \
    nextctx->jump = (jumpvalue);                                                  \
    nextctx->last_ctx_pos = ctx_pos;                                              \
    pattern = nextctx->pattern;                                                   \
    ctx_pos = alloc_pos;                                                          \
    ctx = nextctx;                                                                \
    goto entrance;                                                                \
    label:                                                                        \
    pattern = ctx->pattern;                                                       \
    ptr = ctx->ptr;
#define DO_JUMP(jv, label, np) DO_JUMPX(jv, label, np, ctx->toplevel)
#define DO_JUMP0(jv, label, np) DO_JUMPX(jv, label, np, 0)

static int64_t SRE(match)(SreState *state, const SreCode *pattern, int toplevel) {
    const SRE_CHAR *end = (const SRE_CHAR *)state->end;
    const SRE_CHAR *ptr;
    int64_t alloc_pos, ctx_pos = -1;
    int64_t ret = 0;
    int jump;
    SRE(ctx) *ctx, *nextctx;

    SRE_ALLOC_CTX(ctx);
    ctx->last_ctx_pos = -1;
    ctx->jump = JUMP_NONE;
    ctx->toplevel = toplevel;
    ctx_pos = alloc_pos;

entrance:
    ptr = (const SRE_CHAR *)state->ptr;
    if (pattern[0] == SRE_OP_INFO) {
        /* <INFO> <1=skip> <2=flags> <3=min> ...: reject if too little text is left */
        if (pattern[3] && (uintptr_t)(end - ptr) < pattern[3]) RETURN_FAILURE;
        pattern += pattern[1] + 1;
    }

    for (;;) {
        switch (*pattern++) {

        case SRE_OP_MARK: {
            /* <MARK> <gid> */
            int i = (int)pattern[0];
            if (i & 1) state->lastindex = i / 2 + 1;
            if (i > state->lastmark) {
                /* marks skipped over were never set in this attempt */
                for (int j = state->lastmark + 1; j < i; j++) state->mark[j] = NULL;
                state->lastmark = i;
            }
            state->mark[i] = ptr;
            pattern++;
            break;
        }

        case SRE_OP_LITERAL:
            if (ptr >= end || (SreCode)ptr[0] != pattern[0]) RETURN_FAILURE;
            pattern++;
            ptr++;
            break;

        case SRE_OP_NOT_LITERAL:
            if (ptr >= end || (SreCode)ptr[0] == pattern[0]) RETURN_FAILURE;
            pattern++;
            ptr++;
            break;

        case SRE_OP_SUCCESS:
            if (ctx->toplevel && ((state->match_all && ptr != end) ||
                                  (state->must_advance && ptr == (const SRE_CHAR *)state->start)))
                RETURN_FAILURE;
            state->ptr = ptr;
            RETURN_SUCCESS;

        case SRE_OP_AT:
            if (!SRE(at)(state, ptr, *pattern)) RETURN_FAILURE;
            pattern++;
            break;

        case SRE_OP_CATEGORY:
            if (ptr >= end || !sre_category(pattern[0], ptr[0])) RETURN_FAILURE;
            pattern++;
            ptr++;
            break;

        case SRE_OP_ANY:
            if (ptr >= end || sre_is_linebreak(ptr[0])) RETURN_FAILURE;
            ptr++;
            break;

        case SRE_OP_ANY_ALL:
            if (ptr >= end) RETURN_FAILURE;
            ptr++;
            break;

        case SRE_OP_IN:
            /* <IN> <skip> <set> */
            if (ptr >= end || !sre_charset(pattern + 1, *ptr)) RETURN_FAILURE;
            pattern += pattern[0];
            ptr++;
            break;

        case SRE_OP_LITERAL_IGNORE:
            if (ptr >= end || sre_lower_ascii(*ptr) != *pattern) RETURN_FAILURE;
            pattern++;
            ptr++;
            break;

        case SRE_OP_LITERAL_UNI_IGNORE:
            if (ptr >= end || sre_lower_unicode(*ptr) != *pattern) RETURN_FAILURE;
            pattern++;
            ptr++;
            break;

        case SRE_OP_LITERAL_LOC_IGNORE:
            if (ptr >= end || !sre_char_loc_ignore(*pattern, *ptr)) RETURN_FAILURE;
            pattern++;
            ptr++;
            break;

        case SRE_OP_NOT_LITERAL_IGNORE:
            if (ptr >= end || sre_lower_ascii(*ptr) == *pattern) RETURN_FAILURE;
            pattern++;
            ptr++;
            break;

        case SRE_OP_NOT_LITERAL_UNI_IGNORE:
            if (ptr >= end || sre_lower_unicode(*ptr) == *pattern) RETURN_FAILURE;
            pattern++;
            ptr++;
            break;

        case SRE_OP_NOT_LITERAL_LOC_IGNORE:
            if (ptr >= end || sre_char_loc_ignore(*pattern, *ptr)) RETURN_FAILURE;
            pattern++;
            ptr++;
            break;

        case SRE_OP_IN_IGNORE:
            if (ptr >= end || !sre_charset(pattern + 1, sre_lower_ascii(*ptr))) RETURN_FAILURE;
            pattern += pattern[0];
            ptr++;
            break;

        case SRE_OP_IN_UNI_IGNORE:
            if (ptr >= end || !sre_charset(pattern + 1, sre_lower_unicode(*ptr))) RETURN_FAILURE;
            pattern += pattern[0];
            ptr++;
            break;

        case SRE_OP_IN_LOC_IGNORE:
            if (ptr >= end || !sre_charset_loc_ignore(pattern + 1, *ptr)) RETURN_FAILURE;
            pattern += pattern[0];
            ptr++;
            break;

        case SRE_OP_JUMP:
        case SRE_OP_INFO:
            /* <JUMP> <offset> */
            pattern += pattern[0];
            break;

        case SRE_OP_BRANCH:
            /* <BRANCH> <0=skip> code <JUMP> ... <NULL> */
            LASTMARK_SAVE();
            if (state->repeat) MARK_PUSH(ctx->lastmark);
            for (; pattern[0]; pattern += pattern[0]) {
                if (pattern[1] == SRE_OP_LITERAL && (ptr >= end || (SreCode)*ptr != pattern[2])) continue;
                if (pattern[1] == SRE_OP_IN && (ptr >= end || !sre_charset(pattern + 3, *ptr))) continue;
                state->ptr = ptr;
                DO_JUMP(JUMP_BRANCH, jump_branch, pattern + 1);
                if (ret) {
                    if (state->repeat) MARK_POP_DISCARD(ctx->lastmark);
                    RETURN_ON_ERROR(ret);
                    RETURN_SUCCESS;
                }
                if (state->repeat) MARK_POP_KEEP(ctx->lastmark);
                LASTMARK_RESTORE();
            }
            if (state->repeat) MARK_POP_DISCARD(ctx->lastmark);
            RETURN_FAILURE;

        case SRE_OP_REPEAT_ONE:
            /* <REPEAT_ONE> <skip> <1=min> <2=max> item <SUCCESS> tail: greedy repeat of a
             * one-character item, counted without backtracking points, then given back one
             * character at a time until the tail matches */
            if ((int64_t)pattern[1] > end - ptr) RETURN_FAILURE;
            state->ptr = ptr;
            ret = SRE(count)(state, pattern + 3, pattern[2]);
            RETURN_ON_ERROR(ret);
            ctx = (SRE(ctx) *)(state->data_stack + ctx_pos);
            ctx->count = ret;
            ptr += ctx->count;
            if (ctx->count < (int64_t)pattern[1]) RETURN_FAILURE;
            if (pattern[pattern[0]] == SRE_OP_SUCCESS && ptr == end &&
                !(ctx->toplevel && state->must_advance && ptr == (const SRE_CHAR *)state->start)) {
                state->ptr = ptr;   /* the tail is empty: done */
                RETURN_SUCCESS;
            }
            LASTMARK_SAVE();
            if (state->repeat) MARK_PUSH(ctx->lastmark);
            if (pattern[pattern[0]] == SRE_OP_LITERAL) {
                /* the tail starts with a literal: skip positions where it cannot match */
                ctx->u.chr = pattern[pattern[0] + 1];
                for (;;) {
                    while (ctx->count >= (int64_t)pattern[1] && (ptr >= end || *ptr != ctx->u.chr)) {
                        ptr--;
                        ctx->count--;
                    }
                    if (ctx->count < (int64_t)pattern[1]) break;
                    state->ptr = ptr;
                    DO_JUMP(JUMP_REPEAT_ONE_1, jump_repeat_one_1, pattern + pattern[0]);
                    if (ret) {
                        if (state->repeat) MARK_POP_DISCARD(ctx->lastmark);
                        RETURN_ON_ERROR(ret);
                        RETURN_SUCCESS;
                    }
                    if (state->repeat) MARK_POP_KEEP(ctx->lastmark);
                    LASTMARK_RESTORE();
                    ptr--;
                    ctx->count--;
                }
                if (state->repeat) MARK_POP_DISCARD(ctx->lastmark);
            } else {
                while (ctx->count >= (int64_t)pattern[1]) {
                    state->ptr = ptr;
                    DO_JUMP(JUMP_REPEAT_ONE_2, jump_repeat_one_2, pattern + pattern[0]);
                    if (ret) {
                        if (state->repeat) MARK_POP_DISCARD(ctx->lastmark);
                        RETURN_ON_ERROR(ret);
                        RETURN_SUCCESS;
                    }
                    if (state->repeat) MARK_POP_KEEP(ctx->lastmark);
                    LASTMARK_RESTORE();
                    ptr--;
                    ctx->count--;
                }
                if (state->repeat) MARK_POP_DISCARD(ctx->lastmark);
            }
            RETURN_FAILURE;

        case SRE_OP_MIN_REPEAT_ONE:
            /* <MIN_REPEAT_ONE> <skip> <1=min> <2=max> item <SUCCESS> tail: lazy version */
            if ((int64_t)pattern[1] > end - ptr) RETURN_FAILURE;
            state->ptr = ptr;
            if (pattern[1] == 0) {
                ctx->count = 0;
            } else {
                ret = SRE(count)(state, pattern + 3, pattern[1]);
                RETURN_ON_ERROR(ret);
                ctx = (SRE(ctx) *)(state->data_stack + ctx_pos);
                if (ret < (int64_t)pattern[1]) RETURN_FAILURE;
                ctx->count = ret;
                ptr += ctx->count;
            }
            if (pattern[pattern[0]] == SRE_OP_SUCCESS &&
                !(ctx->toplevel && ((state->match_all && ptr != end) ||
                                    (state->must_advance && ptr == (const SRE_CHAR *)state->start)))) {
                state->ptr = ptr;
                RETURN_SUCCESS;
            }
            LASTMARK_SAVE();
            if (state->repeat) MARK_PUSH(ctx->lastmark);
            while ((int64_t)pattern[2] == SRE_MAXREPEAT || ctx->count <= (int64_t)pattern[2]) {
                state->ptr = ptr;
                DO_JUMP(JUMP_MIN_REPEAT_ONE, jump_min_repeat_one, pattern + pattern[0]);
                if (ret) {
                    if (state->repeat) MARK_POP_DISCARD(ctx->lastmark);
                    RETURN_ON_ERROR(ret);
                    RETURN_SUCCESS;
                }
                if (state->repeat) MARK_POP_KEEP(ctx->lastmark);
                LASTMARK_RESTORE();
                state->ptr = ptr;
                ret = SRE(count)(state, pattern + 3, 1);
                RETURN_ON_ERROR(ret);
                ctx = (SRE(ctx) *)(state->data_stack + ctx_pos);
                if (ret == 0) break;
                ptr++;
                ctx->count++;
            }
            if (state->repeat) MARK_POP_DISCARD(ctx->lastmark);
            RETURN_FAILURE;

        case SRE_OP_POSSESSIVE_REPEAT_ONE:
            /* <POSSESSIVE_REPEAT_ONE> <skip> <1=min> <2=max> item <SUCCESS> tail */
            if ((int64_t)pattern[1] > end - ptr) RETURN_FAILURE;
            state->ptr = ptr;
            ret = SRE(count)(state, pattern + 3, pattern[2]);
            RETURN_ON_ERROR(ret);
            ctx = (SRE(ctx) *)(state->data_stack + ctx_pos);
            ctx->count = ret;
            ptr += ctx->count;
            if (ctx->count < (int64_t)pattern[1]) RETURN_FAILURE;
            pattern += pattern[0];
            if (*pattern == SRE_OP_SUCCESS && ptr == end &&
                !(ctx->toplevel && state->must_advance && ptr == (const SRE_CHAR *)state->start)) {
                state->ptr = ptr;
                RETURN_SUCCESS;
            }
            break;   /* the tail runs in this context: no way back into the repeat */

        case SRE_OP_REPEAT: {
            /* <REPEAT> <skip> <1=min> <2=max> <3=repeat_index> item <UNTIL> tail: install a
             * repeat record; MAX_UNTIL / MIN_UNTIL do the work */
            SreRepeat *rep = sre_repeat_new(state);
            if (!rep) return SRE_ERROR_MEMORY;
            ctx->u.rep = rep;
            rep->count = -1;
            rep->pattern = pattern;
            rep->prev = state->repeat;
            rep->last_ptr = NULL;
            state->repeat = rep;
            state->ptr = ptr;
            DO_JUMP(JUMP_REPEAT, jump_repeat, pattern + pattern[0]);
            state->repeat = ctx->u.rep->prev;
            sre_repeat_free(state, ctx->u.rep);
            if (ret) {
                RETURN_ON_ERROR(ret);
                RETURN_SUCCESS;
            }
            RETURN_FAILURE;
        }

        case SRE_OP_MAX_UNTIL:
            /* greedy: <REPEAT> <skip> <1=min> <2=max> item <MAX_UNTIL> tail */
            ctx->u.rep = state->repeat;
            if (!ctx->u.rep) return SRE_ERROR_STATE;
            state->ptr = ptr;
            ctx->count = ctx->u.rep->count + 1;
            if (ctx->count < (int64_t)ctx->u.rep->pattern[1]) {
                /* not enough matches yet */
                ctx->u.rep->count = ctx->count;
                DO_JUMP(JUMP_MAX_UNTIL_1, jump_max_until_1, ctx->u.rep->pattern + 3);
                if (ret) {
                    RETURN_ON_ERROR(ret);
                    RETURN_SUCCESS;
                }
                ctx->u.rep->count = ctx->count - 1;
                state->ptr = ptr;
                RETURN_FAILURE;
            }
            if ((ctx->count < (int64_t)ctx->u.rep->pattern[2] || ctx->u.rep->pattern[2] == SRE_MAXREPEAT) &&
                state->ptr != ctx->u.rep->last_ptr) {
                /* enough matches, but try one more item first */
                ctx->u.rep->count = ctx->count;
                LASTMARK_SAVE();
                MARK_PUSH(ctx->lastmark);
                /* zero-width match protection */
                SRE_PUSH_BYTES(&ctx->u.rep->last_ptr, sizeof(ctx->u.rep->last_ptr));
                ctx->u.rep->last_ptr = state->ptr;
                DO_JUMP(JUMP_MAX_UNTIL_2, jump_max_until_2, ctx->u.rep->pattern + 3);
                SRE_POP_BYTES(&ctx->u.rep->last_ptr, sizeof(ctx->u.rep->last_ptr), 1);
                if (ret) {
                    MARK_POP_DISCARD(ctx->lastmark);
                    RETURN_ON_ERROR(ret);
                    RETURN_SUCCESS;
                }
                MARK_POP(ctx->lastmark);
                LASTMARK_RESTORE();
                ctx->u.rep->count = ctx->count - 1;
                state->ptr = ptr;
            }
            /* no more items here: the tail must match */
            state->repeat = ctx->u.rep->prev;
            DO_JUMP(JUMP_MAX_UNTIL_3, jump_max_until_3, pattern);
            state->repeat = ctx->u.rep;
            RETURN_ON_SUCCESS(ret);
            state->ptr = ptr;
            RETURN_FAILURE;

        case SRE_OP_MIN_UNTIL: {
            /* lazy: <REPEAT> <skip> <1=min> <2=max> item <MIN_UNTIL> tail */
            ctx->u.rep = state->repeat;
            if (!ctx->u.rep) return SRE_ERROR_STATE;
            state->ptr = ptr;
            ctx->count = ctx->u.rep->count + 1;
            if (ctx->count < (int64_t)ctx->u.rep->pattern[1]) {
                ctx->u.rep->count = ctx->count;
                DO_JUMP(JUMP_MIN_UNTIL_1, jump_min_until_1, ctx->u.rep->pattern + 3);
                if (ret) {
                    RETURN_ON_ERROR(ret);
                    RETURN_SUCCESS;
                }
                ctx->u.rep->count = ctx->count - 1;
                state->ptr = ptr;
                RETURN_FAILURE;
            }
            /* see if the tail matches first */
            state->repeat = ctx->u.rep->prev;
            LASTMARK_SAVE();
            if (state->repeat) MARK_PUSH(ctx->lastmark);
            DO_JUMP(JUMP_MIN_UNTIL_2, jump_min_until_2, pattern);
            SreRepeat *repeat_of_tail = state->repeat;
            state->repeat = ctx->u.rep;
            if (ret) {
                if (repeat_of_tail) MARK_POP_DISCARD(ctx->lastmark);
                RETURN_ON_ERROR(ret);
                RETURN_SUCCESS;
            }
            if (repeat_of_tail) MARK_POP(ctx->lastmark);
            LASTMARK_RESTORE();
            state->ptr = ptr;
            if ((ctx->count >= (int64_t)ctx->u.rep->pattern[2] && ctx->u.rep->pattern[2] != SRE_MAXREPEAT) ||
                state->ptr == ctx->u.rep->last_ptr)
                RETURN_FAILURE;
            ctx->u.rep->count = ctx->count;
            SRE_PUSH_BYTES(&ctx->u.rep->last_ptr, sizeof(ctx->u.rep->last_ptr));
            ctx->u.rep->last_ptr = state->ptr;
            DO_JUMP(JUMP_MIN_UNTIL_3, jump_min_until_3, ctx->u.rep->pattern + 3);
            SRE_POP_BYTES(&ctx->u.rep->last_ptr, sizeof(ctx->u.rep->last_ptr), 1);
            if (ret) {
                RETURN_ON_ERROR(ret);
                RETURN_SUCCESS;
            }
            ctx->u.rep->count = ctx->count - 1;
            state->ptr = ptr;
            RETURN_FAILURE;
        }

        case SRE_OP_POSSESSIVE_REPEAT:
            /* <POSSESSIVE_REPEAT> <skip> <1=min> <2=max> pattern <SUCCESS> tail: each item is
             * matched in its own top context, so nothing inside can be backtracked into */
            state->ptr = ptr;
            ctx->count = 0;
            while (ctx->count < (int64_t)pattern[1]) {
                DO_JUMP0(JUMP_POSS_REPEAT_1, jump_poss_repeat_1, &pattern[3]);
                if (ret) {
                    RETURN_ON_ERROR(ret);
                    ctx->count++;
                } else {
                    state->ptr = ptr;
                    RETURN_FAILURE;
                }
            }
            /* ptr now holds the position before the last item, for zero-width protection */
            ptr = NULL;
            while ((ctx->count < (int64_t)pattern[2] || (int64_t)pattern[2] == SRE_MAXREPEAT) &&
                   state->ptr != ptr) {
                LASTMARK_SAVE();
                MARK_PUSH(ctx->lastmark);
                ptr = (const SRE_CHAR *)state->ptr;
                DO_JUMP0(JUMP_POSS_REPEAT_2, jump_poss_repeat_2, &pattern[3]);
                if (ret) {
                    MARK_POP_DISCARD(ctx->lastmark);
                    RETURN_ON_ERROR(ret);
                    ctx->count++;
                } else {
                    MARK_POP(ctx->lastmark);
                    LASTMARK_RESTORE();
                    state->ptr = ptr;
                    break;
                }
            }
            pattern += pattern[0] + 1;
            ptr = (const SRE_CHAR *)state->ptr;
            break;

        case SRE_OP_ATOMIC_GROUP:
            /* <ATOMIC_GROUP> <skip> pattern <SUCCESS> tail */
            state->ptr = ptr;
            DO_JUMP0(JUMP_ATOMIC_GROUP, jump_atomic_group, &pattern[1]);
            RETURN_ON_ERROR(ret);
            if (ret == 0) {
                state->ptr = ptr;
                RETURN_FAILURE;
            }
            pattern += pattern[0];
            ptr = (const SRE_CHAR *)state->ptr;
            break;

        case SRE_OP_GROUPREF:
        case SRE_OP_GROUPREF_IGNORE:
        case SRE_OP_GROUPREF_UNI_IGNORE:
        case SRE_OP_GROUPREF_LOC_IGNORE: {
            /* <GROUPREF> <group> */
            SreCode op = pattern[-1];
            int groupref = (int)pattern[0] * 2;
            if (groupref >= state->lastmark) RETURN_FAILURE;
            const SRE_CHAR *p = (const SRE_CHAR *)state->mark[groupref];
            const SRE_CHAR *e = (const SRE_CHAR *)state->mark[groupref + 1];
            if (!p || !e || e < p) RETURN_FAILURE;
            for (; p < e; p++, ptr++) {
                if (ptr >= end) RETURN_FAILURE;
                bool same;
                switch (op) {
                case SRE_OP_GROUPREF: same = *ptr == *p; break;
                case SRE_OP_GROUPREF_IGNORE: same = sre_lower_ascii(*ptr) == sre_lower_ascii(*p); break;
                case SRE_OP_GROUPREF_UNI_IGNORE: same = sre_lower_unicode(*ptr) == sre_lower_unicode(*p); break;
                default: same = sre_lower_locale(*ptr) == sre_lower_locale(*p); break;
                }
                if (!same) RETURN_FAILURE;
            }
            pattern++;
            break;
        }

        case SRE_OP_GROUPREF_EXISTS: {
            /* <GROUPREF_EXISTS> <group> <skip> codeyes <JUMP> codeno ... */
            int groupref = (int)pattern[0] * 2;
            if (groupref >= state->lastmark) {
                pattern += pattern[1];
                break;
            }
            const SRE_CHAR *p = (const SRE_CHAR *)state->mark[groupref];
            const SRE_CHAR *e = (const SRE_CHAR *)state->mark[groupref + 1];
            if (!p || !e || e < p) {
                pattern += pattern[1];
                break;
            }
            pattern += 2;
            break;
        }

        case SRE_OP_ASSERT:
            /* <ASSERT> <skip> <back> <pattern> */
            if (ptr - (const SRE_CHAR *)state->beginning < (int64_t)pattern[1]) RETURN_FAILURE;
            state->ptr = ptr - pattern[1];
            DO_JUMP0(JUMP_ASSERT, jump_assert, pattern + 2);
            RETURN_ON_FAILURE(ret);
            pattern += pattern[0];
            break;

        case SRE_OP_ASSERT_NOT:
            /* <ASSERT_NOT> <skip> <back> <pattern> */
            if (ptr - (const SRE_CHAR *)state->beginning >= (int64_t)pattern[1]) {
                state->ptr = ptr - pattern[1];
                LASTMARK_SAVE();
                if (state->repeat) MARK_PUSH(ctx->lastmark);
                DO_JUMP0(JUMP_ASSERT_NOT, jump_assert_not, pattern + 2);
                if (ret) {
                    if (state->repeat) MARK_POP_DISCARD(ctx->lastmark);
                    RETURN_ON_ERROR(ret);
                    RETURN_FAILURE;
                }
                if (state->repeat) MARK_POP(ctx->lastmark);
                LASTMARK_RESTORE();
            }
            pattern += pattern[0];
            break;

        case SRE_OP_FAILURE:
            RETURN_FAILURE;

        default:
            /* opcodes that only occur inside sets, or garbage */
            return SRE_ERROR_ILLEGAL;
        }
    }

exit:
    ctx_pos = ctx->last_ctx_pos;
    jump = ctx->jump;
    state->data_stack_base -= sizeof(SRE(ctx));
    if (ctx_pos == -1) return ret;
    ctx = (SRE(ctx) *)(state->data_stack + ctx_pos);
    switch (jump) {
    case JUMP_MAX_UNTIL_1: goto jump_max_until_1;
    case JUMP_MAX_UNTIL_2: goto jump_max_until_2;
    case JUMP_MAX_UNTIL_3: goto jump_max_until_3;
    case JUMP_MIN_UNTIL_1: goto jump_min_until_1;
    case JUMP_MIN_UNTIL_2: goto jump_min_until_2;
    case JUMP_MIN_UNTIL_3: goto jump_min_until_3;
    case JUMP_BRANCH: goto jump_branch;
    case JUMP_POSS_REPEAT_1: goto jump_poss_repeat_1;
    case JUMP_POSS_REPEAT_2: goto jump_poss_repeat_2;
    case JUMP_REPEAT: goto jump_repeat;
    case JUMP_REPEAT_ONE_1: goto jump_repeat_one_1;
    case JUMP_REPEAT_ONE_2: goto jump_repeat_one_2;
    case JUMP_MIN_REPEAT_ONE: goto jump_min_repeat_one;
    case JUMP_ATOMIC_GROUP: goto jump_atomic_group;
    case JUMP_ASSERT: goto jump_assert;
    case JUMP_ASSERT_NOT: goto jump_assert_not;
    default: break;
    }
    return ret;
}

#undef DO_JUMPX
#undef DO_JUMP
#undef DO_JUMP0
#undef SRE_ALLOC_CTX
#undef SRE_PUSH_BYTES
#undef SRE_POP_BYTES
#undef LASTMARK_SAVE
#undef LASTMARK_RESTORE
#undef MARKS_SIZE
#undef MARK_PUSH
#undef MARK_POP
#undef MARK_POP_KEEP
#undef MARK_POP_DISCARD
#undef RETURN_FAILURE
#undef RETURN_SUCCESS
#undef RETURN_ON_ERROR
#undef RETURN_ON_SUCCESS
#undef RETURN_ON_FAILURE

static int64_t SRE(search)(SreState *state, const SreCode *pattern) {
    const SRE_CHAR *ptr = (const SRE_CHAR *)state->start;
    const SRE_CHAR *end = (const SRE_CHAR *)state->end;
    int64_t status = 0, prefix_len = 0, prefix_skip = 0;
    const SreCode *prefix = NULL, *charset = NULL, *overlap = NULL;
    SreCode flags = 0;

    if (ptr > end) return 0;
    if (pattern[0] == SRE_OP_INFO) {
        /* <INFO> <1=skip> <2=flags> <3=min> <4=max> <5=prefix info> */
        flags = pattern[2];
        if (pattern[3] && end - ptr < (int64_t)pattern[3]) return 0;
        if (pattern[3] > 1) {
            /* leave at least one character so the literal scans below work */
            end -= pattern[3] - 1;
            if (end <= ptr) end = ptr;
        }
        if (flags & SRE_INFO_PREFIX) {
            /* <length> <skip> <prefix data> <overlap data> */
            prefix_len = pattern[5];
            prefix_skip = pattern[6];
            prefix = pattern + 7;
            overlap = prefix + prefix_len - 1;
        } else if (flags & SRE_INFO_CHARSET) {
            charset = pattern + 5;
        }
        pattern += 1 + pattern[1];
    }

    if (prefix_len == 1) {
        /* the pattern starts with a literal character */
        SRE_CHAR c = (SRE_CHAR)prefix[0];
        if ((SreCode)c != prefix[0]) return 0;
        end = (const SRE_CHAR *)state->end;
        state->must_advance = 0;
        while (ptr < end) {
            while (*ptr != c)
                if (++ptr >= end) return 0;
            state->start = ptr;
            state->ptr = ptr + prefix_skip;
            if (flags & SRE_INFO_LITERAL) return 1;
            status = SRE(match)(state, pattern + 2 * prefix_skip, 0);
            if (status != 0) return status;
            ++ptr;
            state->lastmark = state->lastindex = -1;
        }
        return 0;
    }

    if (prefix_len > 1) {
        /* a known literal prefix: KMP-style scan with the overlap table */
        end = (const SRE_CHAR *)state->end;
        if (prefix_len > end - ptr) return 0;
        for (int64_t i = 0; i < prefix_len; i++)
            if ((SreCode)(SRE_CHAR)prefix[i] != prefix[i]) return 0;
        while (ptr < end) {
            SRE_CHAR c = (SRE_CHAR)prefix[0];
            while (*ptr++ != c)
                if (ptr >= end) return 0;
            if (ptr >= end) return 0;
            int64_t i = 1;
            state->must_advance = 0;
            do {
                if (*ptr == (SRE_CHAR)prefix[i]) {
                    if (++i != prefix_len) {
                        if (++ptr >= end) return 0;
                        continue;
                    }
                    state->start = ptr - (prefix_len - 1);
                    state->ptr = ptr - (prefix_len - prefix_skip - 1);
                    if (flags & SRE_INFO_LITERAL) return 1;
                    status = SRE(match)(state, pattern + 2 * prefix_skip, 0);
                    if (status != 0) return status;
                    if (++ptr >= end) return 0;
                    state->lastmark = state->lastindex = -1;
                }
                i = overlap[i];
            } while (i != 0);
        }
        return 0;
    }

    if (charset) {
        /* the pattern starts with a character from a known set */
        end = (const SRE_CHAR *)state->end;
        state->must_advance = 0;
        for (;;) {
            while (ptr < end && !sre_charset(charset, *ptr)) ptr++;
            if (ptr >= end) return 0;
            state->start = ptr;
            state->ptr = ptr;
            status = SRE(match)(state, pattern, 0);
            if (status != 0) break;
            ptr++;
            state->lastmark = state->lastindex = -1;
        }
    } else {
        state->start = state->ptr = ptr;
        status = SRE(match)(state, pattern, 1);
        state->must_advance = 0;
        if (status == 0 && pattern[0] == SRE_OP_AT &&
            (pattern[1] == SRE_AT_BEGINNING || pattern[1] == SRE_AT_BEGINNING_STRING)) {
            state->start = state->ptr = end;
            return 0;
        }
        while (status == 0 && ptr < end) {
            ptr++;
            state->lastmark = state->lastindex = -1;
            state->start = state->ptr = ptr;
            status = SRE(match)(state, pattern, 0);
        }
    }
    return status;
}
