"""The operator's runtime: kopf wiring and handlers, leadership, login, the steps that
reconcile and place a workload, and the state the rooms share."""
