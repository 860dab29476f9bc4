global
