"""A small valid definition to mutate, one rule at a time, in validation tests."""

from __future__ import annotations

import copy
from typing import Any

import yaml

VALID = yaml.safe_load(
    """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata:
  name: sample
spec:
  structureDefinition:
    rootComponent:
      name: set
      kind: {group: jobset.x-k8s.io, version: v1alpha2, kind: JobSet}
      statusDefinition:
        conditionsDefinition:
          path: .status.conditions
        phaseDefinition:
          path: .status.phase
        statusMappings:
          completed:
            - byConditions: [{type: Completed, status: "True"}]
          running:
            - byPhase: Running
      suspendDefinition:
        suspendActions: [{path: .spec.suspend, value: "true"}]
        resumeActions: [{path: .spec.suspend, value: "false"}]
    childComponents:
      - name: job
        ownerRef: set
        instanceIdPath: .spec.replicatedJobs[].name
        specDefinition:
          podTemplateSpecPath: .spec.replicatedJobs[].template.spec.template
        scaleDefinition:
          replicasPath: .spec.replicatedJobs[].replicas
        podSelector:
          componentTypeSelector:
            keyPath: '.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]'
          componentInstanceSelector:
            idPath: '.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]'
  optimizationInstructions:
    gangScheduling:
      podGroups:
        - name: all
          members:
            - componentName: job
              groupByKeyPaths: ['.metadata.labels["jobset.sigs.k8s.io/jobset-name"]']
      podGroup:
        name: all
        subGroups:
          - componentName: job
"""
)


def sample(**changes: Any) -> dict[str, Any]:
    """A deep copy of the valid sample."""
    doc: dict[str, Any] = copy.deepcopy(VALID)
    doc.update(changes)
    return doc


def root(doc: dict[str, Any]) -> dict[str, Any]:
    """The root component of a sample document."""
    found: dict[str, Any] = doc["spec"]["structureDefinition"]["rootComponent"]
    return found


def child(doc: dict[str, Any], index: int = 0) -> dict[str, Any]:
    """A child component of a sample document."""
    found: dict[str, Any] = doc["spec"]["structureDefinition"]["childComponents"][index]
    return found
