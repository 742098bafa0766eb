"""Each rendering of a plan, applied to the workload and read back: the node affinity
selects the chosen nodes, the Kueue and KAI annotations read back as the plan's level (and
keep Kueue's rules: one of required or preferred, one value per pod-set group, slices
below), and the Workload API objects carry it as their topology constraint."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import jsonpatch

from tests.unit.placement.plan.inputs import (
    KAI_JOBS,
    LWS,
    RACK,
    corpus_objects,
    found,
    gpu_job,
    occupancy,
)
from wlmap.placement.feed import gang_requests
from wlmap.placement.gangs import make_gang_policy
from wlmap.placement.plan import (
    GangPlan,
    Occupancy,
    affinity_patches,
    kai_objects,
    kueue_patches,
    level_key,
    plan_gangs,
    workload_api_objects,
)
from wlmap.schedulers import workload_api_objects as upstream_objects


def planned(obj: dict[str, Any]) -> tuple[Occupancy, list[GangPlan]]:
    state = occupancy()
    item = found(obj)
    requests = gang_requests(item.view, annotations=obj["metadata"].get("annotations"))
    return state, plan_gangs(state, requests, make_gang_policy("wlmap"))


def selects(term: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    return all(labels.get(e["key"]) in e["values"] for e in term["matchExpressions"])


def test_the_affinity_patch_selects_the_chosen_nodes_and_nothing_outside_the_domain() -> None:
    (lws,) = corpus_objects(LWS)
    state, plans = planned(lws)
    item = found(lws)
    patch, leader = affinity_patches(item.entry.definition, lws, item.view, plans, state.topology)
    assert (patch["component"], leader["component"]) == ("worker", "leader")
    # the leader (no GPUs, not in the gang) shares the workers' Kueue pod-set group: it
    # goes with them, but the definition reads its template through a fallback (`//`),
    # which the write-back refuses to write: the reason is given instead of a patch
    assert leader["nodeAffinity"] == patch["nodeAffinity"]
    assert "read-only projection" in leader["error"] and "jsonPatch" not in leader
    patched = jsonpatch.apply_patch(lws, patch["jsonPatch"])
    assert list(patch["mergePatch"]["spec"]["leaderWorkerTemplate"]) == ["workerTemplate"]
    worker = found(patched).view
    (template,) = [c.template for c in worker.components if c.name == "worker" and c.template]
    terms = template["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    topology = state.topology
    for plan in plans:
        assert plan.placement is not None
        for node, _ in plan.placement.nodes:
            assert any(selects(t, topology.nodes[node].labels) for t in terms)
    chosen = {n for p in plans if p.placement for n, _ in p.placement.nodes}
    outside = [n for i, n in enumerate(topology.nodes) if i not in chosen]
    assert outside and not any(selects(t, n.labels) for t in terms for n in outside)


def test_an_existing_node_affinity_term_is_kept_and_anded_with_the_domain() -> None:
    job = gpu_job(3, 4)
    product = {
        "key": "nvidia.com/gpu.product",
        "operator": "In",
        "values": ["NVIDIA-H100-80GB-HBM3"],
    }
    job["spec"]["template"]["spec"]["affinity"] = {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [product]}]}
    }}  # fmt: skip
    state, plans = planned(job)
    item = found(job)
    (patch,) = affinity_patches(item.entry.definition, job, item.view, plans, state.topology)
    (term,) = patch["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    assert term["matchExpressions"][0] == product
    assert [e["key"] for e in term["matchExpressions"][1:]][-1] == RACK  # 12 GPUs: one rack


def test_kueue_annotations_read_back_as_the_plans_level() -> None:
    job = gpu_job(3, 4)
    state, (plan,) = planned(job)
    item = found(job)
    (patch,) = kueue_patches(item.entry.definition, job, item.view, [plan], state.topology)
    patched = jsonpatch.apply_patch(job, patch["jsonPatch"])
    (request,) = gang_requests(found(patched).view)
    assert plan.level is not None and request.required is not None
    assert request.required.level == level_key(state.topology, plan.level) == RACK
    assert request.preferred is None


def test_lws_workers_required_level_is_tightened_to_the_node_the_plan_chose() -> None:
    (lws,) = corpus_objects(LWS)
    state, plans = planned(lws)
    item = found(lws)
    patch, leader = kueue_patches(item.entry.definition, lws, item.view, plans, state.topology)
    # both groups fit on one node each: the workers' one annotation becomes the hostname,
    # and the leader's too (Kueue wants one value across a pod-set group), though its
    # template cannot be written back (read through a `//` fallback): the reason is given
    assert all(p.level == len(state.topology.levels) for p in plans)
    assert patch["annotations"] == {
        "kueue.x-k8s.io/podset-required-topology": "kubernetes.io/hostname"
    }
    assert (leader["component"], leader["annotations"]) == ("leader", patch["annotations"])
    assert "read-only projection" in leader["error"]
    patched = jsonpatch.apply_patch(lws, patch["jsonPatch"])
    first, _ = gang_requests(found(patched).view)
    assert first.required is not None and first.required.level == "kubernetes.io/hostname"


def test_kai_annotations_on_the_workload_read_back_with_the_topology_they_name() -> None:
    job = next(o for o in corpus_objects(KAI_JOBS) if o["kind"] == "Job")
    state, plans = planned(job)
    kai = kai_objects(job, plans, state.topology)
    assert kai is not None
    patched = jsonpatch.apply_patch(copy.deepcopy(job), kai["jsonPatch"])
    annotations = patched["metadata"]["annotations"]
    assert annotations["kai.scheduler/skip-podgrouper"] == "true"  # the job's own, kept
    (request,) = gang_requests(found(patched).view, annotations=annotations)
    (plan,) = plans
    assert plan.level is not None and request.preferred is not None  # no level was required
    assert request.preferred.level == level_key(state.topology, plan.level)
    assert request.topology_name == kai["topology"]["metadata"]["name"]
    levels = [lv["nodeLabel"] for lv in kai["topology"]["spec"]["levels"]]
    assert levels == [*state.topology.levels, "kubernetes.io/hostname"]


def test_workload_api_templates_and_podgroups_carry_the_plans_level() -> None:
    job = gpu_job(3, 4)
    state, (plan,) = planned(job)
    item = found(job)
    objects = workload_api_objects(upstream_objects(item.view, job), [plan], state.topology)
    kinds = [o["kind"] for o in objects]
    assert kinds == ["Workload", "PodGroup"]
    (template,) = objects[0]["spec"]["podGroupTemplates"]
    assert template["schedulingConstraints"] == {"topology": [{"key": RACK}]}
    assert objects[1]["spec"]["schedulingConstraints"] == {"topology": [{"key": RACK}]}
    assert (
        objects[1]["spec"]["podGroupTemplateRef"]["workload"]["podGroupTemplateName"]
        == template["name"]
    )


def test_a_kueue_level_stays_above_the_slice_level() -> None:
    job = gpu_job(2, 2)
    annotations = job["spec"]["template"]["metadata"]["annotations"]
    annotations["kueue.x-k8s.io/podset-slice-required-topology"] = RACK
    annotations["kueue.x-k8s.io/podset-slice-size"] = "2"
    annotations["kueue.x-k8s.io/podset-required-topology"] = "cloud.provider.com/topology-block"
    state, (plan,) = planned(job)
    item = found(job)
    # two 2-GPU pods fit on one node, but a slice of rack level must stay below the pod set's
    assert plan.level == len(state.topology.levels)
    (patch,) = kueue_patches(item.entry.definition, job, item.view, [plan], state.topology)
    assert patch["annotations"] == {
        "kueue.x-k8s.io/podset-required-topology": "cloud.provider.com/topology-block"
    }


def test_a_template_outside_the_gangs_gets_the_loosest_request() -> None:
    (lws,) = corpus_objects(LWS)
    leader = lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["metadata"]
    leader["annotations"] = {}  # no group, no topology: outside the workers' request
    state, plans = planned(lws)
    item = found(lws)
    patches = kueue_patches(item.entry.definition, lws, item.view, plans, state.topology)
    by_component = {p["component"]: p["annotations"] for p in patches}
    assert by_component["leader"] == {
        "kueue.x-k8s.io/podset-preferred-topology": "cloud.provider.com/topology-block"
    }


def test_a_gang_spread_over_blocks_is_rendered_as_the_blocks_it_uses() -> None:
    job = gpu_job(4, 8)  # every free whole node of the dump: two per block
    del job["spec"]["template"]["metadata"]["annotations"][
        "kueue.x-k8s.io/podset-required-topology"
    ]
    state, (plan,) = planned(job)
    assert plan.fits and plan.level == -1 and plan.to_dict(state.topology)["domain"] is None
    item = found(job)
    (patch,) = affinity_patches(item.entry.definition, job, item.view, [plan], state.topology)
    (term,) = patch["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    assert term == {
        "matchExpressions": [
            {"key": "cloud.provider.com/topology-block", "operator": "In", "values": ["b1", "b2"]}
        ]
    }
    (kueue,) = kueue_patches(item.entry.definition, job, item.view, [plan], state.topology)
    assert kueue["annotations"] == {
        "kueue.x-k8s.io/podset-preferred-topology": "cloud.provider.com/topology-block"
    }
