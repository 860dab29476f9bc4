/* vm/mod_csv.c — the `_csv` module (CPython 3.11's Modules/_csv.c), which csv.py imports: the
 * Dialect type (its eight parameters read from a dialect object or a registered name, then from
 * keyword arguments, checked with CPython's messages), reader objects (CPython's character state
 * machine: quoting, doubled quotes, escapes, skipinitialspace, strict, QUOTE_NONNUMERIC floats,
 * field_size_limit, line_num), writer objects (writerow/writerows with CPython's quoting rules),
 * the dialect registry, _csv.Error and the QUOTE_* constants.  Text is handled as code points. */
#include <stdlib.h>
#include <string.h>

#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

enum { QUOTE_MINIMAL, QUOTE_ALL, QUOTE_NONNUMERIC, QUOTE_NONE };
#define NOT_SET 0xFFFFFFFFu

typedef struct DialectObj {
    Obj hdr;
    uint32_t delimiter, quotechar, escapechar;
    bool doublequote, skipinitialspace, strict;
    int quoting;
    StrObj *lineterminator;
} DialectObj;

typedef struct ReaderObj {
    Obj hdr;
    Value input;          /* the iterator of lines */
    DialectObj *dialect;
    ListObj *fields;
    int64_t line_num;
    int state;
    bool numeric_field;   /* the field was unquoted (QUOTE_NONNUMERIC converts it) */
    uint32_t *field;      /* the field being read */
    int64_t field_len, field_cap;
} ReaderObj;

typedef struct WriterObj {
    Obj hdr;
    Value write;          /* the file's bound write method */
    DialectObj *dialect;
} WriterObj;

static void dialect_trace(VM *vm, Obj *o) { gc_mark(vm, ((DialectObj *)o)->lineterminator); }
static void reader_trace(VM *vm, Obj *o) {
    ReaderObj *r = (ReaderObj *)o;
    gc_mark_value(vm, r->input);
    gc_mark(vm, r->dialect);
    gc_mark(vm, r->fields);
}
static void reader_finalize(VM *vm, Obj *o) { free(((ReaderObj *)o)->field); }
static void writer_trace(VM *vm, Obj *o) {
    gc_mark_value(vm, ((WriterObj *)o)->write);
    gc_mark(vm, ((WriterObj *)o)->dialect);
}

static Value csv_error(VM *vm, const char *fmt, const char *arg) {
    return vm_raise(vm, AS_TYPE(vm->lib[VM_LIB_csv_error]), fmt, arg);
}

/* ---- Dialect --------------------------------------------------------------------------------- */

static uint32_t str_first_cp(StrObj *s) {
    int64_t pos = 0;
    return utf8_decode(s->data, s->len, &pos);
}

/* _set_char / _set_char_or_none */
static int set_char(VM *vm, const char *name, uint32_t *target, Value src, uint32_t dflt, bool none_ok) {
    if (val_is_null(src)) {
        *target = dflt;
        return 0;
    }
    if (none_ok && val_is_none(src)) {
        *target = NOT_SET;
        return 0;
    }
    if (!val_is_str(vm, src)) {
        vm_raise(vm, vm->e_TypeError, "\"%s\" must be string, not %s", name, vm_type_name(vm, src));
        return -1;
    }
    if (AS_STR(src)->ncp != 1) {
        vm_raise(vm, vm->e_TypeError, "\"%s\" must be a 1-character string", name);
        return -1;
    }
    *target = str_first_cp(AS_STR(src));
    return 0;
}

static int set_bool(VM *vm, bool *target, Value src, bool dflt) {
    if (val_is_null(src)) {
        *target = dflt;
        return 0;
    }
    int t = vm_truthy(vm, src);
    if (t < 0) return -1;
    *target = t;
    return 0;
}

static const char *const dialect_names[] = {"delimiter", "doublequote", "escapechar", "lineterminator",
                                            "quotechar", "quoting", "skipinitialspace", "strict"};
#define NPARAMS 8

