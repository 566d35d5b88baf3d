"""Baseline policies for measuring suites without a model (bench only: never the product's agent)."""
