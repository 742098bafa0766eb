"""The gangs engine: topology-aware gang placement on nodes in nested domains.

- :mod:`.tree`: the static domain tree built from node labels;
- :mod:`.capacity`: free GPUs per node and domain, updated per placement;
- :mod:`.gang`: what a gang asks for and where it went;
- :mod:`.quality`: span, locality, leakage and communication cost of a placement;
- :mod:`.gang_policy`: what a gang policy is, and applying its decision;
- :mod:`.registry`: the policies by name (:mod:`.baselines`: the schedulers' rules;
  :mod:`.objective`: wlmap's objective policy);
- :mod:`.jobmix`, :mod:`.scenarios`, :mod:`.gang_simulator`, :mod:`.report`: the job mixes,
  the clusters, the simulator and its figures;
- :mod:`.exact`: the CP-SAT exact reference; :mod:`.faults`: node faults and recovery.

Needs the ``placement`` extra (numpy; OR-Tools for the exact reference).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wlmap.placement._front_door import attribute

if TYPE_CHECKING:
    from wlmap.placement.gangs.baselines import BASELINES
    from wlmap.placement.gangs.capacity import FreeCapacity
    from wlmap.placement.gangs.exact import (
        DEFAULT_TIME_LIMIT,
        optimal_placement,
        optimal_recovery,
        pods_moved,
    )
    from wlmap.placement.gangs.faults import (
        Fault,
        FaultModel,
        KaiStaleGangEviction,
        KueueHotSwap,
        Reaction,
        Record,
        RecoveryParams,
        RecoveryRun,
        RestartFromScratch,
        SparePool,
        SparePoolSwap,
        WlmapReplacement,
        accounting_problems,
        constraint_problems,
        draw_faults,
        expected_faults,
        simulate_recovery,
    )
    from wlmap.placement.gangs.faults.paired import paired_recoveries
    from wlmap.placement.gangs.faults.reference import Decision as ReferenceDecision
    from wlmap.placement.gangs.faults.reference import ExactReference
    from wlmap.placement.gangs.faults.reference import summarise as summarise_references
    from wlmap.placement.gangs.gang import DomainCount, Gang, GangPlacement
    from wlmap.placement.gangs.gang_policy import GangPolicy, apply, release
    from wlmap.placement.gangs.gang_simulator import (
        InvalidPlacementError,
        QueueMode,
        Run,
        simulate_gangs,
    )
    from wlmap.placement.gangs.jobmix import (
        Job,
        JobMix,
        describe,
        synthetic_jobs,
        tiresias_durations,
    )
    from wlmap.placement.gangs.objective import (
        ObjectiveError,
        default_objective,
        load_objective,
        make_wlmap_gang_policy,
        parse_objective,
    )
    from wlmap.placement.gangs.quality import GangQuality, TierWeights, default_weights, measure
    from wlmap.placement.gangs.registry import GANG_POLICIES, make_gang_policy
    from wlmap.placement.gangs.report import run_row, summarise
    from wlmap.placement.gangs.scenarios import (
        LINGJUN_LEVELS,
        N256G8,
        Scenario,
        gb200,
        kueue_tas,
        lingjun,
        node_list,
        tiresias,
        tiresias_spec,
    )
    from wlmap.placement.gangs.tree import HOSTNAME_LABEL, Topology, TopologyError, build_topology
    from wlmap.placement.gangs.validity import placement_problems

_WHERE = {
    "accounting_problems": "wlmap.placement.gangs.faults",
    "apply": "wlmap.placement.gangs.gang_policy",
    "BASELINES": "wlmap.placement.gangs.baselines",
    "build_topology": "wlmap.placement.gangs.tree",
    "constraint_problems": "wlmap.placement.gangs.faults",
    "default_objective": "wlmap.placement.gangs.objective",
    "DEFAULT_TIME_LIMIT": "wlmap.placement.gangs.exact",
    "default_weights": "wlmap.placement.gangs.quality",
    "describe": "wlmap.placement.gangs.jobmix",
    "DomainCount": "wlmap.placement.gangs.gang",
    "draw_faults": "wlmap.placement.gangs.faults",
    "ExactReference": "wlmap.placement.gangs.faults.reference",
    "expected_faults": "wlmap.placement.gangs.faults",
    "Fault": "wlmap.placement.gangs.faults",
    "FaultModel": "wlmap.placement.gangs.faults",
    "FreeCapacity": "wlmap.placement.gangs.capacity",
    "Gang": "wlmap.placement.gangs.gang",
    "GANG_POLICIES": "wlmap.placement.gangs.registry",
    "GangPlacement": "wlmap.placement.gangs.gang",
    "GangPolicy": "wlmap.placement.gangs.gang_policy",
    "GangQuality": "wlmap.placement.gangs.quality",
    "gb200": "wlmap.placement.gangs.scenarios",
    "HOSTNAME_LABEL": "wlmap.placement.gangs.tree",
    "InvalidPlacementError": "wlmap.placement.gangs.gang_simulator",
    "Job": "wlmap.placement.gangs.jobmix",
    "JobMix": "wlmap.placement.gangs.jobmix",
    "KaiStaleGangEviction": "wlmap.placement.gangs.faults",
    "kueue_tas": "wlmap.placement.gangs.scenarios",
    "KueueHotSwap": "wlmap.placement.gangs.faults",
    "lingjun": "wlmap.placement.gangs.scenarios",
    "LINGJUN_LEVELS": "wlmap.placement.gangs.scenarios",
    "load_objective": "wlmap.placement.gangs.objective",
    "make_gang_policy": "wlmap.placement.gangs.registry",
    "make_wlmap_gang_policy": "wlmap.placement.gangs.objective",
    "measure": "wlmap.placement.gangs.quality",
    "N256G8": "wlmap.placement.gangs.scenarios",
    "node_list": "wlmap.placement.gangs.scenarios",
    "ObjectiveError": "wlmap.placement.gangs.objective",
    "optimal_placement": "wlmap.placement.gangs.exact",
    "optimal_recovery": "wlmap.placement.gangs.exact",
    "paired_recoveries": "wlmap.placement.gangs.faults.paired",
    "parse_objective": "wlmap.placement.gangs.objective",
    "placement_problems": "wlmap.placement.gangs.validity",
    "pods_moved": "wlmap.placement.gangs.exact",
    "QueueMode": "wlmap.placement.gangs.gang_simulator",
    "Reaction": "wlmap.placement.gangs.faults",
    "Record": "wlmap.placement.gangs.faults",
    "RecoveryParams": "wlmap.placement.gangs.faults",
    "RecoveryRun": "wlmap.placement.gangs.faults",
    "ReferenceDecision": "wlmap.placement.gangs.faults.reference:Decision",
    "release": "wlmap.placement.gangs.gang_policy",
    "RestartFromScratch": "wlmap.placement.gangs.faults",
    "Run": "wlmap.placement.gangs.gang_simulator",
    "run_row": "wlmap.placement.gangs.report",
    "Scenario": "wlmap.placement.gangs.scenarios",
    "simulate_gangs": "wlmap.placement.gangs.gang_simulator",
    "simulate_recovery": "wlmap.placement.gangs.faults",
    "SparePool": "wlmap.placement.gangs.faults",
    "SparePoolSwap": "wlmap.placement.gangs.faults",
    "summarise": "wlmap.placement.gangs.report",
    "summarise_references": "wlmap.placement.gangs.faults.reference:summarise",
    "synthetic_jobs": "wlmap.placement.gangs.jobmix",
    "TierWeights": "wlmap.placement.gangs.quality",
    "tiresias": "wlmap.placement.gangs.scenarios",
    "tiresias_durations": "wlmap.placement.gangs.jobmix",
    "tiresias_spec": "wlmap.placement.gangs.scenarios",
    "Topology": "wlmap.placement.gangs.tree",
    "TopologyError": "wlmap.placement.gangs.tree",
    "WlmapReplacement": "wlmap.placement.gangs.faults",
}


def __getattr__(name: str) -> Any:
    return attribute(__name__, _WHERE, name)


__all__ = [
    "BASELINES",
    "DEFAULT_TIME_LIMIT",
    "GANG_POLICIES",
    "HOSTNAME_LABEL",
    "LINGJUN_LEVELS",
    "N256G8",
    "DomainCount",
    "ExactReference",
    "Fault",
    "FaultModel",
    "FreeCapacity",
    "Gang",
    "GangPlacement",
    "GangPolicy",
    "GangQuality",
    "InvalidPlacementError",
    "Job",
    "JobMix",
    "KaiStaleGangEviction",
    "KueueHotSwap",
    "ObjectiveError",
    "QueueMode",
    "Reaction",
    "Record",
    "RecoveryParams",
    "RecoveryRun",
    "ReferenceDecision",
    "RestartFromScratch",
    "Run",
    "Scenario",
    "SparePool",
    "SparePoolSwap",
    "TierWeights",
    "Topology",
    "TopologyError",
    "WlmapReplacement",
    "accounting_problems",
    "apply",
    "build_topology",
    "constraint_problems",
    "default_objective",
    "default_weights",
    "describe",
    "draw_faults",
    "expected_faults",
    "gb200",
    "kueue_tas",
    "lingjun",
    "load_objective",
    "make_gang_policy",
    "make_wlmap_gang_policy",
    "measure",
    "node_list",
    "optimal_placement",
    "optimal_recovery",
    "paired_recoveries",
    "parse_objective",
    "placement_problems",
    "pods_moved",
    "release",
    "run_row",
    "simulate_gangs",
    "simulate_recovery",
    "summarise",
    "summarise_references",
    "synthetic_jobs",
    "tiresias",
    "tiresias_durations",
    "tiresias_spec",
]
