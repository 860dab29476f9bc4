with : pass
