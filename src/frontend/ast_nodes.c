/* ast_nodes.c — the table of CPython 3.11's AST classes (see ast_nodes.h): one row per class of
 * the `_ast` module, in the order CPython's Python-ast.c creates them (AST, each sum type followed
 * by its constructors, then the product types).  Names, bases, fields and signatures are CPython's
 * (checked against CPython by tests/lang/ast_module/classes.py); offsets say where Ember's C tree
 * (ast.h) keeps each field.  AsyncFunctionDef, AsyncFor and AsyncWith read FunctionDef's, For's
 * and With's members, which they share in ast.h. */
#include "src/frontend/ast_nodes.h"

#include "src/frontend/ast.h"

const AstNodeDef ast_node_defs[AST_NODE_COUNT] = {
    {"AST", -1, FAM_NONE, 0, NULL, 0, {}},
    {"mod", 0, FAM_MOD, 0, NULL, 0, {}},
    {"Module", 1, FAM_MOD, AST_MOD_MODULE, "Module(stmt* body, type_ignore* type_ignores)", 2, {{"body", T_STMT, Q_SEQ, offsetof(AstModule, body)}, {"type_ignores", T_TYPE_IGNORE, Q_SEQ, AST_FIELD_ABSENT}}},
    {"Interactive", 1, FAM_MOD, AST_MOD_INTERACTIVE, "Interactive(stmt* body)", 1, {{"body", T_STMT, Q_SEQ, offsetof(AstModule, body)}}},
    {"Expression", 1, FAM_MOD, AST_MOD_EXPRESSION, "Expression(expr body)", 1, {{"body", T_EXPR, Q_ONE, offsetof(AstModule, expr)}}},
    {"FunctionType", 1, FAM_MOD, AST_MOD_FUNCTION_TYPE, "FunctionType(expr* argtypes, expr returns)", 2, {{"argtypes", T_EXPR, Q_SEQ, offsetof(AstModule, argtypes)}, {"returns", T_EXPR, Q_ONE, offsetof(AstModule, expr)}}},
    {"stmt", 0, FAM_STMT, 0, NULL, 0, {}},
    {"FunctionDef", 6, FAM_STMT, AST_STMT_FUNCTION_DEF, "FunctionDef(identifier name, arguments args, stmt* body, expr* decorator_list, expr? returns, string? type_comment)", 6, {{"name", T_IDENT, Q_ONE, offsetof(AstStmt, v.FunctionDef.name)}, {"args", T_ARGUMENTS, Q_ONE, offsetof(AstStmt, v.FunctionDef.args)}, {"body", T_STMT, Q_SEQ, offsetof(AstStmt, v.FunctionDef.body)}, {"decorator_list", T_EXPR, Q_SEQ, offsetof(AstStmt, v.FunctionDef.decorator_list)}, {"returns", T_EXPR, Q_OPT, offsetof(AstStmt, v.FunctionDef.returns)}, {"type_comment", T_STRING, Q_OPT, AST_FIELD_ABSENT}}},
    {"AsyncFunctionDef", 6, FAM_STMT, AST_STMT_ASYNC_FUNCTION_DEF, "AsyncFunctionDef(identifier name, arguments args, stmt* body, expr* decorator_list, expr? returns, string? type_comment)", 6, {{"name", T_IDENT, Q_ONE, offsetof(AstStmt, v.FunctionDef.name)}, {"args", T_ARGUMENTS, Q_ONE, offsetof(AstStmt, v.FunctionDef.args)}, {"body", T_STMT, Q_SEQ, offsetof(AstStmt, v.FunctionDef.body)}, {"decorator_list", T_EXPR, Q_SEQ, offsetof(AstStmt, v.FunctionDef.decorator_list)}, {"returns", T_EXPR, Q_OPT, offsetof(AstStmt, v.FunctionDef.returns)}, {"type_comment", T_STRING, Q_OPT, AST_FIELD_ABSENT}}},
    {"ClassDef", 6, FAM_STMT, AST_STMT_CLASS_DEF, "ClassDef(identifier name, expr* bases, keyword* keywords, stmt* body, expr* decorator_list)", 5, {{"name", T_IDENT, Q_ONE, offsetof(AstStmt, v.ClassDef.name)}, {"bases", T_EXPR, Q_SEQ, offsetof(AstStmt, v.ClassDef.bases)}, {"keywords", T_KEYWORD, Q_SEQ, offsetof(AstStmt, v.ClassDef.keywords)}, {"body", T_STMT, Q_SEQ, offsetof(AstStmt, v.ClassDef.body)}, {"decorator_list", T_EXPR, Q_SEQ, offsetof(AstStmt, v.ClassDef.decorator_list)}}},
    {"Return", 6, FAM_STMT, AST_STMT_RETURN, "Return(expr? value)", 1, {{"value", T_EXPR, Q_OPT, offsetof(AstStmt, v.Return.value)}}},
    {"Delete", 6, FAM_STMT, AST_STMT_DELETE, "Delete(expr* targets)", 1, {{"targets", T_EXPR, Q_SEQ, offsetof(AstStmt, v.Delete.targets)}}},
    {"Assign", 6, FAM_STMT, AST_STMT_ASSIGN, "Assign(expr* targets, expr value, string? type_comment)", 3, {{"targets", T_EXPR, Q_SEQ, offsetof(AstStmt, v.Assign.targets)}, {"value", T_EXPR, Q_ONE, offsetof(AstStmt, v.Assign.value)}, {"type_comment", T_STRING, Q_OPT, AST_FIELD_ABSENT}}},
    {"AugAssign", 6, FAM_STMT, AST_STMT_AUG_ASSIGN, "AugAssign(expr target, operator op, expr value)", 3, {{"target", T_EXPR, Q_ONE, offsetof(AstStmt, v.AugAssign.target)}, {"op", T_OPERATOR, Q_ONE, offsetof(AstStmt, v.AugAssign.op)}, {"value", T_EXPR, Q_ONE, offsetof(AstStmt, v.AugAssign.value)}}},
    {"AnnAssign", 6, FAM_STMT, AST_STMT_ANN_ASSIGN, "AnnAssign(expr target, expr annotation, expr? value, int simple)", 4, {{"target", T_EXPR, Q_ONE, offsetof(AstStmt, v.AnnAssign.target)}, {"annotation", T_EXPR, Q_ONE, offsetof(AstStmt, v.AnnAssign.annotation)}, {"value", T_EXPR, Q_OPT, offsetof(AstStmt, v.AnnAssign.value)}, {"simple", T_INT, Q_ONE, offsetof(AstStmt, v.AnnAssign.simple)}}},
    {"For", 6, FAM_STMT, AST_STMT_FOR, "For(expr target, expr iter, stmt* body, stmt* orelse, string? type_comment)", 5, {{"target", T_EXPR, Q_ONE, offsetof(AstStmt, v.For.target)}, {"iter", T_EXPR, Q_ONE, offsetof(AstStmt, v.For.iter)}, {"body", T_STMT, Q_SEQ, offsetof(AstStmt, v.For.body)}, {"orelse", T_STMT, Q_SEQ, offsetof(AstStmt, v.For.orelse)}, {"type_comment", T_STRING, Q_OPT, AST_FIELD_ABSENT}}},
    {"AsyncFor", 6, FAM_STMT, AST_STMT_ASYNC_FOR, "AsyncFor(expr target, expr iter, stmt* body, stmt* orelse, string? type_comment)", 5, {{"target", T_EXPR, Q_ONE, offsetof(AstStmt, v.For.target)}, {"iter", T_EXPR, Q_ONE, offsetof(AstStmt, v.For.iter)}, {"body", T_STMT, Q_SEQ, offsetof(AstStmt, v.For.body)}, {"orelse", T_STMT, Q_SEQ, offsetof(AstStmt, v.For.orelse)}, {"type_comment", T_STRING, Q_OPT, AST_FIELD_ABSENT}}},
    {"While", 6, FAM_STMT, AST_STMT_WHILE, "While(expr test, stmt* body, stmt* orelse)", 3, {{"test", T_EXPR, Q_ONE, offsetof(AstStmt, v.While.test)}, {"body", T_STMT, Q_SEQ, offsetof(AstStmt, v.While.body)}, {"orelse", T_STMT, Q_SEQ, offsetof(AstStmt, v.While.orelse)}}},
    {"If", 6, FAM_STMT, AST_STMT_IF, "If(expr test, stmt* body, stmt* orelse)", 3, {{"test", T_EXPR, Q_ONE, offsetof(AstStmt, v.If.test)}, {"body", T_STMT, Q_SEQ, offsetof(AstStmt, v.If.body)}, {"orelse", T_STMT, Q_SEQ, offsetof(AstStmt, v.If.orelse)}}},
    {"With", 6, FAM_STMT, AST_STMT_WITH, "With(withitem* items, stmt* body, string? type_comment)", 3, {{"items", T_WITHITEM, Q_SEQ, offsetof(AstStmt, v.With.items)}, {"body", T_STMT, Q_SEQ, offsetof(AstStmt, v.With.body)}, {"type_comment", T_STRING, Q_OPT, AST_FIELD_ABSENT}}},
    {"AsyncWith", 6, FAM_STMT, AST_STMT_ASYNC_WITH, "AsyncWith(withitem* items, stmt* body, string? type_comment)", 3, {{"items", T_WITHITEM, Q_SEQ, offsetof(AstStmt, v.With.items)}, {"body", T_STMT, Q_SEQ, offsetof(AstStmt, v.With.body)}, {"type_comment", T_STRING, Q_OPT, AST_FIELD_ABSENT}}},
    {"Match", 6, FAM_STMT, AST_STMT_MATCH, "Match(expr subject, match_case* cases)", 2, {{"subject", T_EXPR, Q_ONE, offsetof(AstStmt, v.Match.subject)}, {"cases", T_MATCH_CASE, Q_SEQ, offsetof(AstStmt, v.Match.cases)}}},
    {"Raise", 6, FAM_STMT, AST_STMT_RAISE, "Raise(expr? exc, expr? cause)", 2, {{"exc", T_EXPR, Q_OPT, offsetof(AstStmt, v.Raise.exc)}, {"cause", T_EXPR, Q_OPT, offsetof(AstStmt, v.Raise.cause)}}},
    {"Try", 6, FAM_STMT, AST_STMT_TRY, "Try(stmt* body, excepthandler* handlers, stmt* orelse, stmt* finalbody)", 4, {{"body", T_STMT, Q_SEQ, offsetof(AstStmt, v.Try.body)}, {"handlers", T_EXCEPTHANDLER, Q_SEQ, offsetof(AstStmt, v.Try.handlers)}, {"orelse", T_STMT, Q_SEQ, offsetof(AstStmt, v.Try.orelse)}, {"finalbody", T_STMT, Q_SEQ, offsetof(AstStmt, v.Try.finalbody)}}},
    {"TryStar", 6, FAM_STMT, -1, "TryStar(stmt* body, excepthandler* handlers, stmt* orelse, stmt* finalbody)", 4, {{"body", T_STMT, Q_SEQ, AST_FIELD_ABSENT}, {"handlers", T_EXCEPTHANDLER, Q_SEQ, AST_FIELD_ABSENT}, {"orelse", T_STMT, Q_SEQ, AST_FIELD_ABSENT}, {"finalbody", T_STMT, Q_SEQ, AST_FIELD_ABSENT}}},
    {"Assert", 6, FAM_STMT, AST_STMT_ASSERT, "Assert(expr test, expr? msg)", 2, {{"test", T_EXPR, Q_ONE, offsetof(AstStmt, v.Assert.test)}, {"msg", T_EXPR, Q_OPT, offsetof(AstStmt, v.Assert.msg)}}},
    {"Import", 6, FAM_STMT, AST_STMT_IMPORT, "Import(alias* names)", 1, {{"names", T_ALIAS, Q_SEQ, offsetof(AstStmt, v.Import.names)}}},
    {"ImportFrom", 6, FAM_STMT, AST_STMT_IMPORT_FROM, "ImportFrom(identifier? module, alias* names, int? level)", 3, {{"module", T_IDENT, Q_OPT, offsetof(AstStmt, v.ImportFrom.module)}, {"names", T_ALIAS, Q_SEQ, offsetof(AstStmt, v.ImportFrom.names)}, {"level", T_INT, Q_OPT, offsetof(AstStmt, v.ImportFrom.level)}}},
    {"Global", 6, FAM_STMT, AST_STMT_GLOBAL, "Global(identifier* names)", 1, {{"names", T_IDENT, Q_SEQ, offsetof(AstStmt, v.Global.names)}}},
    {"Nonlocal", 6, FAM_STMT, AST_STMT_NONLOCAL, "Nonlocal(identifier* names)", 1, {{"names", T_IDENT, Q_SEQ, offsetof(AstStmt, v.Nonlocal.names)}}},
    {"Expr", 6, FAM_STMT, AST_STMT_EXPR, "Expr(expr value)", 1, {{"value", T_EXPR, Q_ONE, offsetof(AstStmt, v.Expr.value)}}},
    {"Pass", 6, FAM_STMT, AST_STMT_PASS, "Pass", 0, {}},
    {"Break", 6, FAM_STMT, AST_STMT_BREAK, "Break", 0, {}},
    {"Continue", 6, FAM_STMT, AST_STMT_CONTINUE, "Continue", 0, {}},
    {"expr", 0, FAM_EXPR, 0, NULL, 0, {}},
    {"BoolOp", 34, FAM_EXPR, AST_EXPR_BOOL_OP, "BoolOp(boolop op, expr* values)", 2, {{"op", T_BOOLOP, Q_ONE, offsetof(AstExpr, v.BoolOp.op)}, {"values", T_EXPR, Q_SEQ, offsetof(AstExpr, v.BoolOp.values)}}},
    {"NamedExpr", 34, FAM_EXPR, AST_EXPR_NAMED_EXPR, "NamedExpr(expr target, expr value)", 2, {{"target", T_EXPR, Q_ONE, offsetof(AstExpr, v.NamedExpr.target)}, {"value", T_EXPR, Q_ONE, offsetof(AstExpr, v.NamedExpr.value)}}},
    {"BinOp", 34, FAM_EXPR, AST_EXPR_BIN_OP, "BinOp(expr left, operator op, expr right)", 3, {{"left", T_EXPR, Q_ONE, offsetof(AstExpr, v.BinOp.left)}, {"op", T_OPERATOR, Q_ONE, offsetof(AstExpr, v.BinOp.op)}, {"right", T_EXPR, Q_ONE, offsetof(AstExpr, v.BinOp.right)}}},
    {"UnaryOp", 34, FAM_EXPR, AST_EXPR_UNARY_OP, "UnaryOp(unaryop op, expr operand)", 2, {{"op", T_UNARYOP, Q_ONE, offsetof(AstExpr, v.UnaryOp.op)}, {"operand", T_EXPR, Q_ONE, offsetof(AstExpr, v.UnaryOp.operand)}}},
    {"Lambda", 34, FAM_EXPR, AST_EXPR_LAMBDA, "Lambda(arguments args, expr body)", 2, {{"args", T_ARGUMENTS, Q_ONE, offsetof(AstExpr, v.Lambda.args)}, {"body", T_EXPR, Q_ONE, offsetof(AstExpr, v.Lambda.body)}}},
    {"IfExp", 34, FAM_EXPR, AST_EXPR_IF_EXP, "IfExp(expr test, expr body, expr orelse)", 3, {{"test", T_EXPR, Q_ONE, offsetof(AstExpr, v.IfExp.test)}, {"body", T_EXPR, Q_ONE, offsetof(AstExpr, v.IfExp.body)}, {"orelse", T_EXPR, Q_ONE, offsetof(AstExpr, v.IfExp.orelse)}}},
    {"Dict", 34, FAM_EXPR, AST_EXPR_DICT, "Dict(expr* keys, expr* values)", 2, {{"keys", T_EXPR, Q_SEQ, offsetof(AstExpr, v.Dict.keys)}, {"values", T_EXPR, Q_SEQ, offsetof(AstExpr, v.Dict.values)}}},
    {"Set", 34, FAM_EXPR, AST_EXPR_SET, "Set(expr* elts)", 1, {{"elts", T_EXPR, Q_SEQ, offsetof(AstExpr, v.Set.elts)}}},
    {"ListComp", 34, FAM_EXPR, AST_EXPR_LIST_COMP, "ListComp(expr elt, comprehension* generators)", 2, {{"elt", T_EXPR, Q_ONE, offsetof(AstExpr, v.ListComp.elt)}, {"generators", T_COMPREHENSION, Q_SEQ, offsetof(AstExpr, v.ListComp.generators)}}},
    {"SetComp", 34, FAM_EXPR, AST_EXPR_SET_COMP, "SetComp(expr elt, comprehension* generators)", 2, {{"elt", T_EXPR, Q_ONE, offsetof(AstExpr, v.SetComp.elt)}, {"generators", T_COMPREHENSION, Q_SEQ, offsetof(AstExpr, v.SetComp.generators)}}},
    {"DictComp", 34, FAM_EXPR, AST_EXPR_DICT_COMP, "DictComp(expr key, expr value, comprehension* generators)", 3, {{"key", T_EXPR, Q_ONE, offsetof(AstExpr, v.DictComp.key)}, {"value", T_EXPR, Q_ONE, offsetof(AstExpr, v.DictComp.value)}, {"generators", T_COMPREHENSION, Q_SEQ, offsetof(AstExpr, v.DictComp.generators)}}},
    {"GeneratorExp", 34, FAM_EXPR, AST_EXPR_GENERATOR_EXP, "GeneratorExp(expr elt, comprehension* generators)", 2, {{"elt", T_EXPR, Q_ONE, offsetof(AstExpr, v.GeneratorExp.elt)}, {"generators", T_COMPREHENSION, Q_SEQ, offsetof(AstExpr, v.GeneratorExp.generators)}}},
    {"Await", 34, FAM_EXPR, AST_EXPR_AWAIT, "Await(expr value)", 1, {{"value", T_EXPR, Q_ONE, offsetof(AstExpr, v.Await.value)}}},
    {"Yield", 34, FAM_EXPR, AST_EXPR_YIELD, "Yield(expr? value)", 1, {{"value", T_EXPR, Q_OPT, offsetof(AstExpr, v.Yield.value)}}},
    {"YieldFrom", 34, FAM_EXPR, AST_EXPR_YIELD_FROM, "YieldFrom(expr value)", 1, {{"value", T_EXPR, Q_ONE, offsetof(AstExpr, v.YieldFrom.value)}}},
    {"Compare", 34, FAM_EXPR, AST_EXPR_COMPARE, "Compare(expr left, cmpop* ops, expr* comparators)", 3, {{"left", T_EXPR, Q_ONE, offsetof(AstExpr, v.Compare.left)}, {"ops", T_CMPOP, Q_SEQ, offsetof(AstExpr, v.Compare.ops)}, {"comparators", T_EXPR, Q_SEQ, offsetof(AstExpr, v.Compare.comparators)}}},
    {"Call", 34, FAM_EXPR, AST_EXPR_CALL, "Call(expr func, expr* args, keyword* keywords)", 3, {{"func", T_EXPR, Q_ONE, offsetof(AstExpr, v.Call.func)}, {"args", T_EXPR, Q_SEQ, offsetof(AstExpr, v.Call.args)}, {"keywords", T_KEYWORD, Q_SEQ, offsetof(AstExpr, v.Call.keywords)}}},
    {"FormattedValue", 34, FAM_EXPR, AST_EXPR_FORMATTED_VALUE, "FormattedValue(expr value, int conversion, expr? format_spec)", 3, {{"value", T_EXPR, Q_ONE, offsetof(AstExpr, v.FormattedValue.value)}, {"conversion", T_INT, Q_ONE, offsetof(AstExpr, v.FormattedValue.conversion)}, {"format_spec", T_EXPR, Q_OPT, offsetof(AstExpr, v.FormattedValue.format_spec)}}},
    {"JoinedStr", 34, FAM_EXPR, AST_EXPR_JOINED_STR, "JoinedStr(expr* values)", 1, {{"values", T_EXPR, Q_SEQ, offsetof(AstExpr, v.JoinedStr.values)}}},
    {"Constant", 34, FAM_EXPR, AST_EXPR_CONSTANT, "Constant(constant value, string? kind)", 2, {{"value", T_CONSTANT, Q_ONE, offsetof(AstExpr, v.Constant.value)}, {"kind", T_STRING, Q_OPT, offsetof(AstExpr, v.Constant.kind)}}},
    {"Attribute", 34, FAM_EXPR, AST_EXPR_ATTRIBUTE, "Attribute(expr value, identifier attr, expr_context ctx)", 3, {{"value", T_EXPR, Q_ONE, offsetof(AstExpr, v.Attribute.value)}, {"attr", T_IDENT, Q_ONE, offsetof(AstExpr, v.Attribute.attr)}, {"ctx", T_CTX, Q_ONE, offsetof(AstExpr, v.Attribute.ctx)}}},
    {"Subscript", 34, FAM_EXPR, AST_EXPR_SUBSCRIPT, "Subscript(expr value, expr slice, expr_context ctx)", 3, {{"value", T_EXPR, Q_ONE, offsetof(AstExpr, v.Subscript.value)}, {"slice", T_EXPR, Q_ONE, offsetof(AstExpr, v.Subscript.slice)}, {"ctx", T_CTX, Q_ONE, offsetof(AstExpr, v.Subscript.ctx)}}},
    {"Starred", 34, FAM_EXPR, AST_EXPR_STARRED, "Starred(expr value, expr_context ctx)", 2, {{"value", T_EXPR, Q_ONE, offsetof(AstExpr, v.Starred.value)}, {"ctx", T_CTX, Q_ONE, offsetof(AstExpr, v.Starred.ctx)}}},
    {"Name", 34, FAM_EXPR, AST_EXPR_NAME, "Name(identifier id, expr_context ctx)", 2, {{"id", T_IDENT, Q_ONE, offsetof(AstExpr, v.Name.id)}, {"ctx", T_CTX, Q_ONE, offsetof(AstExpr, v.Name.ctx)}}},
    {"List", 34, FAM_EXPR, AST_EXPR_LIST, "List(expr* elts, expr_context ctx)", 2, {{"elts", T_EXPR, Q_SEQ, offsetof(AstExpr, v.List.elts)}, {"ctx", T_CTX, Q_ONE, offsetof(AstExpr, v.List.ctx)}}},
    {"Tuple", 34, FAM_EXPR, AST_EXPR_TUPLE, "Tuple(expr* elts, expr_context ctx)", 2, {{"elts", T_EXPR, Q_SEQ, offsetof(AstExpr, v.Tuple.elts)}, {"ctx", T_CTX, Q_ONE, offsetof(AstExpr, v.Tuple.ctx)}}},
    {"Slice", 34, FAM_EXPR, AST_EXPR_SLICE, "Slice(expr? lower, expr? upper, expr? step)", 3, {{"lower", T_EXPR, Q_OPT, offsetof(AstExpr, v.Slice.lower)}, {"upper", T_EXPR, Q_OPT, offsetof(AstExpr, v.Slice.upper)}, {"step", T_EXPR, Q_OPT, offsetof(AstExpr, v.Slice.step)}}},
    {"expr_context", 0, FAM_CTX, 0, NULL, 0, {}},
    {"Load", 62, FAM_CTX, AST_LOAD, "Load", 0, {}},
    {"Store", 62, FAM_CTX, AST_STORE, "Store", 0, {}},
    {"Del", 62, FAM_CTX, AST_DEL, "Del", 0, {}},
    {"boolop", 0, FAM_BOOLOP, 0, NULL, 0, {}},
    {"And", 66, FAM_BOOLOP, AST_AND, "And", 0, {}},
    {"Or", 66, FAM_BOOLOP, AST_OR, "Or", 0, {}},
    {"operator", 0, FAM_OPERATOR, 0, NULL, 0, {}},
    {"Add", 69, FAM_OPERATOR, AST_ADD, "Add", 0, {}},
    {"Sub", 69, FAM_OPERATOR, AST_SUB, "Sub", 0, {}},
    {"Mult", 69, FAM_OPERATOR, AST_MULT, "Mult", 0, {}},
    {"MatMult", 69, FAM_OPERATOR, AST_MAT_MULT, "MatMult", 0, {}},
    {"Div", 69, FAM_OPERATOR, AST_DIV, "Div", 0, {}},
    {"Mod", 69, FAM_OPERATOR, AST_MOD, "Mod", 0, {}},
    {"Pow", 69, FAM_OPERATOR, AST_POW, "Pow", 0, {}},
    {"LShift", 69, FAM_OPERATOR, AST_LSHIFT, "LShift", 0, {}},
    {"RShift", 69, FAM_OPERATOR, AST_RSHIFT, "RShift", 0, {}},
    {"BitOr", 69, FAM_OPERATOR, AST_BIT_OR, "BitOr", 0, {}},
    {"BitXor", 69, FAM_OPERATOR, AST_BIT_XOR, "BitXor", 0, {}},
    {"BitAnd", 69, FAM_OPERATOR, AST_BIT_AND, "BitAnd", 0, {}},
    {"FloorDiv", 69, FAM_OPERATOR, AST_FLOOR_DIV, "FloorDiv", 0, {}},
    {"unaryop", 0, FAM_UNARYOP, 0, NULL, 0, {}},
    {"Invert", 83, FAM_UNARYOP, AST_INVERT, "Invert", 0, {}},
    {"Not", 83, FAM_UNARYOP, AST_NOT, "Not", 0, {}},
    {"UAdd", 83, FAM_UNARYOP, AST_UADD, "UAdd", 0, {}},
    {"USub", 83, FAM_UNARYOP, AST_USUB, "USub", 0, {}},
    {"cmpop", 0, FAM_CMPOP, 0, NULL, 0, {}},
    {"Eq", 88, FAM_CMPOP, AST_EQ, "Eq", 0, {}},
    {"NotEq", 88, FAM_CMPOP, AST_NOT_EQ, "NotEq", 0, {}},
    {"Lt", 88, FAM_CMPOP, AST_LT, "Lt", 0, {}},
    {"LtE", 88, FAM_CMPOP, AST_LTE, "LtE", 0, {}},
    {"Gt", 88, FAM_CMPOP, AST_GT, "Gt", 0, {}},
    {"GtE", 88, FAM_CMPOP, AST_GTE, "GtE", 0, {}},
    {"Is", 88, FAM_CMPOP, AST_IS, "Is", 0, {}},
    {"IsNot", 88, FAM_CMPOP, AST_IS_NOT, "IsNot", 0, {}},
    {"In", 88, FAM_CMPOP, AST_IN, "In", 0, {}},
    {"NotIn", 88, FAM_CMPOP, AST_NOT_IN, "NotIn", 0, {}},
    {"excepthandler", 0, FAM_EXCEPTHANDLER, 0, NULL, 0, {}},
    {"ExceptHandler", 99, FAM_EXCEPTHANDLER, 1, "ExceptHandler(expr? type, identifier? name, stmt* body)", 3, {{"type", T_EXPR, Q_OPT, offsetof(AstExceptHandler, type)}, {"name", T_IDENT, Q_OPT, offsetof(AstExceptHandler, name)}, {"body", T_STMT, Q_SEQ, offsetof(AstExceptHandler, body)}}},
    {"pattern", 0, FAM_PATTERN, 0, NULL, 0, {}},
    {"MatchValue", 101, FAM_PATTERN, AST_PAT_MATCH_VALUE, "MatchValue(expr value)", 1, {{"value", T_EXPR, Q_ONE, offsetof(AstPattern, v.MatchValue.value)}}},
    {"MatchSingleton", 101, FAM_PATTERN, AST_PAT_MATCH_SINGLETON, "MatchSingleton(constant value)", 1, {{"value", T_CONSTANT, Q_ONE, offsetof(AstPattern, v.MatchSingleton.value)}}},
    {"MatchSequence", 101, FAM_PATTERN, AST_PAT_MATCH_SEQUENCE, "MatchSequence(pattern* patterns)", 1, {{"patterns", T_PATTERN, Q_SEQ, offsetof(AstPattern, v.MatchSequence.patterns)}}},
    {"MatchMapping", 101, FAM_PATTERN, AST_PAT_MATCH_MAPPING, "MatchMapping(expr* keys, pattern* patterns, identifier? rest)", 3, {{"keys", T_EXPR, Q_SEQ, offsetof(AstPattern, v.MatchMapping.keys)}, {"patterns", T_PATTERN, Q_SEQ, offsetof(AstPattern, v.MatchMapping.patterns)}, {"rest", T_IDENT, Q_OPT, offsetof(AstPattern, v.MatchMapping.rest)}}},
    {"MatchClass", 101, FAM_PATTERN, AST_PAT_MATCH_CLASS, "MatchClass(expr cls, pattern* patterns, identifier* kwd_attrs, pattern* kwd_patterns)", 4, {{"cls", T_EXPR, Q_ONE, offsetof(AstPattern, v.MatchClass.cls)}, {"patterns", T_PATTERN, Q_SEQ, offsetof(AstPattern, v.MatchClass.patterns)}, {"kwd_attrs", T_IDENT, Q_SEQ, offsetof(AstPattern, v.MatchClass.kwd_attrs)}, {"kwd_patterns", T_PATTERN, Q_SEQ, offsetof(AstPattern, v.MatchClass.kwd_patterns)}}},
    {"MatchStar", 101, FAM_PATTERN, AST_PAT_MATCH_STAR, "MatchStar(identifier? name)", 1, {{"name", T_IDENT, Q_OPT, offsetof(AstPattern, v.MatchStar.name)}}},
    {"MatchAs", 101, FAM_PATTERN, AST_PAT_MATCH_AS, "MatchAs(pattern? pattern, identifier? name)", 2, {{"pattern", T_PATTERN, Q_OPT, offsetof(AstPattern, v.MatchAs.pattern)}, {"name", T_IDENT, Q_OPT, offsetof(AstPattern, v.MatchAs.name)}}},
    {"MatchOr", 101, FAM_PATTERN, AST_PAT_MATCH_OR, "MatchOr(pattern* patterns)", 1, {{"patterns", T_PATTERN, Q_SEQ, offsetof(AstPattern, v.MatchOr.patterns)}}},
    {"type_ignore", 0, FAM_TYPE_IGNORE, 0, NULL, 0, {}},
    {"TypeIgnore", 110, FAM_TYPE_IGNORE, 1, "TypeIgnore(int lineno, string tag)", 2, {{"lineno", T_INT, Q_ONE, AST_FIELD_ABSENT}, {"tag", T_STRING, Q_ONE, AST_FIELD_ABSENT}}},
    {"arguments", 0, FAM_ARGUMENTS, 0, "arguments(arg* posonlyargs, arg* args, arg? vararg, arg* kwonlyargs, expr* kw_defaults, arg? kwarg, expr* defaults)", 7, {{"posonlyargs", T_ARG, Q_SEQ, offsetof(AstArguments, posonlyargs)}, {"args", T_ARG, Q_SEQ, offsetof(AstArguments, args)}, {"vararg", T_ARG, Q_OPT, offsetof(AstArguments, vararg)}, {"kwonlyargs", T_ARG, Q_SEQ, offsetof(AstArguments, kwonlyargs)}, {"kw_defaults", T_EXPR, Q_SEQ, offsetof(AstArguments, kw_defaults)}, {"kwarg", T_ARG, Q_OPT, offsetof(AstArguments, kwarg)}, {"defaults", T_EXPR, Q_SEQ, offsetof(AstArguments, defaults)}}},
    {"arg", 0, FAM_ARG, 0, "arg(identifier arg, expr? annotation, string? type_comment)", 3, {{"arg", T_IDENT, Q_ONE, offsetof(AstArg, arg)}, {"annotation", T_EXPR, Q_OPT, offsetof(AstArg, annotation)}, {"type_comment", T_STRING, Q_OPT, AST_FIELD_ABSENT}}},
    {"keyword", 0, FAM_KEYWORD, 0, "keyword(identifier? arg, expr value)", 2, {{"arg", T_IDENT, Q_OPT, offsetof(AstKeyword, arg)}, {"value", T_EXPR, Q_ONE, offsetof(AstKeyword, value)}}},
    {"alias", 0, FAM_ALIAS, 0, "alias(identifier name, identifier? asname)", 2, {{"name", T_IDENT, Q_ONE, offsetof(AstAlias, name)}, {"asname", T_IDENT, Q_OPT, offsetof(AstAlias, asname)}}},
    {"comprehension", 0, FAM_COMPREHENSION, 0, "comprehension(expr target, expr iter, expr* ifs, int is_async)", 4, {{"target", T_EXPR, Q_ONE, offsetof(AstComprehension, target)}, {"iter", T_EXPR, Q_ONE, offsetof(AstComprehension, iter)}, {"ifs", T_EXPR, Q_SEQ, offsetof(AstComprehension, ifs)}, {"is_async", T_INT, Q_ONE, offsetof(AstComprehension, is_async)}}},
    {"withitem", 0, FAM_WITHITEM, 0, "withitem(expr context_expr, expr? optional_vars)", 2, {{"context_expr", T_EXPR, Q_ONE, offsetof(AstWithItem, context_expr)}, {"optional_vars", T_EXPR, Q_OPT, offsetof(AstWithItem, optional_vars)}}},
    {"match_case", 0, FAM_MATCH_CASE, 0, "match_case(pattern pattern, expr? guard, stmt* body)", 3, {{"pattern", T_PATTERN, Q_ONE, offsetof(AstMatchCase, pattern)}, {"guard", T_EXPR, Q_OPT, offsetof(AstMatchCase, guard)}, {"body", T_STMT, Q_SEQ, offsetof(AstMatchCase, body)}}},
};

