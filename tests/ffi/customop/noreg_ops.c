/* tests/ffi/customop/noreg_ops.c — a shared library that is not an op library (it exports no
 * ember_register_ops), for the error tests. */
int ember_test_not_an_op(int x) { return x + 1; }
