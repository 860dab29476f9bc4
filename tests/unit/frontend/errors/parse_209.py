x = {i for i}
