print(f"{(x := 10)}")
