# compile(tree, ...): trees from the parser round-trip, trees built or edited by hand compile and
# run, and bad trees raise what CPython raises (obj2ast's TypeErrors, PyAST_Validate's
# ValueErrors, the compiler's SyntaxErrors) with its messages.
import _ast


def parse(src, mode='exec'):
    return compile(src, '<tree>', mode, _ast.PyCF_ONLY_AST)


def loc(node, line=1, col=0):
    node.lineno, node.col_offset, node.end_lineno, node.end_col_offset = line, col, line, col + 1
    return node


# round trip: parse, compile the tree, run it
tree = parse("def f(a, *args, k=2, **kw):\n    return a + sum(args) + k\nprint(f(1, 2, 3, k=4), [x * x for x in range(4)])\n")
exec(compile(tree, '<tree>', 'exec'))
print(eval(compile(parse('1 + 2 * 3', 'eval'), '<tree>', 'eval')))
exec(compile(parse("match [1, 2]:\n    case [a, *b]:\n        print('match', a, b)\n"), '<tree>', 'exec'))

# editing a parsed tree: every Add becomes a Mult
tree = parse("print(3 + 4, 5 + 6)")
for arg in tree.body[0].value.args:
    arg.op = _ast.Mult()
exec(compile(tree, '<edited>', 'exec'))

# a tree built by hand (positions given explicitly)
call = loc(_ast.Call(func=loc(_ast.Name('print', _ast.Load())),
                     args=[loc(_ast.Constant('built')), loc(_ast.BinOp(loc(_ast.Constant(6)), _ast.Mult(), loc(_ast.Constant(7))))],
                     keywords=[loc(_ast.keyword('sep', loc(_ast.Constant(' | '))))]))
mod = _ast.Module(body=[loc(_ast.Expr(call))], type_ignores=[])
exec(compile(mod, '<built>', 'exec'))
# positions missing at the end default to the start ones
expr = _ast.Expression(body=_ast.Constant(value=(1, (2.5, 'x'), None), lineno=1, col_offset=0))
print(eval(compile(expr, '<built>', 'eval')))
big = _ast.Expression(body=loc(_ast.BinOp(loc(_ast.Constant(2 ** 70)), _ast.Add(), loc(_ast.Constant(-1)))))
print(eval(compile(big, '<built>', 'eval')))
inter = _ast.Interactive(body=[loc(_ast.Assign(targets=[loc(_ast.Name('zz', _ast.Store()))], value=loc(_ast.Constant(5))))])
exec(compile(inter, '<built>', 'single'))
print(zz)


def attempt(tree, mode='exec'):
    try:
        compile(tree, '<bad>', mode)
        print('compiled')
    except (TypeError, ValueError, SyntaxError, OverflowError, RecursionError) as e:
        print(type(e).__name__, e)


N = lambda name, ctx=None: loc(_ast.Name(name, ctx or _ast.Load()))
E = lambda value: loc(_ast.Expr(value))
attempt(_ast.Module(body=[1], type_ignores=[]))
attempt(_ast.Module(body=[loc(_ast.Pass())]))
attempt(_ast.Module(body=[loc(_ast.Expr())], type_ignores=[]))
attempt(_ast.Module(body=[E(None)], type_ignores=[]))
attempt(_ast.Module(body=[E(loc(_ast.Name(1, _ast.Load())))], type_ignores=[]))
attempt(_ast.Module(body=[E(loc(_ast.Name('x', None)))], type_ignores=[]))
attempt(_ast.Module(body=(), type_ignores=[]))
attempt(_ast.Module(body=[None], type_ignores=[]))
attempt(_ast.Module(body=[E(loc(_ast.Constant([1])))], type_ignores=[]))
attempt(_ast.Module(body=[E(_ast.Constant(1))], type_ignores=[]))
attempt(_ast.Expression(body=_ast.Constant(value=1, lineno='a', col_offset=0)), 'eval')
attempt(_ast.Expression(body=_ast.Constant(value=1, lineno=2 ** 40, col_offset=0)), 'eval')
attempt(_ast.Expression(body=N('None')), 'eval')
attempt(_ast.Expression(body=loc(_ast.BoolOp(_ast.And(), [N('a')]))), 'eval')
attempt(_ast.Expression(body=loc(_ast.Compare(N('a'), [_ast.Lt()], []))), 'eval')
attempt(_ast.Expression(body=loc(_ast.Dict([N('a')], []))), 'eval')
attempt(_ast.Expression(body=loc(_ast.NamedExpr(loc(_ast.Attribute(N('a'), 'b', _ast.Store())), N('c')))), 'eval')
attempt(_ast.Expression(body=N('x', _ast.Store())), 'eval')
attempt(_ast.Expression(body=loc(_ast.BinOp(N('a'), _ast.Add(), N('b', _ast.Del())))), 'eval')
attempt(_ast.Expression(body=loc(_ast.Name('x', _ast.Load()), 3, 5)), 'exec')
attempt(_ast.Module([loc(_ast.Return())], []))
attempt(_ast.Module([loc(_ast.Assign([loc(_ast.Constant(1))], N('x')))], []))
attempt(_ast.Module([loc(_ast.Delete([]))], []))
attempt(_ast.Module([loc(_ast.If(N('x'), [], []))], []))
attempt(_ast.Module([loc(_ast.Try([loc(_ast.Pass())], [], [], []))], []))
attempt(_ast.Module([loc(_ast.Raise(None, N('c')))], []))
attempt(_ast.Module([loc(_ast.ImportFrom('m', [loc(_ast.alias('x'))], -1))], []))
attempt(_ast.Module([loc(_ast.Import([]))], []))
attempt(_ast.Module([loc(_ast.AnnAssign(loc(_ast.Attribute(N('a'), 'b', _ast.Store())), N('int'), None, 1))], []))
bad_pos = _ast.Name('x', _ast.Load(), lineno=3, col_offset=2, end_lineno=1, end_col_offset=0)
attempt(_ast.Expression(body=bad_pos), 'eval')
attempt(_ast.Expression(body=loc(_ast.Lambda(_ast.arguments([], [], None, [], [], None, [N('d')]), N('x')))), 'eval')
attempt(_ast.Expression(body=loc(_ast.Lambda(_ast.arguments([], [], None, [loc(_ast.arg('k'))], [], None, []), N('x')))), 'eval')
case = lambda pattern: _ast.match_case(pattern, None, [loc(_ast.Pass())])
for pattern in [loc(_ast.MatchValue(N('x'))), loc(_ast.MatchSingleton(1)), loc(_ast.MatchStar('s')),
                loc(_ast.MatchAs(loc(_ast.MatchAs(None, 'a')), None)), loc(_ast.MatchAs(None, '_')),
                loc(_ast.MatchOr([loc(_ast.MatchAs(None, 'a'))])),
                loc(_ast.MatchClass(loc(_ast.Call(N('C'), [], [])), [], [], [])),
                loc(_ast.MatchMapping([loc(_ast.Constant(1))], [], None))]:
    attempt(_ast.Module([loc(_ast.Match(N('p'), [case(pattern)]))], []))
attempt(_ast.Module([loc(_ast.Match(N('p'), []))], []))
attempt(parse('x'), 'eval')
attempt(_ast.Expression(body=_ast.arg('x')), 'eval')
attempt(_ast.Expression(body=loc(_ast.Name('x', _ast.Load()))), 'single')
attempt(_ast.Expression(loc(_ast.List([N('a')], _ast.Load(), extra=1))), 'eval')


class Tracking(list):
    pass


attempt(_ast.Module(body=Tracking([loc(_ast.Pass())]), type_ignores=[]))
