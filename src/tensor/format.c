/* format.c — tensor printing, following torch/_tensor_str.py: one formatter chosen over the
 * (summarised) values — int mode, fixed with 4 decimals, or scientific — then nested brackets
 * with PyTorch's indentation, wrapping at 80 columns and "..." summaries above 1000 elements.
 * The repr's suffixes follow _str_intern: "dtype=" for every dtype but the default one, int64 and
 * bool (any but the default one when empty).
 * Float values are formatted as the doubles Python would see (float32 widened), with C printf
 * producing the same digits as Python's str.format for %.4f / %.4e / %.0f. */
#include "src/tensor/tensor.h"

#include "src/common/strbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

/* torch.set_printoptions: PyTorch's PRINT_OPTS (profile "default" until set) */
static TensorPrintOptions opts = {.precision = 4, .threshold = 1000, .edgeitems = 3, .linewidth = 80, .sci_mode = -1};
#define PRECISION (opts.precision)
#define THRESHOLD (opts.threshold)
#define EDGEITEMS ((int64_t)opts.edgeitems)
#define LINEWIDTH (opts.linewidth)

void tensor_set_print_options(const TensorPrintOptions *o) { opts = *o; }
void tensor_get_print_options(TensorPrintOptions *o) { *o = opts; }

static void sb_spaces(StrBuf *b, int n) { sb_repeat(b, ' ', (size_t)(n > 0 ? n : 0)); }

/* The built string, or NULL with the tensor error set when out of memory. */
static char *take(StrBuf *b) {
    char *s = sb_take(b);
    if (!s) tensor__oom();
    return s;
}

/* ---- the formatter ---------------------------------------------------------------------------- */

typedef struct Formatter {
    bool floating, int_mode, sci_mode;
    int max_width;
} Formatter;

