def use(mgr, other):
    with mgr as m, other:
        m.run()
    return m
