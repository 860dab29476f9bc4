x = f"{lambda x: 1}"
