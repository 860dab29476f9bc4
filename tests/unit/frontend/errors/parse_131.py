if x: pass
else: pass
elif y: pass