/* Dialect(dialect=None, **kwargs): also what reader()/writer() do with their dialect arguments */
static Value dialect_make(VM *vm, TypeObj *cls, Value dialect, int nkw, Value *kwvals, TupleObj *kwnames) {
    Value p[NPARAMS];
    for (int i = 0; i < NPARAMS; i++) p[i] = val_null();
    int nroots = 0;
    if (!val_is_null(dialect) && val_is_str(vm, dialect)) {
        Value d = dict_get_str(AS_DICT(vm->lib[VM_LIB_csv_dialects]), AS_STR(dialect));
        if (val_is_null(d)) return csv_error(vm, "unknown dialect%s", "");
        dialect = d;
    }
    if (!val_is_null(dialect) && !val_is_none(dialect)) {
        /* a Dialect instance with nothing to change is returned as it is */
        if (nkw == 0 && vm_type_of(vm, dialect) == AS_TYPE(vm->lib[VM_LIB_csv_dialect_type]) &&
            cls == AS_TYPE(vm->lib[VM_LIB_csv_dialect_type]))
            return dialect;
        for (int i = 0; i < NPARAMS; i++) {
            p[i] = vm_getattr_opt(vm, dialect, vm_intern_str(vm, dialect_names[i]));
            if (val_is_null(p[i]) && vm->exc.tag) goto fail;
            vm_push_root(vm, p[i]);
            nroots++;
        }
    }
    for (int k = 0; k < nkw; k++) {
        StrObj *kn = AS_STR(kwnames->items[k]);
        int i = 0;
        while (i < NPARAMS && !str_eq_c(kn, dialect_names[i])) i++;
        if (i == NPARAMS) {
            vm_raise(vm, vm->e_TypeError, "'%s' is an invalid keyword argument for this function", kn->data);
            goto fail;
        }
        p[i] = kwvals[k];
    }
    DialectObj *d = gc_alloc(vm, cls, cls->instance_size);
    if (!d) goto fail;
    vm_push_root(vm, val_obj(d));
    nroots++;
    if (set_char(vm, "delimiter", &d->delimiter, p[0], ',', false) < 0 || set_bool(vm, &d->doublequote, p[1], true) < 0 ||
        set_char(vm, "escapechar", &d->escapechar, p[2], NOT_SET, true) < 0 ||
        set_char(vm, "quotechar", &d->quotechar, p[4], '"', true) < 0 ||
        set_bool(vm, &d->skipinitialspace, p[6], false) < 0 || set_bool(vm, &d->strict, p[7], false) < 0)
        goto fail;
    if (val_is_null(p[3])) {
        d->lineterminator = str_from_c(vm, "\r\n");
        if (!d->lineterminator) goto fail;
    } else if (!val_is_none(p[3])) {
        if (!val_is_str(vm, p[3])) {
            vm_raise(vm, vm->e_TypeError, "\"lineterminator\" must be a string");
            goto fail;
        }
        d->lineterminator = AS_STR(p[3]);
    }
    if (val_is_null(p[5])) {
        d->quoting = QUOTE_MINIMAL;
    } else {
        if (!val_is_intlike(p[5])) {
            vm_raise(vm, vm->e_TypeError, "\"quoting\" must be an integer");
            goto fail;
        }
        int64_t q = val_as_intlike(p[5]);
        if (q < QUOTE_MINIMAL || q > QUOTE_NONE) {
            vm_raise(vm, vm->e_TypeError, "bad \"quoting\" value");
            goto fail;
        }
        d->quoting = (int)q;
    }
    /* quotechar=None without quoting means QUOTE_NONE */
    if (!val_is_null(p[4]) && val_is_none(p[4]) && val_is_null(p[5])) d->quoting = QUOTE_NONE;
    if (d->quoting != QUOTE_NONE && d->quotechar == NOT_SET) {
        vm_raise(vm, vm->e_TypeError, "quotechar must be set if quoting enabled");
        goto fail;
    }
    if (!d->lineterminator) {
        vm_raise(vm, vm->e_TypeError, "lineterminator must be set");
        goto fail;
    }
    vm_pop_roots(vm, nroots);
    return val_obj(d);
fail:
    vm_pop_roots(vm, nroots);
    return val_null();
}

static Value dialect_new(ARGS) {
    Value dialect = val_null();
    if (argc > 2) return vm_raise(vm, vm->e_TypeError, "Dialect() takes at most 1 positional argument (%d given)", argc - 1);
    if (argc == 2) dialect = argv[1];
    int nkw = kw ? (int)kw->len : 0;
    /* dialect= by keyword */
    Value kv[NPARAMS + 1];
    Value knames_buf[NPARAMS + 1];
    int n = 0;
    for (int k = 0; k < nkw; k++) {
        if (str_eq_c(AS_STR(kw->items[k]), "dialect")) {
            dialect = argv[argc + k];
            continue;
        }
        if (n > NPARAMS) break;
        kv[n] = argv[argc + k];
        knames_buf[n++] = kw->items[k];
    }
    if (n == nkw) return dialect_make(vm, AS_TYPE(argv[0]), dialect, nkw, argv + argc, kw);
    TupleObj *names = tuple_from_array(vm, knames_buf, n);
    if (!names) return val_null();
    vm_push_root(vm, val_obj(names));
    Value r = dialect_make(vm, AS_TYPE(argv[0]), dialect, n, kv, names);
    vm_pop_root(vm);
    return r;
}

