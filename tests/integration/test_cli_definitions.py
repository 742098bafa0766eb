"""Definitions stored in the cluster (``WorkloadMap`` and ``Karta`` objects) in live mode."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
import yaml

from tests.integration.kube import Kube, load
from tests.integration.testcluster import REPO
from tests.integration.wlmapcli import Wlmap, aligned, jobset_completed
from wlmap.cli._exits import OK

CRDS = ("wlmap.dev_workloadmaps.yaml", "run.ai_kartas.yaml")
BUILTIN = "jobset-x-k8s-io-jobset-v1alpha2"
CATALOG_JOBSET = REPO / "src" / "wlmap" / "catalog" / "definitions" / f"{BUILTIN}.yaml"
WIDE = ("NAMESPACE", "NAME", "PHASE", "PODS", "GPUS", "CPU", "MEMORY", "DEFINITION")


@pytest.fixture
def definition_crds(kube: Kube) -> Iterator[None]:
    """The project's own CRDs, installed for one test and removed after it (with every
    definition object), so that other tests see the built-in definitions only."""
    names = kube.install_crds(REPO / "deploy" / "crds" / file for file in CRDS)
    try:
        yield
    finally:
        kube.remove_crds(names)


def stored(
    api_version: str, kind: str, name: str, edit: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The catalog's JobSet definition as a cluster object of ``kind`` named ``name``;
    ``edit`` replaces status mappings."""
    document: dict[str, Any] = yaml.safe_load(CATALOG_JOBSET.read_text())
    document.update(apiVersion=api_version, kind=kind, metadata={"name": name})
    if edit:
        root = document["spec"]["structureDefinition"]["rootComponent"]
        root["statusDefinition"]["statusMappings"].update(edit)
    return document


def by_expression(expression: str) -> list[dict[str, Any]]:
    return [{"byExpression": {"expression": expression, "expectedResult": "true"}}]


@pytest.mark.usefixtures("definition_crds")
def test_cluster_definitions_override_built_in_ones(
    wlmap: Wlmap, kube: Kube, namespace: str
) -> None:
    (manifest,) = load("jobset/coordinator.yaml")
    jobset_completed(kube, kube.create(manifest, namespace))

    def shown() -> tuple[list[str], list[str]]:
        result = wlmap("get", "jobsets", "-n", namespace, "-o", "wide")
        assert result.code == OK, result.err
        return result.table(), result.warnings

    def row(definition: str) -> list[str]:
        return aligned(
            WIDE, (namespace, "coordinator-example", "Completed", "0/5", "0", "0", "0", definition)
        )

    created: list[dict[str, Any]] = []

    def create(api_version: str, kind: str, name: str, **edit: Any) -> dict[str, Any]:
        created.append(kube.create(stored(api_version, kind, name, edit)))
        return created[-1]

    try:
        override = create("wlmap.dev/v1alpha1", "WorkloadMap", "jobset-in-cluster")
        create(
            "wlmap.dev/v1alpha1",
            "WorkloadMap",
            "jobset-reads-env",
            completed=by_expression("env.HOME != null"),
        )
        create("run.ai/v1alpha1", "Karta", "jobset-broken", completed=by_expression(".status.x["))
        invalid = [
            "cluster:WorkloadMap/jobset-reads-env is invalid and not used (1 problems; first: "
            "jobset-reads-env component 'jobset' at spec.structureDefinition.rootComponent."
            "statusDefinition.statusMappings.completed[0].byExpression.expression: "
            "unsafe jq rejected: env/0 reads the environment)",
            "cluster:Karta/jobset-broken is invalid and not used (1 problems; first: "
            "jobset-broken component 'jobset' at spec.structureDefinition.rootComponent."
            "statusDefinition.statusMappings.completed[0].byExpression.expression: "
            "jq syntax error: ",
        ]

        def reported(warnings: list[str]) -> bool:
            return warnings[0] == invalid[0] and warnings[1].startswith(invalid[1])

        table, warnings = shown()
        assert table == row("jobset-in-cluster")
        assert len(warnings) == 2 and reported(warnings), warnings
        listed = wlmap("get", "jobsets", "-n", namespace, "-o", "json")
        (item,) = json.loads(listed.out)["items"]
        assert (item["definition"], item["origin"]) == (
            "jobset-in-cluster",
            "cluster:WorkloadMap/jobset-in-cluster",
        )

        # a Karta (Workload Map's own kind) is read the same way, and wins over the
        # WorkloadMap for the same kind, with a warning
        karta = create("run.ai/v1alpha1", "Karta", "jobset-karta")
        table, warnings = shown()
        assert table == row("jobset-karta")
        assert reported(warnings) and warnings[2:] == [
            "JobSet.v1alpha2.jobset.x-k8s.io: cluster:Karta/jobset-karta overrides "
            "cluster:WorkloadMap/jobset-in-cluster; keep one cluster definition per kind"
        ]
        kube.delete(override)
        table, warnings = shown()
        assert table == row("jobset-karta")
        assert len(warnings) == 2 and reported(warnings), warnings

        # only invalid definitions left: the built-in one is used
        kube.delete(karta)
        table, warnings = shown()
        assert table == row(BUILTIN)
        assert len(warnings) == 2 and reported(warnings), warnings
    finally:
        for obj in created:
            kube.delete(obj)

    assert shown() == (row(BUILTIN), [])
