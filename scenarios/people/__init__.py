"""People of a world who act: rule-based co-workers (``rules``) declared in ``worlds/<w>/people.yaml`` (``model``)."""
