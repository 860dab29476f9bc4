x = yield from