static Value char_value(VM *vm, uint32_t c) {
    if (c == NOT_SET) return val_none();
    char buf[4];
    int n = utf8_encode(c, buf);
    StrObj *s = str_new(vm, buf, n);
    return s ? val_obj(s) : val_null();
}
#define DO(v) ((DialectObj *)(v).as.o)
static Value d_delimiter(VM *vm, Value s, void *c) { return char_value(vm, DO(s)->delimiter); }
static Value d_quotechar(VM *vm, Value s, void *c) { return char_value(vm, DO(s)->quotechar); }
static Value d_escapechar(VM *vm, Value s, void *c) { return char_value(vm, DO(s)->escapechar); }
static Value d_lineterminator(VM *vm, Value s, void *c) { return val_obj(DO(s)->lineterminator); }
static Value d_doublequote(VM *vm, Value s, void *c) { return val_bool(DO(s)->doublequote); }
static Value d_skipinitialspace(VM *vm, Value s, void *c) { return val_bool(DO(s)->skipinitialspace); }
static Value d_strict(VM *vm, Value s, void *c) { return val_bool(DO(s)->strict); }
static Value d_quoting(VM *vm, Value s, void *c) { return val_int(DO(s)->quoting); }

/* reader(f, dialect='excel', **fmtparams) / writer(...): the dialect from the rest */
static DialectObj *dialect_from_args(VM *vm, const char *who, int argc, Value *argv, TupleObj *kw) {
    Value dialect = argc > 1 ? argv[1] : val_null();
    int nkw = kw ? (int)kw->len : 0;
    Value kv[NPARAMS + 1], kn[NPARAMS + 1];
    int n = 0;
    for (int k = 0; k < nkw; k++) {
        if (str_eq_c(AS_STR(kw->items[k]), "dialect")) {
            dialect = argv[argc + k];
            continue;
        }
        if (n > NPARAMS) {
            vm_raise(vm, vm->e_TypeError, "%s() got too many keyword arguments", who);
            return NULL;
        }
        kv[n] = argv[argc + k];
        kn[n++] = kw->items[k];
    }
    TupleObj *names = tuple_from_array(vm, kn, n);
    if (!names) return NULL;
    vm_push_root(vm, val_obj(names));
    Value d = dialect_make(vm, AS_TYPE(vm->lib[VM_LIB_csv_dialect_type]), dialect, n, kv, names);
    vm_pop_root(vm);
    return val_is_null(d) ? NULL : DO(d);
}

/* ---- reader ---------------------------------------------------------------------------------- */

enum { START_RECORD, START_FIELD, ESCAPED_CHAR, IN_FIELD, IN_QUOTED_FIELD, ESCAPE_IN_QUOTED_FIELD,
       QUOTE_IN_QUOTED_FIELD, EAT_CRNL, AFTER_ESCAPED_CRNL };

static int field_add(VM *vm, ReaderObj *r, uint32_t c) {
    int64_t limit = val_as_intlike(vm->lib[VM_LIB_csv_field_limit]);
    if (r->field_len >= limit) {
        vm_raise(vm, AS_TYPE(vm->lib[VM_LIB_csv_error]), "field larger than field limit (%lld)", (long long)limit);
        return -1;
    }
    if (r->field_len == r->field_cap) {
        int64_t cap = r->field_cap ? r->field_cap * 2 : 64;
        uint32_t *f = realloc(r->field, sizeof(uint32_t) * (size_t)cap);
        if (!f) {
            vm_no_memory(vm);
            return -1;
        }
        r->field = f;
        r->field_cap = cap;
    }
    r->field[r->field_len++] = c;
    return 0;
}

static int field_save(VM *vm, ReaderObj *r) {
    StrBuf b = SB_INIT;
    for (int64_t i = 0; i < r->field_len; i++) {
        char u[4];
        sb_add(&b, u, (size_t)utf8_encode(r->field[i], u));
    }
    StrObj *s = sb_finish(vm, &b);
    if (!s) return -1;
    Value v = val_obj(s);
    r->field_len = 0;
    if (r->numeric_field) {
        r->numeric_field = false;
        vm_push_root(vm, v);
        v = vm_call1(vm, val_obj(vm->t_float), v);
        vm_pop_root(vm);
        if (val_is_null(v)) return -1;
    }
    vm_push_root(vm, v);
    int rc = list_append(vm, r->fields, v);
    vm_pop_root(vm);
    return rc;
}

