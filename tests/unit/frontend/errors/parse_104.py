for in x: pass
