raise from E
