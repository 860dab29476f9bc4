x = b"a" "b"
