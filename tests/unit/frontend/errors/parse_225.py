del f(), g
