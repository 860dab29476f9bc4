# Every pattern kind of the match statement, guards, and soft keywords used as names.
match = case = _ = 1
print(match, case, _)
match command.split():
    case [action]:
        pass
    case ["go", direction] | ["move", direction]:
        go(direction)
    case ["drop", *objects]:
        drop(objects)
    case [first, *_, last] if first != last:
        pass
    case _:
        print("unknown")

match event:
    case Click(position=(x, y), button=Button.LEFT) as click:
        handle(click, x, y)
    case KeyPress(key_name="Q") | Quit():
        quit()
    case Point(0, 0) | Point(x=0, y=0):
        origin()
    case a.b.c():
        dotted()
    case {"x": 1, "y": [*rest], **others}:
        pass
    case {}:
        pass
    case {-1: neg, 1.5: f, "s": s, b"b": b, None: n, True: t}:
        pass
    case -7 | 0x10 | 1_000 | 2.5 | "text" "concat" | b"bytes":
        pass
    case None | True | False:
        pass
    case (1, 2) | [3, 4] | (5,) | [] | ():
        pass
    case str(x) | bytes(x) if x:
        pass
    case ((a as b) as c):
        pass

match x, *y:
    case (1, *rest):
        pass
match (yield_ := 1):
    case 1:
        pass
