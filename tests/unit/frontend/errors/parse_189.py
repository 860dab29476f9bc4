lambda *, **k: 1
