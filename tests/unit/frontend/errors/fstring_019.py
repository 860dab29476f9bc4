x = f'{a!r=}'