/* CPython's parse_process_char; c == NOT_SET is the end of the line */
static int process_char(VM *vm, ReaderObj *r, uint32_t c) {
    DialectObj *d = r->dialect;
    const uint32_t EOL = NOT_SET;
    switch (r->state) {
    case START_RECORD:
        if (c == EOL) return 0;                       /* empty line: [] */
        if (c == '\n' || c == '\r') {
            r->state = EAT_CRNL;
            return 0;
        }
        r->state = START_FIELD;
        /* fall through */
    case START_FIELD:
        if (c == '\n' || c == '\r' || c == EOL) {
            if (field_save(vm, r) < 0) return -1;
            r->state = c == EOL ? START_RECORD : EAT_CRNL;
        } else if (c == d->quotechar && d->quoting != QUOTE_NONE) {
            r->state = IN_QUOTED_FIELD;
        } else if (c == d->escapechar) {
            r->state = ESCAPED_CHAR;
        } else if (c == ' ' && d->skipinitialspace) {
            ;
        } else if (c == d->delimiter) {
            if (field_save(vm, r) < 0) return -1;
        } else {
            if (d->quoting == QUOTE_NONNUMERIC) r->numeric_field = true;
            if (field_add(vm, r, c) < 0) return -1;
            r->state = IN_FIELD;
        }
        break;
    case ESCAPED_CHAR:
        if (c == '\n' || c == '\r') {
            if (field_add(vm, r, c) < 0) return -1;
            r->state = AFTER_ESCAPED_CRNL;
            break;
        }
        if (c == EOL) c = '\n';
        if (field_add(vm, r, c) < 0) return -1;
        r->state = IN_FIELD;
        break;
    case AFTER_ESCAPED_CRNL:
        if (c == EOL) break;
        /* fall through */
    case IN_FIELD:
        if (c == '\n' || c == '\r' || c == EOL) {
            if (field_save(vm, r) < 0) return -1;
            r->state = c == EOL ? START_RECORD : EAT_CRNL;
        } else if (c == d->escapechar) {
            r->state = ESCAPED_CHAR;
        } else if (c == d->delimiter) {
            if (field_save(vm, r) < 0) return -1;
            r->state = START_FIELD;
        } else {
            if (field_add(vm, r, c) < 0) return -1;
            r->state = IN_FIELD;
        }
        break;
    case IN_QUOTED_FIELD:
        if (c == EOL) {
            ;
        } else if (c == d->escapechar) {
            r->state = ESCAPE_IN_QUOTED_FIELD;
        } else if (c == d->quotechar && d->quoting != QUOTE_NONE) {
            r->state = d->doublequote ? QUOTE_IN_QUOTED_FIELD : IN_FIELD;
        } else if (field_add(vm, r, c) < 0) {
            return -1;
        }
        break;
    case ESCAPE_IN_QUOTED_FIELD:
        if (c == EOL) c = '\n';
        if (field_add(vm, r, c) < 0) return -1;
        r->state = IN_QUOTED_FIELD;
        break;
    case QUOTE_IN_QUOTED_FIELD:
        if (d->quoting != QUOTE_NONE && c == d->quotechar) {
            if (field_add(vm, r, c) < 0) return -1;   /* a doubled quote */
            r->state = IN_QUOTED_FIELD;
        } else if (c == d->delimiter) {
            if (field_save(vm, r) < 0) return -1;
            r->state = START_FIELD;
        } else if (c == '\n' || c == '\r' || c == EOL) {
            if (field_save(vm, r) < 0) return -1;
            r->state = c == EOL ? START_RECORD : EAT_CRNL;
        } else if (!d->strict) {
            if (field_add(vm, r, c) < 0) return -1;
            r->state = IN_FIELD;
        } else {
            char q[5] = {0}, dl[5] = {0};
            utf8_encode(d->delimiter, dl);
            utf8_encode(d->quotechar, q);
            vm_raise(vm, AS_TYPE(vm->lib[VM_LIB_csv_error]), "'%s' expected after '%s'", dl, q);
            return -1;
        }
        break;
    case EAT_CRNL:
        if (c == '\n' || c == '\r') {
            ;
        } else if (c == EOL) {
            r->state = START_RECORD;
        } else {
            csv_error(vm, "new-line character seen in unquoted field - do you need to open the file in "
                          "universal-newline mode?%s", "");
            return -1;
        }
        break;
    }
    return 0;
}

