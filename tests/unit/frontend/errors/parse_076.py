from import x
