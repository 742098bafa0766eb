"""GPU placement: three engines, the nodes they share, the feed from workloads and the plan.

Each package is a front door: it lists its public names in ``__all__``, and code outside it
imports those names from the package, never from its modules.

- :mod:`.nodes`: the nodes every engine places on, and reading them from files;
- :mod:`.packing`: pods placed one at a time on shared GPUs, the trace simulator and the
  offline bound;
- :mod:`.gangs`: topology-aware gang placement, the schedulers' gang policies, wlmap's
  objective policy, the exact reference and fault recovery;
- :mod:`.devices`: DRA devices, CEL selectors, first-fit and wlmap's gang device planner;
- :mod:`.feed`: pods, gangs and device claims read from workload views;
- :mod:`.plan`: where a workload's gangs would go on a real cluster, or why not.

The engines do not import each other; only the feed and the plan read :mod:`wlmap.workload`.
"""

__all__: list[str] = []
