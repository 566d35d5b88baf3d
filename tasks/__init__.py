"""Task suites: prompts plus verifiers over final state and trajectory (to come)."""
