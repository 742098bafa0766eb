"""The placement policies, one module each; create them by name with ``make_policy``."""
