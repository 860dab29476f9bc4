/* test_graph.c — the graph IR: names made unique as torch.fx does, metadata inferred without
 * running kernels, multi-output ops with getitems, use replacement and dead-code elimination,
 * the verifier catching malformed graphs, and the printers' exact text. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ember/graph.h"

static GraphNode *tensor_input(Graph *g, const char *target, const char *name, int64_t rows, int64_t cols) {
    GraphNode *x = graph_placeholder(g, target, name);
    x->is_tensor = true;
    x->meta.dtype = TENSOR_FLOAT32;
    x->meta.ndim = 2;
    x->meta.shape[0] = rows;
    x->meta.shape[1] = cols;
    x->meta.strides[0] = cols;
    x->meta.strides[1] = 1;
    return x;
}

Test(graph, names_are_unique_like_fx) {
    Graph *g = graph_new("g");
    GraphNode *a = graph_node_new(g, GRAPH_CALL_FUNCTION, "add", "operator.add", NULL, 0, NULL, NULL, 0);
    GraphNode *b = graph_node_new(g, GRAPH_CALL_FUNCTION, "add", "operator.add", NULL, 0, NULL, NULL, 0);
    GraphNode *c = graph_node_new(g, GRAPH_CALL_FUNCTION, "add_1", "operator.add", NULL, 0, NULL, NULL, 0);
    GraphNode *d = graph_node_new(g, GRAPH_CALL_FUNCTION, "layers.0", "x", NULL, 0, NULL, NULL, 0);
    GraphNode *e = graph_node_new(g, GRAPH_CALL_FUNCTION, "0", "x", NULL, 0, NULL, NULL, 0);
    cr_assert_str_eq(a->name, "add");
    cr_assert_str_eq(b->name, "add_1");
    cr_assert_str_eq(c->name, "add_2", "a taken add_1 continues the numbering");
    cr_assert_str_eq(d->name, "layers_0");
    cr_assert_str_eq(e->name, "_0");
    GraphNode *f = graph_node_new(g, GRAPH_CALL_METHOD, "sum", "sum", NULL, 0, NULL, NULL, 0);
    cr_assert_str_eq(f->name, "sum_1", "builtins are never node names");
    graph_free(g);
}

Test(graph, tensor_op_metadata_is_inferred) {
    Graph *g = graph_new("g");
    GraphNode *x = tensor_input(g, "L_x_", "l_x_", 3, 4);
    GraphNode *w = tensor_input(g, "L_w_", "l_w_", 5, 4);
    w->requires_grad = true;
    GraphNode *in[2] = {x, w};
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    GraphNode *lin = graph_call_tensor_op(g, TENSOR_OP_LINEAR, in, 2, &args, "torch._C._nn.linear", NULL, -1, NULL,
                                          NULL, 0);
    cr_assert(lin->is_tensor);
    cr_assert_eq(lin->meta.ndim, 2);
    cr_assert_eq(lin->meta.shape[0], 3);
    cr_assert_eq(lin->meta.shape[1], 5);
    cr_assert(lin->requires_grad, "requires_grad flows from a differentiable input");
    cr_assert_str_eq(lin->name, "linear");
    /* a shape error is not fatal: the node simply has no tensor meta */
    GraphNode *bad_in[2] = {x, x};
    GraphNode *bad = graph_call_tensor_op(g, TENSOR_OP_MM, bad_in, 2, &args, "torch.mm", NULL, -1, NULL, NULL, 0);
    cr_assert_not(bad->is_tensor);
    cr_assert_eq(tensor_error_kind(), TENSOR_OK, "the inference error is cleared");
    graph_free(g);
}

