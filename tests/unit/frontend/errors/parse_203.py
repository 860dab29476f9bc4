import a as 1
