"""torch.torch_version.TorchVersion: a str that compares as a version (`torch.__version__ >=
(1, 10)` or `>= "1.10"`), by its release numbers then the pre-release tag, as packaging's
Version orders "1.13.0a0" < "1.13.0" (so `torch.__version__ >= (1, 13)` is False for 1.13.0a0, as
under PyTorch)."""
import re


def _key(v):
    if isinstance(v, (tuple, list)):
        return tuple(int(x) for x in v) + (0,) * (3 - len(v)), (1, 0)
    m = re.match(r"(\d+(?:\.\d+)*)(?:(a|b|rc)(\d+))?", str(v).split("+")[0])
    if not m:
        raise ValueError(f"Invalid version: '{v}'")
    release = tuple(int(x) for x in m.group(1).split("."))
    release += (0,) * (3 - len(release))
    pre = (0, int(m.group(3)), m.group(2)) if m.group(2) else (1, 0)
    return release, pre


class TorchVersion(str):
    def _cmp(self, other):
        a, b = _key(self), _key(other)   # a tuple is the release it spells: (1, 13) is "1.13"
        return (a > b) - (a < b)

    def __lt__(self, other): return self._cmp(other) < 0
    def __le__(self, other): return self._cmp(other) <= 0
    def __gt__(self, other): return self._cmp(other) > 0
    def __ge__(self, other): return self._cmp(other) >= 0

    def __eq__(self, other):
        try:
            return self._cmp(other) == 0
        except (ValueError, TypeError):
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = str.__hash__
