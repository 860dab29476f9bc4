with (yield x) as y: pass
