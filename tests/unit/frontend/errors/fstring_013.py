x = f"{a=!x}"
