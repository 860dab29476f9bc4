x = a if b else
