/* vm/frame.h — frame objects: the script-visible view of a running (or finished) Frame, made on
 * demand (sys._getframe, tracebacks, locals(), generators' gi_frame) as CPython makes its
 * PyFrameObject lazily for a _PyInterpreterFrame.
 *
 * A Frame with a frame object points at it (Frame.obj) and keeps it alive; when the Frame ends,
 * frame_pop detaches the object: it keeps the last instruction, a copy of the fast locals and
 * its caller's frame object, so f_lineno, f_locals and f_back still answer afterwards. */
#ifndef EMBER_VM_FRAME_H
#define EMBER_VM_FRAME_H

#include "vm/vm.h"

typedef struct FrameObj {
    Obj hdr;
    Frame *live;          /* the frame while it runs or is suspended; NULL once it ended */
    CodeObj *code;
    Obj *func;
    DictObj *globals, *builtins;
    Value locals;         /* f_locals: a function frame's one dict (refreshed on each read), or the
                             namespace of a module or class body; VAL_NULL until first asked */
    Value back;           /* f_back of an ended frame (the caller's frame object, or None) */
    Value trace;          /* f_trace */
    Value *saved;         /* the fast locals at the end (malloc'd, nsaved slots), or NULL */
    int32_t nsaved;
    int32_t lasti;        /* instruction index when it ended */
} FrameObj;

/* The frame object of f (made on first use).  VAL_NULL + MemoryError on failure. */
Value frame_object(VM *vm, Frame *f);
/* frame_pop's slow path: f ends while it has a frame object.  Never collects. */
void frame_detach(VM *vm, Frame *f);
/* locals() of frame f: the namespace of a module/class body, or the function frame's one dict
 * refreshed from its fast locals (CPython 3.11's PyFrame_GetLocals). */
Value frame_locals(VM *vm, Frame *f);
/* sys._getframe(depth). */
Value frame_getframe(VM *vm, int64_t depth);

void frame_init_types(VM *vm);

#endif
