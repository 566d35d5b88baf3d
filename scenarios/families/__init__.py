"""The families, one module per area; each module ends with its ``FAMILIES`` list."""
