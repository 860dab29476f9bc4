f(): int
