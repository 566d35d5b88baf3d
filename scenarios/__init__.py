"""Scenarios: stories that unfold across apps (the lead's room; this branch adds only ``people``)."""