static Value reader_next(ARGS) {
    ReaderObj *r = (ReaderObj *)argv[0].as.o;
    ListObj *fields = list_new(vm, 0);
    if (!fields) return val_null();
    r->fields = fields;
    r->field_len = 0;
    r->numeric_field = false;
    r->state = START_RECORD;
    do {
        Value line = vm_next(vm, r->input);
        if (val_is_null(line)) {
            if (vm->exc.tag) return line;
            /* the end of the input: a record in progress is an error in strict mode only */
            if (r->field_len != 0 || r->state == IN_QUOTED_FIELD) {
                if (r->dialect->strict) return csv_error(vm, "unexpected end of data%s", "");
                if (field_save(vm, r) < 0) return val_null();
                break;
            }
            Value e = vm_new_exception(vm, vm->e_StopIteration, val_null());   /* a bare StopIteration */
            return val_is_null(e) ? e : vm_raise_value(vm, e);
        }
        if (!val_is_str(vm, line))
            return vm_raise(vm, AS_TYPE(vm->lib[VM_LIB_csv_error]),
                            "iterator should return strings, not %s (the file should be opened in text mode)",
                            vm_type_name(vm, line));
        vm_push_root(vm, line);
        r->line_num++;
        StrObj *s = AS_STR(line);
        for (int64_t pos = 0; pos < s->len;) {
            uint32_t c = utf8_decode(s->data, s->len, &pos);
            if (process_char(vm, r, c) < 0) {
                vm_pop_root(vm);
                return val_null();
            }
        }
        vm_pop_root(vm);
        if (process_char(vm, r, NOT_SET) < 0) return val_null();
    } while (r->state != START_RECORD);
    Value out = val_obj(r->fields);
    r->fields = NULL;
    return out;
}

static Value self_iter(ARGS) { return argv[0]; }

static Value csv_reader(ARGS) {
    if (argc < 1) return vm_raise(vm, vm->e_TypeError, "expected at least 1 argument, got 0");
    if (argc > 2) return vm_raise(vm, vm->e_TypeError, "expected at most 2 arguments, got %d", argc);
    Value it = vm_iter(vm, argv[0]);
    if (val_is_null(it)) return it;
    vm_push_root(vm, it);
    DialectObj *d = dialect_from_args(vm, "reader", argc, argv, kw);
    if (!d) {
        vm_pop_root(vm);
        return val_null();
    }
    vm_push_root(vm, val_obj(d));
    ReaderObj *r = gc_alloc(vm, AS_TYPE(vm->lib[VM_LIB_csv_reader_type]), sizeof(ReaderObj));
    vm_pop_roots(vm, 2);
    if (!r) return val_null();
    r->input = it;
    r->dialect = d;
    return val_obj(r);
}

static Value r_dialect(VM *vm, Value s, void *c) { return val_obj(((ReaderObj *)s.as.o)->dialect); }
static Value r_line_num(VM *vm, Value s, void *c) { return val_int(((ReaderObj *)s.as.o)->line_num); }

/* ---- writer ---------------------------------------------------------------------------------- */

/* Append one field to b, quoted as the dialect says (CPython's join_append). */
static int join_append(VM *vm, DialectObj *d, StrBuf *b, StrObj *field, bool quoted, bool first) {
    if (!first) {
        char u[4];
        sb_add(b, u, (size_t)utf8_encode(d->delimiter, u));
    }
    /* pass 1: does the field need quotes (or escapes)? */
    StrObj *lt = d->lineterminator;
    for (int64_t pos = 0; pos < field->len && !quoted && d->quoting != QUOTE_NONE;) {
        uint32_t c = utf8_decode(field->data, field->len, &pos);
        bool in_lt = false;
        for (int64_t lp = 0; lp < lt->len && !in_lt;) in_lt = utf8_decode(lt->data, lt->len, &lp) == c;
        if (c == d->delimiter || c == d->escapechar || c == d->quotechar || in_lt) quoted = true;
    }
    char u[4];
    if (quoted) sb_add(b, u, (size_t)utf8_encode(d->quotechar, u));
    for (int64_t pos = 0; pos < field->len;) {
        uint32_t c = utf8_decode(field->data, field->len, &pos);
        bool want_escape = false, in_lt = false;
        for (int64_t lp = 0; lp < lt->len && !in_lt;) in_lt = utf8_decode(lt->data, lt->len, &lp) == c;
        if (c == d->delimiter || c == d->escapechar || c == d->quotechar || in_lt) {
            if (d->quoting == QUOTE_NONE) {
                want_escape = true;
            } else {
                if (c == d->quotechar) {
                    if (d->doublequote) sb_add(b, u, (size_t)utf8_encode(d->quotechar, u));
                    else want_escape = true;
                } else if (c == d->escapechar) {
                    want_escape = true;
                }
                if (!want_escape) quoted = true;
            }
            if (want_escape) {
                if (d->escapechar == NOT_SET) {
                    csv_error(vm, "need to escape, but no escapechar set%s", "");
                    return -1;
                }
                sb_add(b, u, (size_t)utf8_encode(d->escapechar, u));
            }
        }
        sb_add(b, u, (size_t)utf8_encode(c, u));
    }
    if (quoted) sb_add(b, u, (size_t)utf8_encode(d->quotechar, u));
    return 0;
}

