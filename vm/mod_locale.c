/* vm/mod_locale.c — the _locale module CPython's locale.py imports: setlocale, localeconv,
 * nl_langinfo (with its item constants), getencoding, strcoll, strxfrm, the LC_* categories,
 * CHAR_MAX and locale.Error, on the C library's locale functions. */
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static Value locale_error(VM *vm, const char *msg) {
    return vm_raise(vm, AS_TYPE(vm->lib[VM_LIB_locale_error]), "%s", msg);
}

static Value cstr(VM *vm, const char *s) {
    StrObj *o = str_from_c(vm, s ? s : "");
    return o ? val_obj(o) : val_null();
}

/* setlocale(category, locale=None) */
static Value l_setlocale(ARGS) {
    int64_t cat;
    if (vm_index(vm, argv[0], &cat) < 0) return val_null();
    const char *loc = NULL;
    if (argc > 1 && !val_is_none(argv[1])) {
        if (!val_is_str(vm, argv[1])) return vm_raise(vm, vm->e_TypeError, "setlocale() argument 2 must be str or None");
        loc = AS_STR(argv[1])->data;
    }
    const char *r = setlocale((int)cat, loc);
    if (!r) return locale_error(vm, loc ? "unsupported locale setting" : "locale query failed");
    return cstr(vm, r);
}

static int grouping_list(VM *vm, const char *g, Value *out) {
    ListObj *l = list_new(vm, 0);
    if (!l) return -1;
    vm_push_root(vm, val_obj(l));
    for (; *g && *g != CHAR_MAX; g++)
        if (list_append(vm, l, val_int(*g)) < 0) {
            vm_pop_root(vm);
            return -1;
        }
    if (*g == CHAR_MAX && list_append(vm, l, val_int(CHAR_MAX)) < 0) {
        vm_pop_root(vm);
        return -1;
    }
    if (!*g && l->len && list_append(vm, l, val_int(0)) < 0) {
        vm_pop_root(vm);
        return -1;
    }
    vm_pop_root(vm);
    *out = val_obj(l);
    return 0;
}

static Value l_localeconv(ARGS) {
    struct lconv *lc = localeconv();
    DictObj *d = dict_new(vm);
    if (!d) return val_null();
    vm_push_root(vm, val_obj(d));
    struct { const char *k; const char *v; } strs[] = {
        {"decimal_point", lc->decimal_point}, {"thousands_sep", lc->thousands_sep},
        {"int_curr_symbol", lc->int_curr_symbol}, {"currency_symbol", lc->currency_symbol},
        {"mon_decimal_point", lc->mon_decimal_point}, {"mon_thousands_sep", lc->mon_thousands_sep},
        {"positive_sign", lc->positive_sign}, {"negative_sign", lc->negative_sign}};
    struct { const char *k; char v; } chars[] = {
        {"int_frac_digits", lc->int_frac_digits}, {"frac_digits", lc->frac_digits}, {"p_cs_precedes", lc->p_cs_precedes},
        {"p_sep_by_space", lc->p_sep_by_space}, {"n_cs_precedes", lc->n_cs_precedes},
        {"n_sep_by_space", lc->n_sep_by_space}, {"p_sign_posn", lc->p_sign_posn}, {"n_sign_posn", lc->n_sign_posn}};
    int rc = 0;
    for (size_t i = 0; i < sizeof strs / sizeof strs[0] && !rc; i++) {
        Value v = cstr(vm, strs[i].v);
        rc = val_is_null(v) || dict_set_c(vm, d, strs[i].k, v) < 0;
    }
    for (size_t i = 0; i < sizeof chars / sizeof chars[0] && !rc; i++)
        rc = dict_set_c(vm, d, chars[i].k, val_int(chars[i].v == CHAR_MAX ? CHAR_MAX : chars[i].v)) < 0;
    Value g;
    if (!rc) rc = grouping_list(vm, lc->grouping, &g) < 0 || dict_set_c(vm, d, "grouping", g) < 0;
    if (!rc) rc = grouping_list(vm, lc->mon_grouping, &g) < 0 || dict_set_c(vm, d, "mon_grouping", g) < 0;
    vm_pop_root(vm);
    return rc ? val_null() : val_obj(d);
}

static Value l_nl_langinfo(ARGS) {
    int64_t item;
    if (vm_index(vm, argv[0], &item) < 0) return val_null();
    const char *r = nl_langinfo((nl_item)item);
    return cstr(vm, r);
}

/* getencoding(): the locale's encoding as locale.getencoding() reports it */
static Value l_getencoding(ARGS) {
    const char *cs = nl_langinfo(CODESET);
    if (!cs || !*cs || !strcmp(cs, "ANSI_X3.4-1968")) cs = "utf-8";   /* the C locale: CPython 3.11 runs it in UTF-8 mode */
    return cstr(vm, cs);
}