static const AstFamily field_families[] = {
    [T_EXPR] = FAM_EXPR,
    [T_STMT] = FAM_STMT,
    [T_PATTERN] = FAM_PATTERN,
    [T_ARGUMENTS] = FAM_ARGUMENTS,
    [T_ARG] = FAM_ARG,
    [T_KEYWORD] = FAM_KEYWORD,
    [T_ALIAS] = FAM_ALIAS,
    [T_COMPREHENSION] = FAM_COMPREHENSION,
    [T_EXCEPTHANDLER] = FAM_EXCEPTHANDLER,
    [T_WITHITEM] = FAM_WITHITEM,
    [T_MATCH_CASE] = FAM_MATCH_CASE,
    [T_TYPE_IGNORE] = FAM_TYPE_IGNORE,
    [T_IDENT] = FAM_NONE,
    [T_STRING] = FAM_NONE,
    [T_CONSTANT] = FAM_NONE,
    [T_INT] = FAM_NONE,
    [T_BOOLOP] = FAM_BOOLOP,
    [T_OPERATOR] = FAM_OPERATOR,
    [T_UNARYOP] = FAM_UNARYOP,
    [T_CMPOP] = FAM_CMPOP,
    [T_CTX] = FAM_CTX,
};

AstFamily ast_field_family(AstFieldType t) { return field_families[t]; }

