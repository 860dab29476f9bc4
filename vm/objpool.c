/* vm/objpool.c — size-classed free lists for small objects (see objpool.h). */
#include "vm/objpool.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define OBJPOOL_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OBJPOOL_OFF 1
#endif
#endif

#define GRAIN 16
#define NCLASS (OBJPOOL_MAX / GRAIN)
#define ARENA_BYTES (256u << 10)

typedef struct FreeCell {
    struct FreeCell *next;
} FreeCell;

struct ObjPool {
    FreeCell *free[NCLASS];
    char *bump, *end;        /* the unused tail of the newest arena */
    void **arenas;
    size_t narenas, cap;
};

#ifndef OBJPOOL_OFF
static struct ObjPool *pool_of(VM *vm) {
    if (!vm->obj_pool) vm->obj_pool = calloc(1, sizeof(struct ObjPool));
    return vm->obj_pool;
}

static char *new_arena(struct ObjPool *p) {
    if (p->narenas == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        void **a = realloc(p->arenas, sizeof(void *) * cap);
        if (!a) return NULL;
        p->arenas = a;
        p->cap = cap;
    }
    char *m = malloc(ARENA_BYTES);
    if (!m) return NULL;
    p->arenas[p->narenas++] = m;
    /* the old arena's tail goes to the free lists rather than being lost */
    while (p->bump && p->end - p->bump >= GRAIN) {
        size_t left = (size_t)(p->end - p->bump), c = (left > OBJPOOL_MAX ? OBJPOOL_MAX : left) / GRAIN - 1;
        FreeCell *f = (FreeCell *)p->bump;
        f->next = p->free[c];
        p->free[c] = f;
        p->bump += (c + 1) * GRAIN;
    }
    p->bump = m;
    p->end = m + ARENA_BYTES;
    return m;
}

#endif

Obj *objpool_alloc(VM *vm, size_t size) {
#ifdef OBJPOOL_OFF
    (void)vm;
    return calloc(1, size);
#else
    struct ObjPool *p = size <= OBJPOOL_MAX ? pool_of(vm) : NULL;
    if (!p) return calloc(1, size);
    size_t c = (size + GRAIN - 1) / GRAIN - 1, bytes = (c + 1) * GRAIN;
    Obj *o;
    if (p->free[c]) {
        o = (Obj *)p->free[c];
        p->free[c] = p->free[c]->next;
    } else {
        if ((size_t)(p->end - p->bump) < bytes && !new_arena(p)) return calloc(1, size);
        o = (Obj *)p->bump;
        p->bump += bytes;
    }
    memset(o, 0, bytes);
    o->pool_class = (uint16_t)(c + 1);
    return o;
#endif
}

void objpool_free(VM *vm, Obj *o) {
    if (!o->pool_class) {
        free(o);
        return;
    }
    struct ObjPool *p = vm->obj_pool;
    FreeCell *f = (FreeCell *)o;
    size_t c = o->pool_class - 1u;
    f->next = p->free[c];
    p->free[c] = f;
}

void objpool_destroy(VM *vm) {
    struct ObjPool *p = vm->obj_pool;
    if (!p) return;
    for (size_t i = 0; i < p->narenas; i++) free(p->arenas[i]);
    free(p->arenas);
    free(p);
    vm->obj_pool = NULL;
}
