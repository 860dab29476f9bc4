# The rest of the modules a model script touches: re, collections, itertools, functools,
# textwrap, string, heapq, bisect, contextlib, copy, time (deterministic parts), datetime,
# traceback, warnings, operator, ast, math/big ints, and a small unittest.main() run.
import re, collections, itertools, functools, textwrap, string, heapq, bisect, contextlib, copy, time
import datetime, traceback, warnings, operator, ast, math, sys, io, unittest

print(re.findall(r"\w+", "hello, world 42"), re.sub(r"(\d+)", lambda m: str(int(m.group(1)) * 2), "a1 b22"))
m = re.match(r"(?P<k>\w+)=(?P<v>[^;]+)", "lr=3e-4;x")
print(m.group("k"), m.groupdict(), m.span(), re.split(r"[,;]\s*", "a, b;c"), re.compile(r"^\s*#").match("  # c") is not None)
print(re.fullmatch(r"[a-z]+\d?", "abc1"), re.escape("a.b*c"), re.search(r"(?i)GPT", "nanogpt").group())
d = collections.defaultdict(list)
for w in "the cat sat on the mat".split():
    d[len(w)].append(w)
print(dict(d), collections.Counter("mississippi").most_common(2), collections.deque([1, 2, 3], maxlen=2))
od = collections.OrderedDict(a=1, b=2)
od.move_to_end("a")
print(od, collections.ChainMap({"a": 1}, {"a": 2, "b": 3})["b"], collections.namedtuple("P", "x y")(1, 2))
print(list(itertools.chain([1], [2, 3])), list(itertools.product("ab", repeat=2)), list(itertools.accumulate([1, 2, 3])))
print(list(itertools.islice(itertools.count(5, 2), 4)), [list(g) for _, g in itertools.groupby("aabbbc")], list(itertools.combinations(range(4), 2))[:3])


@functools.lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


class Lazy:
    @functools.cached_property
    def val(self):
        print("computing")
        return 42


@functools.singledispatch
def show(x):
    return "obj"


@show.register
def _(x: int):
    return "int"


@functools.total_ordering
class V:
    def __init__(self, v):
        self.v = v

    def __eq__(self, o):
        return self.v == o.v

    def __lt__(self, o):
        return self.v < o.v


lz = Lazy()
print(fib(90), fib.cache_info(), lz.val, lz.val, show(1), show("s"), V(1) >= V(0), functools.reduce(operator.mul, range(1, 6)))
print(functools.partial(int, base=2)("101"), sorted(["b", "A", "c"], key=functools.cmp_to_key(lambda a, b: (a.lower() > b.lower()) - (a.lower() < b.lower()))))
print(textwrap.fill("The quick brown fox jumps over the lazy dog " * 3, width=30))
print(textwrap.dedent("    a\n      b"), textwrap.indent("x\ny", "> "), textwrap.shorten("hello world foo", 12))
print(string.ascii_letters, string.digits, string.Template("$a-${b}").substitute(a=1, b=2), string.capwords("hi there"))
h = [5, 1, 4]
heapq.heapify(h)
heapq.heappush(h, 0)
print(heapq.heappop(h), heapq.nsmallest(2, [9, 3, 7]), heapq.nlargest(2, [9, 3, 7]), list(heapq.merge([1, 4], [2, 3])))
print(bisect.bisect_left([1, 2, 4], 3), bisect.bisect([1, 2, 2], 2))
bl = [1, 5]
bisect.insort(bl, 3)
print(bl)


@contextlib.contextmanager
def tag(name):
    print("<" + name + ">")
    yield name
    print("</" + name + ">")


with tag("a") as t, contextlib.suppress(KeyError):
    {}["x"]
with contextlib.ExitStack() as st:
    st.enter_context(tag("b"))
    st.callback(print, "cb")
out = io.StringIO()
with contextlib.redirect_stdout(out):
    print("captured")
print(repr(out.getvalue()), copy.deepcopy({"a": [1, {2}]}), copy.copy([1, [2]]))
print(time.gmtime(0).tm_year, time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(86400 * 365)), time.time() > 1e9, time.perf_counter() >= 0)
t0 = time.monotonic()
print(time.monotonic() >= t0, type(time.time_ns()).__name__, time.struct_time((2020, 1, 2, 3, 4, 5, 3, 2, 0)).tm_mday)
dt = datetime.datetime(2024, 2, 29, 13, 45, 7)
print(dt, dt.isoformat(), dt + datetime.timedelta(days=1, hours=12), dt.strftime("%a %d %b %Y"), dt.weekday(), datetime.date(2024, 1, 1).toordinal())
print(datetime.timedelta(seconds=3725), datetime.datetime.fromisoformat("2023-05-06T07:08:09"), datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc).timestamp())
try:
    {}["missing"]
except KeyError:
    print("".join(traceback.format_exc().splitlines(True)[-1:]), end="")
print(traceback.format_exception_only(ValueError("bad value"))[-1], end="")
with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter("always")
    warnings.warn("deprecated thing", DeprecationWarning)
    warnings.warn("user thing")
print([(w.category.__name__, str(w.message)) for w in ws])
print(operator.itemgetter(1, 0)("ab"), operator.attrgetter("real")(3), operator.methodcaller("upper")("x"), operator.add(1, 2))
tree = ast.parse("x = 1 + 2 * y")
print(ast.dump(tree.body[0].value), ast.literal_eval("{'a': [1, 2.5, (3, None)], 'b': -4}"), ast.unparse(tree))
print(math.factorial(30), math.comb(60, 30), math.isqrt(10**30 + 1), math.gcd(2**90, 6**40), 2**100 // 3**20, (2**64) % 1000, -(2**70) >> 3)
print(int("1" * 30), str(10**25), hex(2**80), (2**100).bit_length(), pow(3, 200, 10**9 + 7), float(2**80), 2**80 == 2.0**80)
print(list(range(2**64, 2**64 + 3)), sum([2**63, 2**63]), abs(-(2**65)), divmod(2**70, 7), round(2**70 / 3))


class T(unittest.TestCase):
    def test_ok(self):
        self.assertEqual(1 + 1, 2)

    def test_fail(self):
        self.assertIn(3, [1, 2])

    @unittest.skip("not now")
    def test_skip(self):
        pass


stream = io.StringIO()
runner = unittest.TextTestRunner(stream=stream, verbosity=2)
res = unittest.main(module=__name__, argv=["t"], testRunner=runner, exit=False).result
print(res.testsRun, len(res.failures), len(res.skipped), res.wasSuccessful())
print("\n".join(l for l in stream.getvalue().splitlines() if l.startswith("test_") or l.startswith("AssertionError")))
