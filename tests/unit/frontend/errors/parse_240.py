x = $a
