# the module whose globals foreign_globals.py's compiled functions read through its functions
_flag = None
_scale = 2.0


def get_flag():
    return _flag


def scaled(t):
    return t * _scale


def make_state(n):
    return {"n": n}


def late_value():
    import sys
    m = sys.modules.get("_late_module")
    return None if m is None else m.value


class Config:
    factor = 2.0


config = Config()


def use_config(t):
    return t * config.factor
