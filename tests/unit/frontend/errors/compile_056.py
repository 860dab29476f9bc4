x = {await i: i for i in y}
