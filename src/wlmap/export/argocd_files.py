"""The files of the Argo CD export: the ``argocd-cm`` entries as a ConfigMap patch, and a
kustomize component that applies it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from wlmap.definitions import Definition
from wlmap.export.argocd import NATIVE_GROUPS, HealthScript, Refusal, health_scripts

__all__ = ["ArgoCDExport", "argocd_export", "default_selection"]

PATCH_FILE = "argocd-cm-health.yaml"
KUSTOMIZATION_FILE = "kustomization.yaml"


@dataclass(frozen=True)
class ArgoCDExport:
    """The health scripts of the chosen definitions and the files that carry them."""

    scripts: tuple[HealthScript, ...]
    namespace: str

    @property
    def refusals(self) -> tuple[Refusal, ...]:
        """Every status expression left out, with its definition and field."""
        return tuple(r for s in self.scripts for r in s.refusals)

    @property
    def coverage(self) -> tuple[int, int]:
        """Translated expressions and all expressions."""
        translated = sum(s.translated for s in self.scripts)
        return translated, translated + len(self.refusals)

    def data(self) -> dict[str, str]:
        """The ``argocd-cm`` data entries: a health script per kind, and ``useOpenLibs``
        for the kinds whose scripts need Lua's string library."""
        entries: dict[str, str] = {}
        for script in self.scripts:
            entries[f"resource.customizations.health.{script.key}"] = script.script
            if script.use_open_libs:
                entries[f"resource.customizations.useOpenLibs.{script.key}"] = "true"
        return entries

    def patch(self) -> str:
        """The ConfigMap patch (``kubectl patch configmap argocd-cm --patch-file``, or a
        kustomize patch)."""
        document: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "argocd-cm",
                "namespace": self.namespace,
                "labels": {"app.kubernetes.io/part-of": "argocd"},
            },
            "data": self.data(),
        }
        return _dump(document)

    def kustomization(self) -> str:
        """A kustomize component patching ``argocd-cm`` (list it under ``components:``)."""
        return _dump(
            {
                "apiVersion": "kustomize.config.k8s.io/v1alpha1",
                "kind": "Component",
                "patches": [{"path": PATCH_FILE}],
            }
        )

    def files(self) -> dict[str, str]:
        """File name -> text, ready to write into one folder."""
        return {PATCH_FILE: self.patch(), KUSTOMIZATION_FILE: self.kustomization()}


def default_selection(definitions: Iterable[Definition]) -> list[Definition]:
    """The definitions exported when none is named: all but those of Kubernetes' own
    groups, whose health Argo CD's own code assesses (an entry would replace it)."""
    return [d for d in definitions if d.root_gvk is None or d.root_gvk.group not in NATIVE_GROUPS]


def argocd_export(definitions: Sequence[Definition], namespace: str = "argocd") -> ArgoCDExport:
    """The Argo CD export of these definitions."""
    return ArgoCDExport(tuple(health_scripts(definitions)), namespace)


class _Dumper(yaml.SafeDumper):
    """Scripts as literal blocks, readable in the ConfigMap."""


def _literal(dumper: yaml.SafeDumper, text: str) -> yaml.Node:
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _literal)


def _dump(document: Any) -> str:
    return yaml.dump(document, Dumper=_Dumper, sort_keys=False, width=1000)
