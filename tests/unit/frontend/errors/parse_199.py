import .a
