"""Gang groups: v2 podGroup with subgroups and topology; legacy podGroups split over pods."""

from __future__ import annotations

from tests.corpus import corpus_object
from tests.unit.workload.definitions import JOBSET, LWS
from tests.unit.workload.test_pods import jobset_pods, lws_pods
from wlmap.catalog import builtin_registry
from wlmap.definitions import Definition, definition_from_mapping
from wlmap.workload import interpret, prepare, reference_requests


def test_v2_group_minimum_comes_from_scale_and_topology_is_carried() -> None:
    obj = corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet")
    view = interpret(JOBSET, obj, strict=True)
    group = next(g for g in view.gang_groups if g.source == "podGroup")
    # one replicated job "slice": 2 replicas x parallelism 4
    assert group.min_member == 8
    [sub] = group.sub_groups
    assert (sub.name, sub.min_member) == ("replicatedJob", 8)
    assert group.topology is not None and group.topology.required_topology_level == "rack"
    assert sub.topology is not None and sub.topology.preferred_topology_level == "host"
    assert group.pods is None  # no pods given


def test_legacy_groups_without_pods_are_listed_per_definition() -> None:
    obj = corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet")
    view = interpret(JOBSET, obj, strict=True)
    legacy = [g for g in view.gang_groups if g.source == "podGroups"]
    assert [(g.name, g.min_member, g.members, g.key) for g in legacy] == [
        ("per-job", 8, ("replicatedJob",), None)
    ]


def test_legacy_groups_over_pods_use_keys() -> None:
    obj = corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet")
    pods = jobset_pods(obj)
    view = interpret(JOBSET, obj, pods=pods, strict=True)
    legacy = [g for g in view.gang_groups if g.source == "podGroups"]
    assert [(g.name, g.key, g.min_member, len(g.pods or ())) for g in legacy] == [
        ("per-job-slice", ("slice",), 8, 8)
    ]


def test_one_gang_per_replicated_unit() -> None:
    obj = corpus_object("lws-leaderworkerset/vllm-gpu.yaml", "LeaderWorkerSet")
    pods = lws_pods(obj)
    view = interpret(LWS, obj, pods=pods, strict=True)
    # each LWS group is its own gang of size 2 (a leader and size-1 = 1 worker)
    assert [(g.name, g.min_member, g.pods) for g in view.gang_groups] == [
        ("group-0", 2, ("vllm-0-0", "vllm-0-1")),
        ("group-1", 2, ("vllm-1-0", "vllm-1-1")),
    ]


def test_explicit_zero_replicas_stay_zero_in_the_gang() -> None:
    obj = corpus_object("ray-raycluster/autoscaler.yaml", "RayCluster")
    assert obj["spec"]["workerGroupSpecs"][0]["minReplicas"] == 0
    view = interpret(builtin_registry().for_object(obj), obj, strict=True)
    # the head alone: the worker group may scale to zero, so it adds nothing to the gang
    assert [g.min_member for g in view.gang_groups] == [1, 1]


def test_member_filters_choose_the_effective_member() -> None:
    # Leaders form their own gang; every other pod joins the group gang of its LWS group.
    data = LWS.model_dump(mode="json", by_alias=True, exclude_none=True)
    data["spec"]["optimizationInstructions"]["gangScheduling"]["podGroups"] = [
        {
            "name": "leaders",
            "members": [
                {
                    "componentName": "leader",
                    "filters": [
                        '.metadata.labels["leaderworkerset.sigs.k8s.io/worker-index"] == "0"'
                    ],
                }
            ],
        },
        {
            "name": "group",
            "members": [
                {
                    "componentName": "group",
                    "groupByKeyPaths": [
                        '.metadata.labels["leaderworkerset.sigs.k8s.io/group-index"]'
                    ],
                    "filters": ['.metadata.labels.role != "leader"'],
                }
            ],
        },
    ]
    definition = definition_from_mapping(data)
    obj = corpus_object("lws-leaderworkerset/vllm-gpu.yaml", "LeaderWorkerSet")
    pods = lws_pods(obj)
    view = interpret(definition, obj, pods=pods, strict=True)
    # the corpus leader template carries role=leader, so the group filter drops leaders
    assert [(g.name, g.pods) for g in view.gang_groups] == [
        ("leaders", ("vllm-0-0", "vllm-1-0")),
        ("group-0", ("vllm-0-1",)),
        ("group-1", ("vllm-1-1",)),
    ]


def test_children_keyed_like_their_parent_count_only_their_instance() -> None:
    obj = corpus_object("jobset/coordinator.yaml", "JobSet")
    view = interpret(builtin_registry().for_object(obj), obj, strict=True)
    pods = sum(c.pods for c in view.components if c.template is not None)
    # 1 driver + 4 workers: each replicatedJob's pods, not every job's pods per job
    assert pods == 5
    assert [g.min_member for g in view.gang_groups if g.source == "podGroup"] == [5]


def _jobset_definition_with(field: str, expression: str) -> Definition:
    """The catalog's JobSet definition with one expression of its replicatedJob replaced."""
    document = JOBSET.model_dump(by_alias=True, exclude_none=True)
    (replicated,) = document["spec"]["structureDefinition"]["childComponents"][:1]
    section, key = field.split(".")
    replicated[section][key] = expression
    return definition_from_mapping(document)


def test_a_failing_replicas_path_is_a_gang_issue() -> None:
    obj = corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet")
    broken = _jobset_definition_with("scaleDefinition.replicasPath", 'error("no replicas")')
    view = interpret(broken, obj)
    assert view.gang_groups  # a gang is still built, with a minimum that cannot be trusted
    (issue,) = view.gang_issues
    assert "scaleDefinition.replicasPath" in issue and "no replicas" in issue


def test_a_failing_status_expression_leaves_the_gangs_trusted() -> None:
    obj = corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet")
    document = JOBSET.model_dump(by_alias=True, exclude_none=True)
    root = document["spec"]["structureDefinition"]["rootComponent"]
    root["statusDefinition"]["conditionsDefinition"]["path"] = 'error("no conditions")'
    view = interpret(definition_from_mapping(document), obj)
    assert any("no conditions" in w for w in view.warnings)
    assert view.gang_issues == ()


def test_a_missing_referenced_runtime_is_a_gang_issue() -> None:
    # a TrainJob's pods come from the runtime it names: without it the gang has no members
    trainjob = corpus_object("kubeflow-trainjob/01-multi-node.yaml", "TrainJob")
    runtime = corpus_object(
        "kubeflow-trainingruntime/torch-distributed.yaml", "ClusterTrainingRuntime"
    )
    definition = builtin_registry().for_object(trainjob)
    without = interpret(definition, trainjob, references={})
    assert without.gang_issues == (
        "reference $clusterRuntime (the object the workload names) is not available",
    )
    (request,) = [r for r in reference_requests(prepare(definition), trainjob) if r.name]
    with_runtime = interpret(definition, trainjob, references={request.reference: runtime})
    assert with_runtime.gang_issues == ()
    assert [g.min_member for g in with_runtime.gang_groups if g.source == "podGroup"] == [3]