Test(graph, multi_output_and_getitem) {
    Graph *g = graph_new("g");
    GraphNode *x = tensor_input(g, "L_x_", "l_x_", 4, 6);
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.start = 4;   /* split size */
    args.dim = 1;
    GraphNode *sp = graph_call_tensor_op(g, TENSOR_OP_SPLIT, &x, 1, &args, "torch.split", NULL, -1, NULL, NULL, 0);
    cr_assert_eq(sp->exec.n_outputs, 2);
    cr_assert_not(sp->is_tensor);
    GraphNode *second = graph_getitem(g, sp, 1);
    cr_assert(second->is_tensor);
    cr_assert_eq(second->meta.shape[1], 2);
    cr_assert_eq(second->meta.strides[0], 6, "views keep the base's strides");
    cr_assert_str_eq(second->name, "getitem");
    char err[200];
    cr_assert_eq(graph_verify(g, err, sizeof err), 0, "%s", err);
    second->exec.index = 7;
    cr_assert_eq(graph_verify(g, err, sizeof err), -1);
    cr_assert(strstr(err, "getitem index 7 out of range"), "%s", err);
    graph_free(g);
}

Test(graph, placement_replacement_and_dce) {
    Graph *g = graph_new("g");
    GraphNode *x = tensor_input(g, "L_x_", "l_x_", 2, 2);
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    GraphNode *r = graph_call_tensor_op(g, TENSOR_OP_RELU, &x, 1, &args, "torch.relu", NULL, -1, NULL, NULL, 0);
    GraphNode *e = graph_call_tensor_op(g, TENSOR_OP_EXP, &r, 1, &args, "torch.exp", NULL, -1, NULL, NULL, 0);
    GraphArg out = graph_arg_node(e);
    graph_output(g, &out, 1);
    /* placeholders added later still go first; ops go before the output */
    GraphNode *y = tensor_input(g, "L_y_", "l_y_", 2, 2);
    cr_assert_eq(g->first->next, y);
    GraphNode *t = graph_call_tensor_op(g, TENSOR_OP_TANH, &y, 1, &args, "torch.tanh", NULL, -1, NULL, NULL, 0);
    cr_assert_eq(graph_output_node(g)->prev, t);
    char err[200];
    cr_assert_eq(graph_verify(g, err, sizeof err), 0, "%s", err);
    cr_assert_eq(graph_erase(g, r), -1, "relu is used by exp");
    graph_replace_uses(g, r, t);
    cr_assert_eq(e->exec.inputs[0], t);
    cr_assert_eq(graph_verify(g, err, sizeof err), -1, "exp now uses tanh, which comes after it");
    cr_assert(strstr(err, "not an earlier node"), "%s", err);
    graph_replace_uses(g, t, r);
    cr_assert_eq(graph_verify(g, err, sizeof err), 0, "%s", err);
    cr_assert_eq(graph_eliminate_dead_code(g), 1, "the unused tanh goes");
    cr_assert_eq(graph_count_ops(g), 2);
    graph_free(g);
}

Test(graph, annotated_code) {
    Graph *g = graph_new("__compiled_fn_0");
    GraphNode *x = graph_placeholder(g, "L_x_", "l_x_");
    x->is_tensor = true;
    x->meta.dtype = TENSOR_FLOAT32;
    x->meta.ndim = 1;
    x->meta.shape[0] = 3;
    x->meta.strides[0] = 1;
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.scalar = tensor_scalar_i(1);
    GraphArg call[2] = {graph_arg_node(x), graph_arg_int(1)};
    GraphNode *add = graph_call_tensor_op(g, TENSOR_OP_ADD_SCALAR, &x, 1, &args, "operator.add", call, 2, NULL, NULL, 0);
    graph_node_set_loc(g, add, "t.py", 2, "inner1", "return x + 1");
    GraphArg out = graph_arg_node(add);
    graph_output(g, &out, 1);
    char *code = graph_code(g, GRAPH_PRINT_ANNOTATED);
    cr_assert_str_eq(code,
                     "class GraphModule(torch.nn.Module):\n"
                     "    def forward(self, L_x_: \"f32[3][1]cpu\"):\n"
                     "        l_x_ = L_x_\n"
                     "\n"
                     "         # File: t.py:2 in inner1, code: return x + 1\n"
                     "        add: \"f32[3][1]cpu\" = l_x_ + 1;  l_x_ = None\n"
                     "        return (add,)\n");
    free(code);
    graph_free(g);
}

/* every dtype prints as dynamo's abbreviation in annotations and as torch.<name> in code (float64
 * printed "?" and "dtype = None" before) */
