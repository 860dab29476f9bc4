/* src/frontend/compile_builtins.c — the builtins that reach the compiler: compile(), exec() and
 * eval(), with CPython 3.11's argument rules and messages (Python/bltinmodule.c).  They live
 * here, not in vm/builtins.c, because they call the front end, which sits above vm/; the
 * embedding layer installs them into the builtins namespace (comp_register_builtins).
 *
 * Source text: str (UTF-8) or bytes (taken as UTF-8).  The caller's __future__ flags
 * are inherited unless dont_inherit is true, as CPython's PyEval_MergeCompilerFlags does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/frontend/ast_module.h"
#include "src/frontend/compile.h"
#include "src/frontend/parser.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"

/* The source of compile/exec/eval as a pointer into the object (kept alive by the caller's
 * arguments).  what: "compile() arg 1", "exec() arg 1", ...; kinds: the types accepted, for
 * the message. */
static int source_text(VM *vm, Value src, const char *what, const char *kinds, const char **text, size_t *len) {
    if (val_is_obj(src) && vm_isinstance_type(vm, src, vm->t_str)) {
        *text = AS_STR(src)->data;
        *len = (size_t)AS_STR(src)->len;
    } else if (val_is_obj(src) && vm_isinstance_type(vm, src, vm->t_bytes)) {
        *text = (const char *)((BytesObj *)src.as.o)->data;
        *len = (size_t)((BytesObj *)src.as.o)->len;
    } else {
        vm_raise(vm, vm->e_TypeError, "%s must be a %s object", what, kinds);
        return -1;
    }
    if (memchr(*text, '\0', *len)) {
        vm_raise(vm, vm->e_SyntaxError, "source code string cannot contain null bytes");
        return -1;
    }
    return 0;
}

/* The __future__ flags of the code calling the builtin (compile()'s inheritance). */
static uint32_t caller_future_flags(VM *vm) {
    Frame *f = vm->frame;
    return f && f->code ? f->code->flags & COMP_CF_FUTURE_MASK : 0;
}

/* Compile text in a mode; NULL with SyntaxError (or MemoryError) pending. */
static CodeObj *compile_text(VM *vm, const char *text, size_t len, const char *filename, int mode, uint32_t cf_flags,
                             int optimize) {
    CompOptions opts = {.mode = mode, .cf_flags = cf_flags, .optimize = optimize};
    char *diag = NULL;
    CodeObj *co = comp_compile(vm, text, len, filename, &opts, &diag);
    free(diag);
    return co;
}

/* ---- compile() ----------------------------------------------------------------------------- */

/* compile()'s filename: str, bytes or os.PathLike (PyUnicode_FSDecoder). */
static StrObj *fs_path(VM *vm, Value v) {
    if (val_is_obj(v) && vm_isinstance_type(vm, v, vm->t_str)) return AS_STR(v);
    if (val_is_obj(v) && vm_isinstance_type(vm, v, vm->t_bytes)) {
        BytesObj *b = (BytesObj *)v.as.o;
        return str_new(vm, (const char *)b->data, b->len);
    }
    Value fsp = val_is_obj(v) ? vm_getattr_opt(vm, val_obj(vm_type_of(vm, v)), vm_intern_str(vm, "__fspath__")) : val_null();
    if (!val_is_null(fsp)) {
        Value r = vm_call1(vm, fsp, v);
        if (val_is_null(r)) return NULL;
        if (val_is_obj(r) && (vm_isinstance_type(vm, r, vm->t_str) || vm_isinstance_type(vm, r, vm->t_bytes)))
            return fs_path(vm, r);
        vm_raise(vm, vm->e_TypeError, "expected %s.__fspath__() to return str or bytes, not %s", vm_type_name(vm, v),
                 vm_type_name(vm, r));
        return NULL;
    }
    if (!val_is_null(vm->exc)) return NULL;
    vm_raise(vm, vm->e_TypeError, "expected str, bytes or os.PathLike object, not %s", vm_type_name(vm, v));
    return NULL;
}

static int int_arg(VM *vm, Value v, const char *fname, int64_t *out) {
    if (val_is_int(v) || val_is_bool(v)) {
        *out = val_is_int(v) ? v.as.i : v.as.b;
        return 0;
    }
    vm_raise(vm, vm->e_TypeError, "'%s' object cannot be interpreted as an integer", vm_type_name(vm, v));
    return -1;
}

