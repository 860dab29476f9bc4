from a import b as c as d