static wchar_t *to_wide(VM *vm, StrObj *s) {
    wchar_t *w = malloc(sizeof(wchar_t) * ((size_t)s->ncp + 1));
    int64_t pos = 0, i = 0;
    while (pos < s->len) w[i++] = (wchar_t)utf8_decode(s->data, s->len, &pos);
    w[i] = 0;
    return w;
}

static Value l_strcoll(ARGS) {
    if (!val_is_str(vm, argv[0]) || !val_is_str(vm, argv[1])) return vm_raise(vm, vm->e_TypeError, "strcoll arguments must be strings");
    wchar_t *a = to_wide(vm, AS_STR(argv[0])), *b = to_wide(vm, AS_STR(argv[1]));
    int r = wcscoll(a, b);
    free(a);
    free(b);
    return val_int(r);
}

static Value l_strxfrm(ARGS) {
    if (!val_is_str(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "strxfrm() argument must be str");
    wchar_t *a = to_wide(vm, AS_STR(argv[0]));
    size_t n = wcsxfrm(NULL, a, 0);
    wchar_t *out = malloc(sizeof(wchar_t) * (n + 1));
    wcsxfrm(out, a, n + 1);
    StrBuf b;
    sb_init(&b);
    for (size_t i = 0; i < n; i++) {
        char tmp[4];
        sb_add(&b, tmp, (size_t)utf8_encode((uint32_t)out[i], tmp));
    }
    free(a);
    free(out);
    StrObj *r = sb_finish(vm, &b);
    return r ? val_obj(r) : val_null();
}

int locale_module_init(VM *vm, Value mod) {
    /* the character-type locale from the environment, as CPython sets it at start-up */
    setlocale(LC_CTYPE, "");
    if (val_is_null(vm->lib[VM_LIB_locale_error])) {
        TupleObj *bases = tuple_pack(vm, 1, val_obj(vm->e_Exception));
        if (!bases) return -1;
        vm_push_root(vm, val_obj(bases));
        DictObj *ns = dict_new(vm);
        Value t = val_null();
        if (ns) {
            vm_push_root(vm, val_obj(ns));
            if (dict_set_c(vm, ns, "__module__", vm_intern(vm, "locale")) == 0)
                t = type_new_class(vm, vm->t_type, vm_intern_str(vm, "Error"), bases, ns, 0, NULL, NULL);
            vm_pop_root(vm);
        }
        vm_pop_root(vm);
        if (val_is_null(t)) return -1;
        vm->lib[VM_LIB_locale_error] = t;
    }
    static const MethodDef fns[] = {
        {"setlocale", l_setlocale, ARITY_POS(1, 2)}, {"localeconv", l_localeconv, ARITY_NOARGS},
        {"nl_langinfo", l_nl_langinfo, ARITY_O}, {"getencoding", l_getencoding, ARITY_NOARGS},
        {"strcoll", l_strcoll, ARITY_POS(2, 2)}, {"strxfrm", l_strxfrm, ARITY_O}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    static const struct { const char *n; long v; } consts[] = {
#define C(x) {#x, x}
        C(LC_CTYPE), C(LC_COLLATE), C(LC_TIME), C(LC_MONETARY), C(LC_NUMERIC), C(LC_ALL), C(LC_MESSAGES),
        C(CHAR_MAX), C(CODESET), C(D_T_FMT), C(D_FMT), C(T_FMT), C(T_FMT_AMPM), C(AM_STR), C(PM_STR),
        C(DAY_1), C(DAY_2), C(DAY_3), C(DAY_4), C(DAY_5), C(DAY_6), C(DAY_7), C(ABDAY_1), C(ABDAY_2), C(ABDAY_3),
        C(ABDAY_4), C(ABDAY_5), C(ABDAY_6), C(ABDAY_7), C(MON_1), C(MON_2), C(MON_3), C(MON_4), C(MON_5), C(MON_6),
        C(MON_7), C(MON_8), C(MON_9), C(MON_10), C(MON_11), C(MON_12), C(ABMON_1), C(ABMON_2), C(ABMON_3), C(ABMON_4),
        C(ABMON_5), C(ABMON_6), C(ABMON_7), C(ABMON_8), C(ABMON_9), C(ABMON_10), C(ABMON_11), C(ABMON_12),
        C(RADIXCHAR), C(THOUSEP), C(YESEXPR), C(NOEXPR), C(CRNCYSTR), C(ERA), C(ERA_D_FMT), C(ERA_D_T_FMT),
        C(ERA_T_FMT), C(ALT_DIGITS),
#undef C
        {NULL, 0}};
    for (int i = 0; consts[i].n; i++)
        if (module_set(vm, mod, consts[i].n, val_int(consts[i].v)) < 0) return -1;
    return module_set(vm, mod, "Error", vm->lib[VM_LIB_locale_error]);
}
