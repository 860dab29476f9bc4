x = "a" b"b" "c"
