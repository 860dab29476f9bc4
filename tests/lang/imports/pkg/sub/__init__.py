from ..leaf import where as leaf_where
SUB = "sub attr"