static Value b_compile(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    static const char *const names[] = {"source", "filename", "mode", "flags", "dont_inherit", "optimize",
                                        "_feature_version"};
    Value a[7];
    if (native_parse_args(vm, "compile", argc, argv, kw, 6, 3, names, 7, a) < 0) return val_null();
    int64_t flags = 0, optimize = -1;
    bool dont_inherit = false;
    if (!val_is_null(a[3]) && int_arg(vm, a[3], "compile", &flags) < 0) return val_null();
    if (!val_is_null(a[4])) {
        int t = vm_truthy(vm, a[4]);
        if (t < 0) return val_null();
        dont_inherit = t;
    }
    if (!val_is_null(a[5]) && int_arg(vm, a[5], "compile", &optimize) < 0) return val_null();
    StrObj *filename = fs_path(vm, a[1]);
    if (!filename) return val_null();
    vm_push_root(vm, val_obj(filename));
    Value result = val_null();
    const uint32_t known = COMP_CF_FUTURE_MASK | 0x10 /* CO_NESTED, obsolete */ | COMP_CF_ONLY_AST |
                           COMP_CF_ALLOW_TOP_LEVEL_AWAIT | COMP_CF_TYPE_COMMENTS | COMP_CF_DONT_IMPLY_DEDENT |
                           COMP_CF_ALLOW_INCOMPLETE_INPUT;
    if (flags < 0 || (flags & ~(int64_t)known)) {
        vm_raise(vm, vm->e_ValueError, "compile(): unrecognised flags");
        goto done;
    }
    if (optimize < -1 || optimize > 2) {
        vm_raise(vm, vm->e_ValueError, "compile(): invalid optimize value");
        goto done;
    }
    uint32_t cf = (uint32_t)flags;
    if (!dont_inherit) cf |= caller_future_flags(vm);
    if (!val_is_obj(a[2]) || !vm_isinstance_type(vm, a[2], vm->t_str)) {
        vm_raise(vm, vm->e_TypeError, "compile() argument 'mode' must be str, not %s", vm_type_name(vm, a[2]));
        goto done;
    }
    StrObj *m = AS_STR(a[2]);
    int mode = str_eq_c(m, "exec") ? PARSE_MODE_EXEC
               : str_eq_c(m, "eval") ? PARSE_MODE_EVAL
               : str_eq_c(m, "single") ? PARSE_MODE_SINGLE
               : str_eq_c(m, "func_type") ? PARSE_MODE_FUNC_TYPE : -1;
    if (mode == PARSE_MODE_FUNC_TYPE && !(cf & COMP_CF_ONLY_AST)) {
        vm_raise(vm, vm->e_ValueError, "compile() mode 'func_type' requires flag PyCF_ONLY_AST");
        goto done;
    }
    if (mode < 0) {
        vm_raise(vm, vm->e_ValueError, (cf & COMP_CF_ONLY_AST)
                                           ? "compile() mode must be 'exec', 'eval', 'single' or 'func_type'"
                                           : "compile() mode must be 'exec', 'eval' or 'single'");
        goto done;
    }
    if (!val_is_null(a[6])) {
        int64_t fv;
        if (int_arg(vm, a[6], "compile", &fv) < 0) goto done;
        if (fv >= 0 && fv < 11) { /* the parser knows 3.11's grammar only */
            vm_raise(vm, vm->e_NotImplementedError, "compile() with _feature_version=%lld (an older grammar) is not supported",
                     (long long)fv);
            goto done;
        }
    }
    if ((cf & COMP_CF_ONLY_AST) && (cf & COMP_CF_TYPE_COMMENTS)) {
        vm_raise(vm, vm->e_NotImplementedError, "type comments (PyCF_TYPE_COMMENTS) are not supported");
        goto done;
    }
    if (ast_is_ast_object(vm, a[0])) {
        if (cf & COMP_CF_ONLY_AST) { /* an AST asked for as an AST: itself */
            result = a[0];
            goto done;
        }
        AstArena *arena = ast_arena_new();
        if (!arena) {
            vm_no_memory(vm);
            goto done;
        }
        AstModule *mod = ast_obj_to_module(vm, a[0], mode, arena);
        if (mod) {
            CompOptions opts = {.mode = mode, .cf_flags = cf, .optimize = (int)optimize};
            CodeObj *co = comp_compile_tree(vm, mod, arena, filename->data, &opts);
            result = co ? val_obj(co) : val_null();
        }
        ast_arena_free(arena);
        goto done;
    }
    const char *text;
    size_t len;
    if (source_text(vm, a[0], "compile() arg 1", "string, bytes or AST", &text, &len) < 0) goto done;
    if (cf & COMP_CF_ONLY_AST) {
        AstArena *arena = ast_arena_new();
        if (!arena) {
            vm_no_memory(vm);
            goto done;
        }
        AstModule *mod = comp_parse_tree(vm, text, len, filename->data, mode, cf, arena);
        if (mod) result = ast_module_to_obj(vm, mod);
        ast_arena_free(arena);
        goto done;
    }
    CodeObj *co = compile_text(vm, text, len, filename->data, mode, cf, (int)optimize);
    result = co ? val_obj(co) : val_null();
done:
    vm_pop_root(vm);
    return result;
}

/* ---- exec() and eval() ------------------------------------------------------------------------- */

static bool is_mapping(VM *vm, Value v) {
    return val_is_obj(v) && !val_is_null(type_special(vm, vm_type_of(vm, v), SP_GETITEM));
}

/* globals and locals as CPython resolves them: both None means the caller's namespaces (a
 * function's locals are the snapshot locals() gives), locals None means globals.  The
 * results are rooted by the caller's frame or arguments, except a fresh locals() snapshot,
 * which is made last (nothing allocates after it here). */