int ast_node_index(AstFamily family, int kind) {
    /* a few dozen rows per family: a scan is cheap next to building the object it is for */
    static int16_t cache[FAM__COUNT][64];
    static bool filled;
    if (!filled) {
        for (int f = 0; f < FAM__COUNT; f++)
            for (int k = 0; k < 64; k++) cache[f][k] = -1;
        for (int i = 0; i < AST_NODE_COUNT; i++) {
            const AstNodeDef *d = &ast_node_defs[i];
            if (d->base < 0) continue;
            bool product = d->base == 0 && d->family >= FAM_ARGUMENTS;
            if ((d->kind > 0 && d->kind < 64) || product) cache[d->family][product ? 0 : d->kind] = (int16_t)i;
        }
        filled = true;
    }
    if (family <= FAM_NONE || family >= FAM__COUNT || kind < 0 || kind >= 64) return -1;
    return cache[family][kind];
}

int ast_family_class(AstFamily family) {
    for (int i = 1; i < AST_NODE_COUNT; i++)
        if (ast_node_defs[i].base == 0 && ast_node_defs[i].family == family) return i;
    return -1;
}

bool ast_family_has_positions(AstFamily family) {
    switch (family) {
    case FAM_STMT:
    case FAM_EXPR:
    case FAM_EXCEPTHANDLER:
    case FAM_PATTERN:
    case FAM_ARG:
    case FAM_KEYWORD:
    case FAM_ALIAS: return true;
    default: return false;
    }
}

