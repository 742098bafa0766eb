"""The operator's deployment files: RBAC, the admission policy, the webhook and the
bundle that writes them (``python -m wlmap.operator.deploy DIR``)."""
