yield from
