x = 'a' 'b' '''c''' """d""" r'e\f' R"g" u'h' U'i' b'j' B'k' rb'l' Rb'm' bR'n' BR'o'
