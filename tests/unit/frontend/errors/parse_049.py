def None(): pass
