exec "code"