bool ast_family_end_optional(AstFamily family) { return ast_family_has_positions(family) && family != FAM_PATTERN; }

size_t ast_family_size(AstFamily family) {
    switch (family) {
    case FAM_MOD: return sizeof(AstModule);
    case FAM_STMT: return sizeof(AstStmt);
    case FAM_EXPR: return sizeof(AstExpr);
    case FAM_EXCEPTHANDLER: return sizeof(AstExceptHandler);
    case FAM_PATTERN: return sizeof(AstPattern);
    case FAM_ARGUMENTS: return sizeof(AstArguments);
    case FAM_ARG: return sizeof(AstArg);
    case FAM_KEYWORD: return sizeof(AstKeyword);
    case FAM_ALIAS: return sizeof(AstAlias);
    case FAM_COMPREHENSION: return sizeof(AstComprehension);
    case FAM_WITHITEM: return sizeof(AstWithItem);
    case FAM_MATCH_CASE: return sizeof(AstMatchCase);
    default: return 0;
    }
}

int ast_family_kind_offset(AstFamily family) {
    switch (family) {
    case FAM_MOD: return (int)offsetof(AstModule, kind);
    case FAM_STMT: return (int)offsetof(AstStmt, kind);
    case FAM_EXPR: return (int)offsetof(AstExpr, kind);
    case FAM_PATTERN: return (int)offsetof(AstPattern, kind);
    default: return -1;
    }
}

int ast_family_pos_offset(AstFamily family) {
    switch (family) {
    case FAM_STMT: return (int)offsetof(AstStmt, lineno);
    case FAM_EXPR: return (int)offsetof(AstExpr, lineno);
    case FAM_EXCEPTHANDLER: return (int)offsetof(AstExceptHandler, lineno);
    case FAM_PATTERN: return (int)offsetof(AstPattern, lineno);
    case FAM_ARG: return (int)offsetof(AstArg, lineno);
    case FAM_KEYWORD: return (int)offsetof(AstKeyword, lineno);
    case FAM_ALIAS: return (int)offsetof(AstAlias, lineno);
    default: return -1;
    }
}
