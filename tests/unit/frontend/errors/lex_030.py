x = r"abc\"