static bool is_number(VM *vm, Value v) {
    if (val_is_intlike(v) || v.tag == VAL_FLOAT || v.tag == VAL_BOOL) return true;
    TypeObj *t = vm_type_of(vm, v);
    return !val_is_null(type_special(vm, t, SP_INDEX)) || !val_is_null(type_special(vm, t, SP_FLOAT)) ||
           !val_is_null(type_special(vm, t, SP_INT)) || t == vm->t_complex;
}

static Value writer_writerow(ARGS) {
    if (native_check_args(vm, "writerow", argc, kw, 2, 2) < 0) return val_null();
    WriterObj *w = (WriterObj *)argv[0].as.o;
    DialectObj *d = w->dialect;
    Value it = vm_iter(vm, argv[1]);
    if (val_is_null(it)) {
        if (!vm_exc_matches(vm, vm->e_TypeError)) return it;
        vm_clear_exc(vm);
        return csv_error(vm, "iterable expected, not %s", vm_type_name(vm, argv[1]));
    }
    vm_push_root(vm, it);
    StrBuf b = SB_INIT;
    int64_t nfields = 0;
    for (;;) {
        Value f = vm_next(vm, it);
        if (val_is_null(f)) {
            if (vm->exc.tag) goto fail;
            break;
        }
        vm_push_root(vm, f);
        bool quoted = d->quoting == QUOTE_ALL || (d->quoting == QUOTE_NONNUMERIC && !is_number(vm, f));
        Value s;
        if (val_is_none(f)) s = val_obj(vm->empty_str ? vm->empty_str : str_new(vm, "", 0));
        else if (val_is_str(vm, f)) s = f;
        else s = vm_str(vm, f);
        vm_pop_root(vm);
        if (val_is_null(s)) goto fail;
        vm_push_root(vm, s);
        int rc = join_append(vm, d, &b, AS_STR(s), quoted, nfields == 0);
        vm_pop_root(vm);
        if (rc < 0) goto fail;
        nfields++;
    }
    if (nfields > 0 && b.len == 0) {
        if (d->quoting == QUOTE_NONE) {
            csv_error(vm, "single empty field record must be quoted%s", "");
            goto fail;
        }
        /* a lone empty field is written as "" so that it reads back as [''] */
        char u[4];
        int n = utf8_encode(d->quotechar, u);
        sb_add(&b, u, (size_t)n);
        sb_add(&b, u, (size_t)n);
    }
    sb_add(&b, d->lineterminator->data, (size_t)d->lineterminator->len);
    vm_pop_root(vm);
    StrObj *line = sb_finish(vm, &b);
    if (!line) return val_null();
    return vm_call1(vm, w->write, val_obj(line));
fail:
    sb_free(&b);
    vm_pop_root(vm);
    return val_null();
}

static Value writer_writerows(ARGS) {
    if (native_check_args(vm, "writerows", argc, kw, 2, 2) < 0) return val_null();
    Value it = vm_iter(vm, argv[1]);
    if (val_is_null(it)) return it;
    vm_push_root(vm, it);
    for (;;) {
        Value row = vm_next(vm, it);
        if (val_is_null(row)) break;
        vm_push_root(vm, row);
        Value args[2] = {argv[0], row};
        Value r = writer_writerow(vm, 2, args, NULL, fn);
        vm_pop_root(vm);
        if (val_is_null(r)) break;
    }
    vm_pop_root(vm);
    return vm->exc.tag ? val_null() : val_none();
}

