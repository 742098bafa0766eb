"""Native suspend: the current state and the patches that suspend and resume."""

from __future__ import annotations

import copy

import pytest

from tests.corpus import corpus_object
from tests.unit.workload.definitions import JOBSET, LWS
from wlmap.errors import WriteBackError
from wlmap.workload import interpret, suspend_patch


def test_suspend_then_resume_a_real_jobset() -> None:
    original = corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet")
    assert interpret(JOBSET, original, strict=True).suspend.to_dict() == {
        "supported": True,
        "suspended": False,
    }
    suspended = suspend_patch(JOBSET, original)
    assert suspended.json_patch == [{"op": "add", "path": "/spec/suspend", "value": True}]
    assert suspended.merge_patch == {"spec": {"suspend": True}}
    assert interpret(JOBSET, suspended.patched, strict=True).suspend.suspended is True
    resumed = suspend_patch(JOBSET, suspended.patched, resume=True)
    assert resumed.json_patch == [{"op": "replace", "path": "/spec/suspend", "value": False}]
    assert interpret(JOBSET, resumed.patched, strict=True).suspend.suspended is False


def test_suspending_an_already_suspended_object_changes_nothing() -> None:
    original = copy.deepcopy(corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet"))
    original["spec"]["suspend"] = True
    assert suspend_patch(JOBSET, original).json_patch == []


def test_kind_without_native_suspend_says_so() -> None:
    original = corpus_object("lws-leaderworkerset/vllm-gpu.yaml", "LeaderWorkerSet")
    assert interpret(LWS, original, strict=True).suspend.to_dict() == {
        "supported": False,
        "suspended": None,
    }
    with pytest.raises(WriteBackError, match="no native suspend"):
        suspend_patch(LWS, original)
