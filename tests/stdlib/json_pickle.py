# json and pickle: dumps/loads of the values model scripts save (configs, vocabularies,
# checkpoint metadata), formatting options, errors; pickle round trips of every protocol with
# classes, and the bytes pickle writes for plain data.
import json, pickle, collections, dataclasses

cfg = {"n_layer": 12, "n_head": 12, "n_embd": 768, "dropout": 0.1, "bias": True, "vocab": ["a", "b", "\u00e9", "\U0001f600"],
       "lr": 6e-4, "none": None, "nested": {"x": [1, 2.5, -3], "y": {}}, "big": 2**70}
s = json.dumps(cfg)
print(s)
print(json.dumps(cfg, indent=2, sort_keys=True, ensure_ascii=False))
print(json.dumps([1, (2, 3)], separators=(",", ":")), json.dumps("tab\tquote\"nl\n"), json.dumps(float("inf")))
print(json.loads(s) == cfg, json.loads('{"a": [1, 2.0, "x", null, true, false]}'))
print(json.loads("1e400"), json.loads('"\\u00e9\\ud83d\\ude00"'), json.loads(" [ ] "))
print(json.loads('{"a": 1}', object_pairs_hook=collections.OrderedDict))
for bad in ['{"a": 1,}', "[1, 2", "nul", '{"a" 1}', ""]:
    try:
        json.loads(bad)
    except json.JSONDecodeError as e:
        print("JSONDecodeError:", e.msg, e.pos, e.lineno, e.colno)
try:
    json.dumps({"s": {1, 2}})
except TypeError as e:
    print("TypeError:", e)


class Enc(json.JSONEncoder):
    def default(self, o):
        if isinstance(o, set):
            return sorted(o)
        return super().default(o)


print(json.dumps({"s": {3, 1, 2}}, cls=Enc))


@dataclasses.dataclass
class Point:
    x: int
    y: float = 0.0


class Vocab:
    def __init__(self, words):
        self.stoi = {w: i for i, w in enumerate(words)}
        self.itos = list(words)

    def __eq__(self, other):
        return self.stoi == other.stoi and self.itos == other.itos


data = [1, -1, 2**40, 2**100, -(2**80), 1.5, "text", b"bytes", None, True, (1, 2), [3, [4]], {"k": {5}},
        frozenset({6}), Point(1, 2.5), Vocab("abc"), collections.OrderedDict(a=1), collections.Counter("aab")]
for proto in range(0, pickle.HIGHEST_PROTOCOL + 1):
    out = pickle.loads(pickle.dumps(data, protocol=proto))
    print(proto, out == data, type(out[14]).__name__, out[15].itos)
for v in [0, 1, 255, 256, 65536, -1, 2**31, 2**64, 1.25, "abc", b"xy", (), (1,), [1, 2], {"a": 1}, None, True]:
    print(repr(v), pickle.dumps(v, protocol=2).hex(), pickle.dumps(v, protocol=4).hex())
try:
    pickle.dumps(lambda: 1)
except (pickle.PicklingError, AttributeError) as e:
    print(type(e).__name__)   # the message names the lambda's address
