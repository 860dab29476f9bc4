/* vm/mod_pwd.c — the pwd and grp modules (pathlib's owner() / group(), shutil.chown,
 * getpass.getuser, os.path.expanduser("~user")): getpwuid / getpwnam / getpwall with
 * pwd.struct_passwd, getgrgid / getgrnam / getgrall with grp.struct_group, and CPython's
 * KeyError messages. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "vm/codecs.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/structseq.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static const char *const pw_fields[] = {"pw_name", "pw_passwd", "pw_uid", "pw_gid", "pw_gecos", "pw_dir", "pw_shell"};
static const StructSeqDesc pw_desc = {"pwd.struct_passwd", pw_fields, 7, 7};
static const char *const gr_fields[] = {"gr_name", "gr_passwd", "gr_gid", "gr_mem"};
static const StructSeqDesc gr_desc = {"grp.struct_group", gr_fields, 4, 4};

static Value fsstr(VM *vm, const char *s) {
    StrObj *o = codec_fs_decode(vm, s ? s : "", s ? (int64_t)strlen(s) : 0);
    return o ? val_obj(o) : val_null();
}

static Value make_pw(VM *vm, const struct passwd *p) {
    const char *strs[5] = {p->pw_name, p->pw_passwd, p->pw_gecos, p->pw_dir, p->pw_shell};
    Value s[5];
    for (int i = 0; i < 5; i++) {
        s[i] = fsstr(vm, strs[i]);
        if (val_is_null(s[i])) {
            vm_pop_roots(vm, i);
            return s[i];
        }
        vm_push_root(vm, s[i]);
    }
    Value v[7] = {s[0], s[1], val_int(p->pw_uid), val_int(p->pw_gid), s[2], s[3], s[4]};
    TupleObj *t = structseq_new(vm, AS_TYPE(vm->lib[VM_LIB_pwd_type]), v);
    vm_pop_roots(vm, 5);
    return t ? val_obj(t) : val_null();
}

static Value make_gr(VM *vm, const struct group *g) {
    Value name = fsstr(vm, g->gr_name);
    if (val_is_null(name)) return name;
    vm_push_root(vm, name);
    Value pw = fsstr(vm, g->gr_passwd);
    if (val_is_null(pw)) {
        vm_pop_root(vm);
        return pw;
    }
    vm_push_root(vm, pw);
    ListObj *mem = list_new(vm, 0);
    if (!mem) {
        vm_pop_roots(vm, 2);
        return val_null();
    }
    vm_push_root(vm, val_obj(mem));
    for (char **m = g->gr_mem; m && *m; m++) {
        Value s = fsstr(vm, *m);
        if (val_is_null(s) || list_append(vm, mem, s) < 0) {
            vm_pop_roots(vm, 3);
            return val_null();
        }
    }
    Value v[4] = {name, pw, val_int(g->gr_gid), val_obj(mem)};
    TupleObj *t = structseq_new(vm, AS_TYPE(vm->lib[VM_LIB_grp_type]), v);
    vm_pop_roots(vm, 3);
    return t ? val_obj(t) : val_null();
}

static Value id_arg_error(VM *vm, Value v, const char *what) {
    return vm_raise(vm, vm->e_TypeError, "'%s' object cannot be interpreted as an integer", vm_type_name(vm, v));
}

static Value pw_getpwuid(ARGS) {
    if (!val_is_intlike(argv[0])) return id_arg_error(vm, argv[0], "uid");
    int64_t uid = val_as_intlike(argv[0]);
    struct passwd *p = uid >= 0 && uid <= UINT32_MAX ? getpwuid((uid_t)uid) : NULL;
    if (!p) return vm_raise_key_error(vm, val_obj(str_printf(vm, "getpwuid(): uid not found: %lld", (long long)uid)));
    return make_pw(vm, p);
}

static Value pw_getpwnam(ARGS) {
    if (!val_is_str(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "getpwnam() argument must be str, not %s", vm_type_name(vm, argv[0]));
    struct passwd *p = getpwnam(AS_STR(argv[0])->data);
    if (!p) return vm_raise_key_error(vm, val_obj(str_printf(vm, "getpwnam(): name not found: '%s'", AS_STR(argv[0])->data)));
    return make_pw(vm, p);
}

static Value pw_getpwall(ARGS) {
    ListObj *l = list_new(vm, 0);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    setpwent();
    struct passwd *p;
    while ((p = getpwent())) {
        Value v = make_pw(vm, p);
        if (val_is_null(v) || list_append(vm, l, v) < 0) {
            endpwent();
            vm_pop_root(vm);
            return val_null();
        }
    }
    endpwent();
    vm_pop_root(vm);
    return val_obj(l);
}

static Value gr_getgrgid(ARGS) {
    if (!val_is_intlike(argv[0])) return id_arg_error(vm, argv[0], "gid");
    int64_t gid = val_as_intlike(argv[0]);
    struct group *g = gid >= 0 && gid <= UINT32_MAX ? getgrgid((gid_t)gid) : NULL;
    if (!g) return vm_raise_key_error(vm, val_obj(str_printf(vm, "getgrgid(): gid not found: %lld", (long long)gid)));
    return make_gr(vm, g);
}

static Value gr_getgrnam(ARGS) {
    if (!val_is_str(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "getgrnam() argument must be str, not %s", vm_type_name(vm, argv[0]));
    struct group *g = getgrnam(AS_STR(argv[0])->data);
    if (!g) return vm_raise_key_error(vm, val_obj(str_printf(vm, "getgrnam(): name not found: '%s'", AS_STR(argv[0])->data)));
    return make_gr(vm, g);
}

static Value gr_getgrall(ARGS) {
    ListObj *l = list_new(vm, 0);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    setgrent();
    struct group *g;
    while ((g = getgrent())) {
        Value v = make_gr(vm, g);
        if (val_is_null(v) || list_append(vm, l, v) < 0) {
            endgrent();
            vm_pop_root(vm);
            return val_null();
        }
    }
    endgrent();
    vm_pop_root(vm);
    return val_obj(l);
}

int pwd_module_init(VM *vm, Value mod) {
    if (val_is_null(vm->lib[VM_LIB_pwd_type])) {
        TypeObj *t = structseq_new_type(vm, &pw_desc);
        if (!t) return -1;
        vm->lib[VM_LIB_pwd_type] = val_obj(t);
    }
    static const MethodDef fns[] = {
        {"getpwuid", pw_getpwuid, ARITY_O}, {"getpwnam", pw_getpwnam, ARITY_O}, {"getpwall", pw_getpwall, ARITY_NOARGS},
        {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    return module_set(vm, mod, "struct_passwd", vm->lib[VM_LIB_pwd_type]);
}

int grp_module_init(VM *vm, Value mod) {
    if (val_is_null(vm->lib[VM_LIB_grp_type])) {
        TypeObj *t = structseq_new_type(vm, &gr_desc);
        if (!t) return -1;
        vm->lib[VM_LIB_grp_type] = val_obj(t);
    }
    static const MethodDef fns[] = {
        {"getgrgid", gr_getgrgid, ARITY_O}, {"getgrnam", gr_getgrnam, ARITY_O}, {"getgrall", gr_getgrall, ARITY_NOARGS},
        {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    return module_set(vm, mod, "struct_group", vm->lib[VM_LIB_grp_type]);
}