Test(graph, annotated_code_every_dtype) {
    static const struct { TensorDtype d; const char *abbr, *torch; } cases[] = {
        {TENSOR_FLOAT32, "f32", "torch.float32"}, {TENSOR_FLOAT64, "f64", "torch.float64"},
        {TENSOR_FLOAT16, "f16", "torch.float16"}, {TENSOR_BFLOAT16, "bf16", "torch.bfloat16"},
        {TENSOR_INT64, "i64", "torch.int64"},     {TENSOR_INT32, "i32", "torch.int32"},
        {TENSOR_INT16, "i16", "torch.int16"},     {TENSOR_INT8, "i8", "torch.int8"},
        {TENSOR_UINT8, "u8", "torch.uint8"},      {TENSOR_BOOL, "b8", "torch.bool"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Graph *g = graph_new("__compiled_fn_0");
        GraphNode *x = graph_placeholder(g, "L_x_", "l_x_");
        x->is_tensor = true;
        x->meta.dtype = cases[i].d;
        x->meta.ndim = 1;
        x->meta.shape[0] = 2;
        x->meta.strides[0] = 1;
        GraphArg call[2] = {graph_arg_node(x), graph_arg_dtype(cases[i].d)};
        GraphNode *to = graph_node_new(g, GRAPH_CALL_METHOD, "to", "to", call, 2, NULL, NULL, 0);
        GraphArg out = graph_arg_node(to);
        graph_output(g, &out, 1);
        char *code = graph_code(g, GRAPH_PRINT_ANNOTATED);
        char want_ann[64], want_arg[64];
        snprintf(want_ann, sizeof want_ann, "L_x_: \"%s[2][1]cpu\"", cases[i].abbr);
        snprintf(want_arg, sizeof want_arg, "%s)", cases[i].torch);
        cr_assert(strstr(code, want_ann), "%s: no %s in\n%s", cases[i].torch, want_ann, code);
        cr_assert(strstr(code, want_arg), "%s: no %s in\n%s", cases[i].torch, want_arg, code);
        free(code);
        graph_free(g);
    }
}

Test(graph, fx_code_modules_methods_kwargs) {
    Graph *g = graph_new("fx");
    GraphNode *x = graph_placeholder(g, "x", NULL);
    GraphArg a1 = graph_arg_node(x);
    GraphNode *m = graph_node_new(g, GRAPH_CALL_MODULE, "layers.0", "layers.0", &a1, 1, NULL, NULL, 0);
    GraphArg a2 = graph_arg_node(m);
    const char *kn[1] = {"dim"};
    GraphArg kv[1] = {graph_arg_int(1)};
    GraphNode *s = graph_node_new(g, GRAPH_CALL_METHOD, "sum", "sum", &a2, 1, kn, kv, 1);
    GraphArg a3[2] = {graph_arg_node(s), graph_arg_float(0.5)};
    GraphNode *mul = graph_node_new(g, GRAPH_CALL_FUNCTION, "mul", "operator.mul", a3, 2, NULL, NULL, 0);
    GraphArg out = graph_arg_node(mul);
    graph_output(g, &out, 1);
    char *code = graph_code(g, GRAPH_PRINT_FX);
    cr_assert_str_eq(code,
                     "\n\n\ndef forward(self, x):\n"
                     "    layers_0 = getattr(self.layers, \"0\")(x);  x = None\n"
                     "    sum_1 = layers_0.sum(dim = 1);  layers_0 = None\n"
                     "    mul = sum_1 * 0.5;  sum_1 = None\n"
                     "    return mul\n"
                     "    ");
    free(code);
    char *tab = graph_tabular(g);
    cr_assert(strstr(tab, "call_module    layers_0  layers.0"), "%s", tab);
    cr_assert(strstr(tab, "{'dim': 1}"), "%s", tab);
    free(tab);
    char *dot = graph_to_dot(g);
    cr_assert(strstr(dot, "\"sum_1\" -> \"mul\";"), "%s", dot);
    free(dot);
    graph_free(g);
}

static int released;
static void release_counter(void *p) { (*(int *)p)++; }

Test(graph, opaque_values_are_released_once) {
    released = 0;
    Graph *g = graph_new("g");
    GraphOpaque *hook = graph_opaque_new(&released, release_counter, "<function hook>");
    GraphNode *x = graph_placeholder(g, "x", NULL);
    GraphArg args[2] = {graph_arg_opaque(hook), graph_arg_node(x)};
    GraphArg tuple = graph_arg_seq(GARG_TUPLE, args, 2);
    GraphNode *n1 = graph_node_new(g, GRAPH_CALL_FUNCTION, "call_hook", "call_hook", &tuple, 1, NULL, NULL, 0);
    GraphNode *n2 = graph_node_new(g, GRAPH_CALL_FUNCTION, "call_hook", "call_hook", args, 2, NULL, NULL, 0);
    n2->exec.kind = GRAPH_EXEC_HOOK;
    n2->exec.opaque = hook;   /* the exec view takes over the creator's reference */
    cr_assert_eq(hook->refs, 3);
    char *code = graph_code(g, GRAPH_PRINT_FX);
    cr_assert(strstr(code, "call_hook_1 = call_hook(<function hook>, x)"), "%s", code);
    free(code);
    cr_assert_eq(graph_erase(g, n1), 0);
    cr_assert_eq(released, 0);
    graph_free(g);
    cr_assert_eq(released, 1);
}

/* torch.fx 1.13's GraphModule.code details: getattr as attribute access, placeholder defaults
 * and *args aliases, the output value printed as is (a 1-tuple stays a tuple), dict arguments,
 * str reprs, frees in the order the user's args mention the values, type annotations. */
Test(graph, fx_code_details) {
    Graph *g = graph_new("fx");
    g->output_is_value = true;
    GraphNode *x = graph_placeholder(g, "x", NULL);
    GraphNode *y = graph_placeholder(g, "y", NULL);
    GraphArg two = graph_arg_int(2);
    graph_node_set_call(g, y, GRAPH_PLACEHOLDER, "y", &two, 1, NULL, NULL, 0);
    GraphNode *va = graph_placeholder(g, "*args", "_args");
    graph_node_set_type_repr(g, x, "torch.Tensor");
    GraphArg ga[2] = {graph_arg_node(x), graph_arg_str("shape")};
    GraphNode *shp = graph_node_new(g, GRAPH_CALL_FUNCTION, "getattr", "getattr", ga, 2, NULL, NULL, 0);
    GraphArg gb[2] = {graph_arg_node(x), graph_arg_str("0x")};
    GraphNode *odd = graph_node_new(g, GRAPH_CALL_FUNCTION, "getattr", "getattr", gb, 2, NULL, NULL, 0);
    GraphArg ad[2] = {graph_arg_node(odd), graph_arg_node(shp)};   /* odd is defined after shp */
    GraphNode *add = graph_node_new(g, GRAPH_CALL_FUNCTION, "add", "operator.add", ad, 2, NULL, NULL, 0);
    GraphArg s[2] = {graph_arg_node(add), graph_arg_str("it's")};
    GraphNode *m = graph_node_new(g, GRAPH_CALL_METHOD, "split", "split", s, 2, NULL, NULL, 0);
    GraphArg kv[4] = {graph_arg_str("a"), graph_arg_node(m), graph_arg_str("b\n"), graph_arg_node(va)};
    GraphArg d = graph_arg_seq(GARG_DICT, kv, 4);
    GraphArg one[2] = {d, graph_arg_node(y)};
    GraphArg tup = graph_arg_seq(GARG_TUPLE, one, 1);
    GraphNode *out = graph_node_new(g, GRAPH_OUTPUT, "output", "output", &tup, 1, NULL, NULL, 0);
    (void)out;
    char err[256];
    cr_assert_eq(graph_verify(g, err, sizeof err), 0, "%s", err);
    char *code = graph_code(g, GRAPH_PRINT_FX);
    cr_assert_str_eq(code,
                     "\n\n\ndef forward(self, x : torch.Tensor, y = 2, *args):\n"
                     "    _args = args\n"
                     "    getattr_1 = x.shape\n"
                     "    getattr_2 = getattr(x, '0x');  x = None\n"
                     "    add = getattr_2 + getattr_1;  getattr_2 = getattr_1 = None\n"
                     "    split = add.split(\"it's\");  add = None\n"
                     "    return ({'a': split, 'b\\n': _args},)\n"
                     "    ");
    free(code);
    /* a node moved by hand keeps its place */
    graph_move_before(g, add, shp);
    cr_assert_eq(g->first->next->next->next, add);
    cr_assert_neq(graph_verify(g, err, sizeof err), 0, "a moved use before its definition is caught");
    graph_move_before(g, add, m);
    cr_assert_eq(graph_verify(g, err, sizeof err), 0, "%s", err);
    GraphNode *n = graph_node_new(g, GRAPH_CALL_FUNCTION, "a..b", "f", NULL, 0, NULL, NULL, 0);
    cr_assert_str_eq(n->name, "a_b", "a run of illegal characters becomes one underscore");
    Graph *empty = graph_new("fx");
    code = graph_code(empty, GRAPH_PRINT_FX);
    cr_assert_str_eq(code, "\n\n\ndef forward(self):\n    pass\n    ", "fx's body of a graph without nodes");
    free(code);
    graph_free(empty);
    graph_free(g);
}

/* fx graphs (append_only): nodes keep the order they were made in, a placeholder made after
 * other nodes is still a parameter of the printed forward, the verifier accepts it; a reserved
 * name is never given to a node; print_tabular's columns are at least header + 2 wide. */
Test(graph, fx_append_only_and_reserved_names) {
    Graph *g = graph_new("fx");
    g->append_only = true;
    g->output_is_value = true;
    GraphNode *x = graph_placeholder(g, "x", NULL);
    GraphArg a[2] = {graph_arg_node(x), graph_arg_bool(true)};
    GraphNode *eq = graph_node_new(g, GRAPH_CALL_FUNCTION, "eq", "operator.eq", a, 2, NULL, NULL, 0);
    GraphNode *y = graph_placeholder(g, "y_1", NULL);
    GraphArg none = graph_arg_none();
    graph_node_set_call(g, y, GRAPH_PLACEHOLDER, y->target, &none, 1, NULL, NULL, 0);
    char *reserved = graph_reserve_name(g, "relu");
    cr_assert_str_eq(reserved, "relu");
    free(reserved);
    GraphArg b[1] = {graph_arg_node(y)};
    GraphNode *relu = graph_node_new(g, GRAPH_CALL_METHOD, "relu", "relu", b, 1, NULL, NULL, 0);
    cr_assert_str_eq(relu->name, "relu_1", "a reserved name stays used");
    GraphArg outs[2] = {graph_arg_node(relu), graph_arg_node(eq)};
    GraphArg tup = graph_arg_seq(GARG_TUPLE, outs, 2);
    graph_node_new(g, GRAPH_OUTPUT, "output", "output", &tup, 1, NULL, NULL, 0);
    cr_assert_eq(x->next, eq);
    cr_assert_eq(eq->next, y, "no placement rule moved the placeholder");
    char err[256];
    cr_assert_eq(graph_verify(g, err, sizeof err), 0, "%s", err);
    char *code = graph_code(g, GRAPH_PRINT_FX);
    cr_assert_str_eq(code,
                     "\n\n\ndef forward(self, x, y_1 = None):\n"
                     "    eq = x == True;  x = None\n"
                     "    relu_1 = y_1.relu();  y_1 = None\n"
                     "    return (relu_1, eq)\n"
                     "    ");
    free(code);
    char *tab = graph_tabular(g);
    /* what tabulate 0.8.9 prints for these rows */
    cr_assert_str_eq(tab,
                     "opcode         name    target       args             kwargs\n"
                     "-------------  ------  -----------  ---------------  --------\n"
                     "placeholder    x       x            ()               {}\n"
                     "call_function  eq      operator.eq  (x, True)        {}\n"
                     "placeholder    y_1     y_1          (None,)          {}\n"
                     "call_method    relu_1  relu         (y_1,)           {}\n"
                     "output         output  output       ((relu_1, eq),)  {}\n");
    free(tab);
    graph_free(g);
}