static int namespaces(VM *vm, Value *globals, Value *locals) {
    bool snapshot = false;
    if (val_is_none(*globals)) {
        Frame *f = vm->frame;
        if (!f) {
            vm_raise(vm, vm->e_SystemError, "globals and locals cannot be NULL");
            return -1;
        }
        *globals = val_obj(f->globals);
        snapshot = val_is_none(*locals);
    } else if (val_is_none(*locals)) {
        *locals = *globals;
    }
    /* exec'd code finds the builtins through globals, as CPython's frames do */
    DictObj *g = (DictObj *)globals->as.o;
    if (val_is_null(dict_get_c(vm, g, "__builtins__")) &&
        dict_set_c(vm, g, "__builtins__", val_obj(vm->builtins)) < 0)
        return -1;
    if (snapshot) {
        Value loc = dict_get_c(vm, vm->builtins, "locals");
        *locals = val_is_null(loc) ? *globals : vm_call0(vm, loc);
        if (val_is_null(*locals)) return -1;
    }
    return 0;
}

static Value run(VM *vm, Value src, Value globals, Value locals, bool is_eval) {
    const char *fname = is_eval ? "eval" : "exec";
    Value result = val_null();
    if (namespaces(vm, &globals, &locals) < 0) return val_null();
    vm_push_root(vm, globals);
    vm_push_root(vm, locals);
    CodeObj *co;
    if (val_is_type(vm, src, vm->t_code)) {
        co = (CodeObj *)src.as.o;
        if (co->freevars->len > 0) {
            if (is_eval) vm_raise(vm, vm->e_TypeError, "code object passed to eval() may not contain free variables");
            else vm_raise(vm, vm->e_TypeError, "code object requires a closure of exactly length %lld",
                          (long long)co->freevars->len);
            goto done;
        }
    } else {
        const char *text;
        size_t len;
        char what[32];
        snprintf(what, sizeof what, "%s() arg 1", fname);
        if (source_text(vm, src, what, "string, bytes or code", &text, &len) < 0) goto done;
        if (is_eval)   /* eval() ignores leading spaces and tabs */
            while (len && (*text == ' ' || *text == '\t')) text++, len--;
        co = compile_text(vm, text, len, "<string>", is_eval ? PARSE_MODE_EVAL : PARSE_MODE_EXEC,
                          caller_future_flags(vm), -1);
        if (!co) goto done;
    }
    vm_push_root(vm, val_obj(co));
    Value r = vm_run_code(vm, co, (DictObj *)globals.as.o, (DictObj *)locals.as.o);
    vm_pop_root(vm);
    if (!val_is_null(r)) result = is_eval ? r : val_none();
done:
    vm_pop_roots(vm, 2);
    return result;
}

static Value b_exec(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    static const char *const names[] = {"source", "globals", "locals", "closure"};
    Value a[4];
    if (native_parse_args(vm, "exec", argc, argv, kw, 3, 1, names, 4, a) < 0) return val_null();
    Value globals = val_is_null(a[1]) ? val_none() : a[1], locals = val_is_null(a[2]) ? val_none() : a[2];
    if (!val_is_none(globals) && !val_is_type(vm, globals, vm->t_dict) && !vm_isinstance_type(vm, globals, vm->t_dict))
        return vm_raise(vm, vm->e_TypeError, "exec() globals must be a dict, not %s", vm_type_name(vm, globals));
    if (!val_is_none(locals) && !is_mapping(vm, locals))
        return vm_raise(vm, vm->e_TypeError, "locals must be a mapping or None, not %s", vm_type_name(vm, locals));
    if (!val_is_null(a[3]) && !val_is_none(a[3]))
        return vm_raise(vm, vm->e_NotImplementedError, "exec() with a closure is not supported");
    return run(vm, a[0], globals, locals, false);
}

static Value b_eval(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    static const char *const names[] = {"source", "globals", "locals"};
    Value a[3];
    if (native_parse_args(vm, "eval", argc, argv, kw, 3, 1, names, 3, a) < 0) return val_null();
    Value globals = val_is_null(a[1]) ? val_none() : a[1], locals = val_is_null(a[2]) ? val_none() : a[2];
    if (!val_is_none(locals) && !is_mapping(vm, locals)) return vm_raise(vm, vm->e_TypeError, "locals must be a mapping");
    if (!val_is_none(globals) && !vm_isinstance_type(vm, globals, vm->t_dict))
        return vm_raise(vm, vm->e_TypeError, is_mapping(vm, globals)
                                                 ? "globals must be a real dict; try eval(expr, {}, mapping)"
                                                 : "globals must be a dict");
    return run(vm, a[0], globals, locals, true);
}

void comp_register_builtins(VM *vm) {
    static const MethodDef defs[] = {
        {"compile", b_compile, 0}, {"exec", b_exec, 0}, {"eval", b_eval, 0}, {NULL}};
    if (dict_add_functions(vm, vm->builtins, defs) < 0) EM_UNREACHABLE();
    ast_module_register(vm); /* _ast: ast.parse is compile(..., PyCF_ONLY_AST) */
}
