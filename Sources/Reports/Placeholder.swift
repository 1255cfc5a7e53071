// Placeholder so the target builds until its first file lands.
