"""What a pod counts for: whole GPUs, fractional shares and MIG slices as their share."""

from __future__ import annotations

from typing import Any

import pytest

from tests.corpus import corpus_object
from tests.unit.metrics.cluster import T0, stamp
from wlmap.metrics.exposition import escape, format_value
from wlmap.metrics.pod_facts import mig_share, pod_facts


def bound(pod: dict[str, Any]) -> dict[str, Any]:
    pod = {**pod, "spec": {**pod["spec"], "nodeName": "node-a"}}
    pod["status"] = {"phase": "Running", "startTime": stamp(T0)}
    return pod


def test_a_fractional_pod_holds_its_fraction() -> None:
    facts = pod_facts(bound(corpus_object("kai-podgroup/gpu-sharing-fraction-pod.yaml", "Pod")))
    assert facts.containers == (("gpu-workload", 0.5),)
    assert facts.devices == (500,)
    assert (facts.start, facts.end, facts.holds_node) == (T0, None, True)


def test_a_mig_slice_holds_its_share_of_a_gpu() -> None:
    pod = corpus_object("dra-gpu/extended-resources-mig-1g-12gb.yaml", "Pod")
    facts = pod_facts(bound(pod))
    assert facts.gpus == pytest.approx(1 / 7)


def test_mig_profiles_count_their_compute_slices_out_of_seven() -> None:
    assert mig_share("3g.40gb") == pytest.approx(3 / 7)
    assert mig_share("1c.2g.20gb") == pytest.approx(2 / 7)
    assert mig_share("1g.10gb+me") == pytest.approx(1 / 7)
    assert mig_share("mig.nvidia.com") == pytest.approx(1 / 7)  # a DRA class names none


def test_a_pod_not_started_holds_nothing_and_waits() -> None:
    pod = corpus_object("kai-podgroup/gpu-sharing-fraction-pod.yaml", "Pod")
    pod["spec"]["schedulingGates"] = [{"name": "wlmap.dev/placement"}]
    facts = pod_facts(pod)
    assert (facts.start, facts.bound, facts.waiting_reason) == (None, False, "SchedulingGated")


def test_escaping_and_values_follow_the_text_format() -> None:
    assert escape('a"b\\c\nd ü') == 'a\\"b\\\\c\\nd ü'
    assert [format_value(v) for v in (3, 2.0, 0.5, float("inf"), float("nan"))] == [
        "3",
        "2",
        "0.5",
        "+Inf",
        "NaN",
    ]
