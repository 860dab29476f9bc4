"""torch.utils._pytree: flattening nested lists, tuples and dicts into leaves and a spec."""


class LeafSpec:
    def __init__(self):
        self.type = None
        self.context = None
        self.children_specs = []
        self.num_leaves = 1

    def __repr__(self):
        return "*"


class TreeSpec:
    def __init__(self, type, context, children_specs):
        self.type = type
        self.context = context
        self.children_specs = children_specs
        self.num_leaves = sum([c.num_leaves for c in children_specs])

    def __repr__(self):
        return "TreeSpec(" + self.type.__name__ + ", " + repr(self.context) + ", [" + \
            ", ".join([repr(c) for c in self.children_specs]) + "])"


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _children(tree):
    if isinstance(tree, dict):
        return list(tree.values()), list(tree.keys())
    if _is_namedtuple(tree):
        return list(tree), type(tree)
    if isinstance(tree, (list, tuple)):
        return list(tree), None
    return None, None


def tree_flatten(tree):
    """Leaves of tree (lists, tuples, dicts are nodes; anything else is a leaf) and its spec."""
    leaves = []

    def walk(node):
        children, context = _children(node)
        if children is None:
            leaves.append(node)
            return LeafSpec()
        return TreeSpec(type(node), context, [walk(c) for c in children])

    spec = walk(tree)
    return leaves, spec


def tree_leaves(tree):
    return tree_flatten(tree)[0]


def tree_unflatten(leaves, spec):
    leaves = list(leaves)
    pos = [0]

    def build(s):
        if isinstance(s, LeafSpec):
            v = leaves[pos[0]]
            pos[0] += 1
            return v
        children = [build(c) for c in s.children_specs]
        if s.type is dict or issubclass(s.type, dict):
            d = s.type()
            for k, v in zip(s.context, children):
                d[k] = v
            return d
        if s.type is list:
            return children
        if s.type is tuple:
            return tuple(children)
        if s.context is not None:
            return s.type(*children)
        return s.type(children)

    return build(spec)


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)
