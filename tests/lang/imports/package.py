# Importing a package directory: __init__, submodules, relative imports, dotted names.
import pkg
print(pkg.PKG_LEVEL, pkg.leaf.where())
import pkg.sub.deep
print(pkg.sub.deep.info())
from pkg.sub import deep as d, leaf_where
print(d.info()[0], leaf_where())
from pkg import leaf
print(leaf is pkg.leaf)
import pkg.sub.deep as deep2
print(deep2 is d, pkg.__name__, pkg.sub.__name__)
