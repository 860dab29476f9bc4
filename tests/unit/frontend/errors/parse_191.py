@property
def
