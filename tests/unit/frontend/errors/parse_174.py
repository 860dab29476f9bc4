x = f'{a}' b'x'