static Value csv_writer(ARGS) {
    if (argc < 1) return vm_raise(vm, vm->e_TypeError, "expected at least 1 argument, got 0");
    if (argc > 2) return vm_raise(vm, vm->e_TypeError, "expected at most 2 arguments, got %d", argc);
    Value write = vm_getattr_opt(vm, argv[0], vm_intern_str(vm, "write"));
    if (val_is_null(write)) {
        if (vm->exc.tag) return write;
        return vm_raise(vm, vm->e_TypeError, "argument 1 must have a \"write\" method");
    }
    vm_push_root(vm, write);
    DialectObj *d = dialect_from_args(vm, "writer", argc, argv, kw);
    if (!d) {
        vm_pop_root(vm);
        return val_null();
    }
    vm_push_root(vm, val_obj(d));
    WriterObj *w = gc_alloc(vm, AS_TYPE(vm->lib[VM_LIB_csv_writer_type]), sizeof(WriterObj));
    vm_pop_roots(vm, 2);
    if (!w) return val_null();
    w->write = write;
    w->dialect = d;
    return val_obj(w);
}

static Value w_dialect(VM *vm, Value s, void *c) { return val_obj(((WriterObj *)s.as.o)->dialect); }

/* ---- the registry ---------------------------------------------------------------------------- */