static int fmt_nonfinite(char *buf, size_t cap, double v) {
    return snprintf(buf, cap, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
}

static int fmt_fixed(char *buf, size_t cap, double v, int prec) {
    if (!isfinite(v)) return fmt_nonfinite(buf, cap, v);
    return snprintf(buf, cap, "%.*f", prec, v);
}

static int fmt_sci(char *buf, size_t cap, double v) {
    if (!isfinite(v)) return fmt_nonfinite(buf, cap, v);
    return snprintf(buf, cap, "%.*e", PRECISION, v);
}

static const char *elem(const Tensor *t, int64_t off) {
    return (const char *)t->storage->data + off * (int64_t)tensor__elsize((TensorDtype)t->dtype);
}

static void value_str(const Tensor *t, int64_t off, char *buf, size_t cap) {
    if (t->dtype == TENSOR_BOOL)
        snprintf(buf, cap, "%s", *(const bool *)elem(t, off) ? "True" : "False");
    else
        snprintf(buf, cap, "%lld", (long long)tensor__ld_i((TensorDtype)t->dtype, elem(t, off)));
}

/* float16 and bfloat16 print through float32 (_tensor_str's self.float()): exactly their value */
static double fvalue(const Tensor *t, int64_t off) { return tensor__ld_d((TensorDtype)t->dtype, elem(t, off)); }

/* Visits the elements get_summarized_data keeps (all of them when not summarising). */
typedef void (*ElemFn)(void *ctx, const Tensor *t, int64_t off);

static void visit_summarized(const Tensor *t, int dim, int64_t off, bool summarize, ElemFn fn, void *ctx) {
    if (dim == t->ndim) {
        fn(ctx, t, off);
        return;
    }
    int64_t n = t->shape[dim];
    for (int64_t i = 0; i < n; i++) {
        if (summarize && n > 2 * EDGEITEMS && i == EDGEITEMS) i = n - EDGEITEMS;
        visit_summarized(t, dim + 1, off + i * t->strides[dim], summarize, fn, ctx);
    }
}

typedef struct FmtScan {
    Formatter *f;
    double mn, mx;
    int64_t count;
    bool pass2;
} FmtScan;

static void scan_elem(void *vc, const Tensor *t, int64_t off) {
    FmtScan *s = vc;
    char buf[64];
    if (!s->f->floating) {
        value_str(t, off, buf, sizeof buf);
        int w = (int)strlen(buf);
        if (w > s->f->max_width) s->f->max_width = w;
        return;
    }
    double v = fvalue(t, off);
    if (!isfinite(v) || v == 0.0) return;
    if (!s->pass2) {
        double a = fabs(v);
        if (s->count == 0 || a < s->mn) s->mn = a;
        if (s->count == 0 || a > s->mx) s->mx = a;
        if (v != ceil(v)) s->f->int_mode = false;
        s->count++;
        return;
    }
    int w;
    if (s->f->sci_mode)
        w = fmt_sci(buf, sizeof buf, v);
    else if (s->f->int_mode)
        w = fmt_fixed(buf, sizeof buf, v, 0) + 1;
    else
        w = fmt_fixed(buf, sizeof buf, v, PRECISION);
    if (w > s->f->max_width) s->f->max_width = w;
}

static void formatter_init(Formatter *f, const Tensor *t, bool summarize) {
    f->floating = tensor__is_float((TensorDtype)t->dtype);
    f->int_mode = true;
    f->sci_mode = false;
    f->max_width = 1;
    FmtScan s = {.f = f};
    visit_summarized(t, 0, t->offset, summarize, scan_elem, &s);
    if (!f->floating || s.count == 0) return;
    if (f->int_mode)
        f->sci_mode = s.mx / s.mn > 1000.0 || s.mx > 1.0e8;
    else
        f->sci_mode = s.mx / s.mn > 1000.0 || s.mx > 1.0e8 || s.mn < 1.0e-4;
    s.pass2 = true;
    visit_summarized(t, 0, t->offset, summarize, scan_elem, &s);
    /* _Formatter: a set sci_mode overrides the choice after the widths are measured */
    if (opts.sci_mode >= 0) f->sci_mode = opts.sci_mode;
}

static void format_value(const Formatter *f, const Tensor *t, int64_t off, StrBuf *b) {
    char buf[96];
    int len;
    if (f->floating) {
        double v = fvalue(t, off);
        if (f->sci_mode) {
            len = fmt_sci(buf, sizeof buf, v);
        } else if (f->int_mode) {
            len = fmt_fixed(buf, sizeof buf - 1, v, 0);
            if (isfinite(v)) buf[len++] = '.', buf[len] = '\0';
        } else {
            len = fmt_fixed(buf, sizeof buf, v, PRECISION);
        }
    } else {
        value_str(t, off, buf, sizeof buf);
        len = (int)strlen(buf);
    }
    sb_spaces(b, f->max_width - len);
    sb_add(b, buf, (size_t)len);
}

/* ---- the nested structure --------------------------------------------------------------------- */

static void vector_str(const Tensor *t, int dim, int64_t off, int indent, bool summarize, const Formatter *f, StrBuf *b) {
    int element_length = f->max_width + 2;
    int per_line = (LINEWIDTH - indent) / element_length;
    if (per_line < 1) per_line = 1;
    int64_t n = t->shape[dim];
    bool cut = summarize && n > 2 * EDGEITEMS;
    int64_t items = cut ? 2 * EDGEITEMS + 1 : n;
    sb_adds(b, "[");
    int64_t k = 0; /* item counter, including the " ..." item */
    for (int64_t i = 0; i < n; i++, k++) {
        if (k > 0) {
            if (k % per_line == 0) {
                sb_adds(b, ",\n");
                sb_spaces(b, indent + 1);
            } else {
                sb_adds(b, ", ");
            }
        }
        if (cut && i == EDGEITEMS) {
            sb_adds(b, " ...");
            i = n - EDGEITEMS - 1;
            continue;
        }
        format_value(f, t, off + i * t->strides[dim], b);
    }
    (void)items;
    sb_adds(b, "]");
}

static void tensor_str_rec(const Tensor *t, int dim, int64_t off, int indent, bool summarize, const Formatter *f, StrBuf *b) {
    int rdim = t->ndim - dim;
    if (rdim == 0) {
        format_value(f, t, off, b);
        return;
    }
    if (rdim == 1) {
        vector_str(t, dim, off, indent, summarize, f, b);
        return;
    }
    int64_t n = t->shape[dim];
    bool cut = summarize && n > 2 * EDGEITEMS;
    sb_adds(b, "[");
    bool first = true;
    for (int64_t i = 0; i < n; i++) {
        if (!first) {
            sb_adds(b, ",");
            for (int k = 0; k < rdim - 1; k++) sb_adds(b, "\n");
            sb_spaces(b, indent + 1);
        }
        first = false;
        if (cut && i == EDGEITEMS) {
            sb_adds(b, "...");
            i = n - EDGEITEMS - 1;
            continue;
        }
        tensor_str_rec(t, dim + 1, off + i * t->strides[dim], indent + 1, summarize, f, b);
    }
    sb_adds(b, "]");
}

static void body(const Tensor *t, int indent, StrBuf *b) {
    if (t->storage->meta) {   /* no data to show (PyTorch prints a meta tensor so) */
        sb_adds(b, "...");
        return;
    }
    if (t->numel == 0) {
        sb_adds(b, "[]");
        return;
    }
    bool summarize = (double)t->numel > THRESHOLD;
    Formatter f;
    formatter_init(&f, t, summarize);
    tensor_str_rec(t, 0, t->offset, indent, summarize, &f, b);
}

char *tensor_format(const Tensor *t, int indent) {
    StrBuf b = SB_INIT;
    body(t, indent, &b);
    return take(&b);
}

char *tensor_repr(const Tensor *t, const char *const *extra, int n_extra) {
    StrBuf b = SB_INIT;
    const int indent = 7; /* len("tensor(") */
    sb_adds(&b, "tensor(");
    body(t, indent, &b);
    char size_suffix[256] = "", dtype_suffix[64] = "";
    TensorDtype dt = (TensorDtype)t->dtype, def = tensor_default_dtype();
    bool meta = t->storage->meta;
    if (t->numel == 0 || meta) {
        if (t->ndim != 1 || meta) {
            size_t n = (size_t)snprintf(size_suffix, sizeof size_suffix, "size=(");
            for (int i = 0; i < t->ndim; i++)
                n += (size_t)snprintf(size_suffix + n, sizeof size_suffix - n, "%s%lld", i ? ", " : "", (long long)t->shape[i]);
            snprintf(size_suffix + n, sizeof size_suffix - n, "%s)", t->ndim == 1 ? "," : "");
        }
        /* no element shows the dtype: any but the default one is printed */
        if (dt != def) snprintf(dtype_suffix, sizeof dtype_suffix, "dtype=%s", tensor_dtype_name(dt));
    } else if (dt != def && dt != TENSOR_INT64 && dt != TENSOR_BOOL) {
        snprintf(dtype_suffix, sizeof dtype_suffix, "dtype=%s", tensor_dtype_name(dt));
    }
    const char *suffixes[16];
    int ns = 0;
    if (meta) suffixes[ns++] = "device='meta'";
    if (size_suffix[0]) suffixes[ns++] = size_suffix;
    if (dtype_suffix[0]) suffixes[ns++] = dtype_suffix;
    for (int i = 0; i < n_extra && ns < 16; i++) suffixes[ns++] = extra[i];
    /* _add_suffixes */
    if (b.failed) return take(&b);
    const char *nl = strrchr(b.data, '\n');
    long last_line_len = (long)b.len - (nl ? (long)(nl - b.data) : -1) + 1;
    for (int i = 0; i < ns; i++) {
        long sl = (long)strlen(suffixes[i]);
        if (last_line_len + sl + 2 > LINEWIDTH) {
            sb_adds(&b, ",\n");
            sb_spaces(&b, indent);
            sb_adds(&b, suffixes[i]);
            last_line_len = indent + sl;
        } else {
            sb_adds(&b, ", ");
            sb_adds(&b, suffixes[i]);
            last_line_len += sl + 2;
        }
    }
    sb_adds(&b, ")");
    return take(&b);
}

void tensor_print(FILE *f, const Tensor *t) {
    char *s = tensor_repr(t, NULL, 0);
    fprintf(f, "%s\n", s);
    free(s);
}
