"""Catalog paths no inference from a kind's CRD, samples and pods can reach, and why.

Each entry is a catalog value that no field of the kind's objects (or of the objects they
name by reference) holds: a constant role name, knowledge of the kinds a wrapper embeds,
or annotations the schema does not describe. They stay in the totals
(the issue's measure is against the whole catalog) and are also left out of a second,
"reachable" total, so a reader sees both.
"""

from __future__ import annotations

_WRAPPED = (
    "computed per wrapped kind (Job, JobSet, PyTorchJob, RayCluster, ...) from those kinds' "
    "schemas; the AppWrapper holds them as schemaless objects"
)
_DECODE = (
    'the constant role names "decode" and "prefill": the inline workload at .spec is '
    '"decode" by the controller\'s code, a name no field or description holds'
)

# (definition name prefix, measure, catalog component) -> reason
OUT_OF_REACH: dict[tuple[str, str, str], str] = {
    ("serving-kserve-io-llminferenceservice-", "id", "workload"): _DECODE,
    ("serving-kserve-io-llminferenceservice-", "id", "group"): _DECODE,
    ("serving-kserve-io-llminferenceservice-", "id", "leader"): _DECODE,
    ("serving-kserve-io-llminferenceservice-", "id", "worker"): _DECODE,
    ("workload-codeflare-dev-appwrapper-", "template", "podSet"): _WRAPPED,
    ("workload-codeflare-dev-appwrapper-", "replicas", "podSet"): _WRAPPED,
    ("workload-codeflare-dev-appwrapper-", "id", "podSet"): _WRAPPED,
    ("ray-io-rayjob-", "replicas", "submitter"): (
        "one submitter pod only in submissionMode K8sJobMode (the default), by the "
        "controller's code; nothing in the schema ties the mode to submitterPodTemplate"
    ),
    ("serving-knative-dev-service-", "replicas", "revision"): (
        "initial, min and max scale from autoscaling.knative.dev/* annotations of the "
        "revision template, keys no schema field describes"
    ),
}


def out_of_reach(definition: str, measure: str, component: str) -> str | None:
    """Why the catalog's ``measure`` of ``component`` cannot be inferred, or None."""
    for (prefix, what, name), reason in OUT_OF_REACH.items():
        if definition.startswith(prefix) and what == measure and name == component:
            return reason
    return None
