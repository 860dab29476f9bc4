return *a
