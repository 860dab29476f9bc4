for x in y:
# comment
