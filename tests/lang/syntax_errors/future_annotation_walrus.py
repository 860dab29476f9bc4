from __future__ import annotations


def f(a: (n := 1)):
    pass