static Value csv_register_dialect(ARGS) {
    if (argc < 1) return vm_raise(vm, vm->e_TypeError, "expected at least 1 argument, got 0");
    if (argc > 2) return vm_raise(vm, vm->e_TypeError, "expected at most 2 arguments, got %d", argc);
    if (!val_is_str(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "dialect name must be a string");
    DialectObj *d = dialect_from_args(vm, "register_dialect", argc, argv, kw);
    if (!d) return val_null();
    vm_push_root(vm, val_obj(d));
    int rc = dict_set(vm, AS_DICT(vm->lib[VM_LIB_csv_dialects]), argv[0], val_obj(d));
    vm_pop_root(vm);
    return rc < 0 ? val_null() : val_none();
}

static Value csv_unregister_dialect(ARGS) {
    Value old;
    if (!val_is_str(vm, argv[0])) return csv_error(vm, "unknown dialect%s", "");
    int rc = dict_del(vm, AS_DICT(vm->lib[VM_LIB_csv_dialects]), argv[0], &old);
    if (rc < 0) return val_null();
    if (rc == 0) return csv_error(vm, "unknown dialect%s", "");
    return val_none();
}

static Value csv_get_dialect(ARGS) {
    Value d = val_is_str(vm, argv[0]) ? dict_get_str(AS_DICT(vm->lib[VM_LIB_csv_dialects]), AS_STR(argv[0]))
                                      : val_null();
    if (val_is_null(d)) return csv_error(vm, "unknown dialect%s", "");
    return d;
}

static Value csv_list_dialects(ARGS) {
    DictObj *reg = AS_DICT(vm->lib[VM_LIB_csv_dialects]);
    ListObj *l = list_new(vm, 0);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    int64_t pos = 0;
    Value k, v;
    while (dict_next(reg, &pos, &k, &v))
        if (list_append(vm, l, k) < 0) break;
    vm_pop_root(vm);
    return vm->exc.tag ? val_null() : val_obj(l);
}

static Value csv_field_size_limit(ARGS) {
    static const char *const names[] = {"new_limit"};
    Value a[1];
    if (native_parse_args(vm, "field_size_limit", argc, argv, kw, 1, 0, names, 1, a) < 0) return val_null();
    Value old = vm->lib[VM_LIB_csv_field_limit];
    if (!val_is_null(a[0])) {
        if (!val_is_intlike(a[0])) return vm_raise(vm, vm->e_TypeError, "limit must be an integer");
        vm->lib[VM_LIB_csv_field_limit] = val_int(val_as_intlike(a[0]));
    }
    return old;
}

/* ---- module ---------------------------------------------------------------------------------- */

int csv_module_init(VM *vm, Value mod) {
    if (val_is_null(vm->lib[VM_LIB_csv_error])) {
        TupleObj *bases = tuple_pack(vm, 1, val_obj(vm->e_Exception));
        if (!bases) return -1;
        vm_push_root(vm, val_obj(bases));
        DictObj *ns = dict_new(vm);
        Value err = val_null();
        if (ns) {
            vm_push_root(vm, val_obj(ns));
            if (dict_set_c(vm, ns, "__module__", vm_intern(vm, "_csv")) == 0)
                err = type_new_class(vm, vm->t_type, vm_intern_str(vm, "Error"), bases, ns, 0, NULL, NULL);
            vm_pop_root(vm);
        }
        vm_pop_root(vm);
        if (val_is_null(err)) return -1;
        vm->lib[VM_LIB_csv_error] = err;
        DictObj *reg = dict_new(vm);
        if (!reg) return -1;
        vm->lib[VM_LIB_csv_dialects] = val_obj(reg);
        vm->lib[VM_LIB_csv_field_limit] = val_int(128 * 1024);
        TypeObj *td = type_new_builtin(vm, "Dialect", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(DialectObj), 0,
                                       dialect_trace, NULL, TYPEF_BASETYPE);
        if (!td) return -1;
        vm->lib[VM_LIB_csv_dialect_type] = val_obj(td);
        TypeObj *tr = type_new_builtin(vm, "reader", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(ReaderObj), 0,
                                       reader_trace, reader_finalize, TYPEF_ABSTRACT_NEW);
        if (!tr) return -1;
        vm->lib[VM_LIB_csv_reader_type] = val_obj(tr);
        TypeObj *tw = type_new_builtin(vm, "writer", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(WriterObj), 0,
                                       writer_trace, NULL, TYPEF_ABSTRACT_NEW);
        if (!tw) return -1;
        vm->lib[VM_LIB_csv_writer_type] = val_obj(tw);
        td->module = tr->module = tw->module = vm_intern(vm, "_csv");
        static const MethodDef dm[] = {{"__new__", dialect_new, NATIVEF_STATIC}, {NULL}};
        static const GetSetDef dg[] = {{"delimiter", d_delimiter}, {"quotechar", d_quotechar},
                                       {"escapechar", d_escapechar}, {"lineterminator", d_lineterminator},
                                       {"doublequote", d_doublequote}, {"skipinitialspace", d_skipinitialspace},
                                       {"strict", d_strict}, {"quoting", d_quoting}, {NULL}};
        static const MethodDef rm[] = {{"__next__", reader_next, NATIVEF_METHOD | ARITY_NOARGS},
                                       {"__iter__", self_iter, NATIVEF_METHOD | ARITY_NOARGS}, {NULL}};
        static const GetSetDef rg[] = {{"dialect", r_dialect}, {"line_num", r_line_num}, {NULL}};
        static const MethodDef wm[] = {{"writerow", writer_writerow, NATIVEF_METHOD},
                                       {"writerows", writer_writerows, NATIVEF_METHOD}, {NULL}};
        static const GetSetDef wg[] = {{"dialect", w_dialect}, {NULL}};
        if (type_add_methods(vm, td, dm) < 0 || type_add_getsets(vm, td, dg) < 0 || type_add_methods(vm, tr, rm) < 0 ||
            type_add_getsets(vm, tr, rg) < 0 || type_add_methods(vm, tw, wm) < 0 || type_add_getsets(vm, tw, wg) < 0)
            return -1;
        type_modified(vm, td);
        type_modified(vm, tr);
    }
    static const MethodDef fns[] = {
        {"reader", csv_reader}, {"writer", csv_writer}, {"register_dialect", csv_register_dialect},
        {"unregister_dialect", csv_unregister_dialect, ARITY_O}, {"get_dialect", csv_get_dialect, ARITY_O},
        {"list_dialects", csv_list_dialects, ARITY_NOARGS}, {"field_size_limit", csv_field_size_limit}, {NULL}};
    StrObj *doc = str_from_c(vm, "CSV parsing and writing.\n");
    if (module_add_functions(vm, mod, fns) < 0 || !doc || module_set(vm, mod, "__doc__", val_obj(doc)) < 0 ||
        module_set(vm, mod, "Error", vm->lib[VM_LIB_csv_error]) < 0 ||
        module_set(vm, mod, "Dialect", vm->lib[VM_LIB_csv_dialect_type]) < 0 ||
        module_set(vm, mod, "Reader", vm->lib[VM_LIB_csv_reader_type]) < 0 ||
        module_set(vm, mod, "Writer", vm->lib[VM_LIB_csv_writer_type]) < 0 ||
        module_set(vm, mod, "__version__", vm_intern(vm, "1.0")) < 0 ||
        module_set(vm, mod, "_dialects", vm->lib[VM_LIB_csv_dialects]) < 0 ||
        module_set(vm, mod, "QUOTE_MINIMAL", val_int(QUOTE_MINIMAL)) < 0 ||
        module_set(vm, mod, "QUOTE_ALL", val_int(QUOTE_ALL)) < 0 ||
        module_set(vm, mod, "QUOTE_NONNUMERIC", val_int(QUOTE_NONNUMERIC)) < 0 ||
        module_set(vm, mod, "QUOTE_NONE", val_int(QUOTE_NONE)) < 0)
        return -1;
    return 0;
}
