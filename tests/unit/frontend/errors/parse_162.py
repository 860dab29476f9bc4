lambda /: 0
