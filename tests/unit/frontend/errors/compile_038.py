x = f"{yield}"
