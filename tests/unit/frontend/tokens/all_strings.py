'a' "b" '''c''' """d"""
r'a' R'b' u'c' U'd' b'e' B'f' f'g' F'h'
rb'a' rB'b' Rb'c' RB'd' br'e' bR'f' Br'g' BR'h'
fr'a' fR'b' Fr'c' FR'd' rf'e' rF'f' Rf'g' RF'h'
'it\'s' "say \"hi\"" 'back\\slash'
'''multi
line''' """another
one"""
'continued\
string'
x = 'é' + "😀"
