"""Small definitions written for the tests, one per mechanism, applied to real corpus objects."""

from __future__ import annotations

from typing import Any

import yaml

from wlmap.definitions import Definition, definition_from_mapping


def define(text: str) -> Definition:
    """A validated definition from YAML text."""
    data: dict[str, Any] = yaml.safe_load(text)
    return definition_from_mapping(data)


# Pod templates through podTemplateSpecPath, instances keyed by replicated job name,
# replicas multiplied by each job's parallelism.
JOBSET = define(
    """
apiVersion: wlmap.dev/v1alpha1
kind: WorkloadMap
metadata: {name: test-jobset}
spec:
  structureDefinition:
    rootComponent:
      name: jobset
      kind: {group: jobset.x-k8s.io, version: v1alpha2, kind: JobSet}
      statusDefinition:
        conditionsDefinition: {path: .status.conditions}
        statusMappings:
          completed: [{byConditions: [{type: Completed, status: "True"}]}]
          failed: [{byConditions: [{type: Failed, status: "True"}]}]
          suspended: [{byConditions: [{type: Suspended, status: "True"}]}]
          running:
            - byExpression:
                expression: '[.status.conditions[]? | select(.status == "True")] | length == 0'
                expectedResult: "true"
      suspendDefinition:
        suspendActions: [{path: .spec.suspend, value: "true"}]
        resumeActions: [{path: .spec.suspend, value: "false"}]
    childComponents:
      - name: replicatedJob
        ownerRef: jobset
        instanceIdPath: .spec.replicatedJobs[].name
        specDefinition:
          podTemplateSpecPath: .spec.replicatedJobs[].template.spec.template
        scaleDefinition:
          replicasPath: .spec.replicatedJobs[] | (.replicas // 1) * (.template.spec.parallelism // 1)
        podSelector:
          componentTypeSelector:
            keyPath: '.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]'
          componentInstanceSelector:
            idPath: '.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]'
          replicaSelector:
            keyPath: '.metadata.labels["jobset.sigs.k8s.io/job-index"]'
  optimizationInstructions:
    gangScheduling:
      podGroup:
        name: jobset
        topology: {topologyName: dc, requiredTopologyLevel: rack}
        subGroups:
          - componentName: replicatedJob
            topology: {topologyName: dc, preferredTopologyLevel: host}
      podGroups:
        - name: per-job
          members:
            - componentName: replicatedJob
              groupByKeyPaths: ['.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]']
"""
)

# A kind-less grouping component whose replicas multiply leader and worker pods.
LWS = define(
    """
apiVersion: wlmap.dev/v1alpha1
kind: WorkloadMap
metadata: {name: test-lws}
spec:
  structureDefinition:
    rootComponent:
      name: lws
      kind: {group: leaderworkerset.x-k8s.io, version: v1, kind: LeaderWorkerSet}
      statusDefinition:
        conditionsDefinition: {path: .status.conditions}
        statusMappings:
          running: [{byConditions: [{type: Available, status: "True"}]}]
    childComponents:
      - name: group
        ownerRef: lws
        scaleDefinition: {replicasPath: .spec.replicas}
        podSelector:
          replicaSelector:
            keyPath: '.metadata.labels["leaderworkerset.sigs.k8s.io/group-index"]'
      - name: leader
        ownerRef: group
        specDefinition: {podTemplateSpecPath: .spec.leaderWorkerTemplate.leaderTemplate}
        podSelector:
          componentTypeSelector:
            keyPath: '.metadata.labels["leaderworkerset.sigs.k8s.io/worker-index"]'
            value: "0"
      - name: worker
        ownerRef: group
        specDefinition: {podTemplateSpecPath: .spec.leaderWorkerTemplate.workerTemplate}
        scaleDefinition: {replicasPath: '.spec.leaderWorkerTemplate.size - 1'}
        podSelector:
          componentTypeSelector:
            keyPath: '.metadata.labels["leaderworkerset.sigs.k8s.io/worker-index"] != "0"'
            value: "true"
  optimizationInstructions:
    gangScheduling:
      podGroups:
        - name: group
          members:
            - componentName: group
              groupByKeyPaths: ['.metadata.labels["leaderworkerset.sigs.k8s.io/group-index"]']
"""
)

# podSpecPath with a separate metadataPath, elastic replicas.
KSERVE = define(
    """
apiVersion: wlmap.dev/v1alpha1
kind: WorkloadMap
metadata: {name: test-isvc}
spec:
  structureDefinition:
    rootComponent:
      name: isvc
      kind: {group: serving.kserve.io, version: v1beta1, kind: InferenceService}
      statusDefinition:
        conditionsDefinition: {path: .status.conditions}
        statusMappings:
          running: [{byConditions: [{type: Ready, status: "True"}]}]
          initializing: [{byConditions: [{type: Ready, status: "False"}]}]
    childComponents:
      - name: predictor
        ownerRef: isvc
        specDefinition:
          podSpecPath: .spec.predictor
          metadataPath: .metadata
        scaleDefinition:
          minReplicasPath: .spec.predictor.minReplicas
          maxReplicasPath: .spec.predictor.maxReplicas
"""
)

# Scattered fields: the NIM operator keeps resources and image at the top of its spec.
NIM = define(
    """
apiVersion: wlmap.dev/v1alpha1
kind: WorkloadMap
metadata: {name: test-nim}
spec:
  structureDefinition:
    rootComponent:
      name: nim
      kind: {group: apps.nvidia.com, version: v1alpha1, kind: NIMService}
      specDefinition:
        fragmentedPodSpecDefinition:
          resourcesPath: .spec.resources
          imagePath: '.spec.image.repository + ":" + .spec.image.tag'
          labelsPath: .spec.labels
          annotationsPath: .spec.annotations
          schedulerNamePath: .spec.schedulerName
      scaleDefinition: {replicasPath: .spec.replicas}
      statusDefinition:
        phaseDefinition: {path: .status.state}
        statusMappings:
          running: [{byPhase: Ready}]
          failed: [{byPhase: Failed}]
"""
)

# The bare Pod: the template is the object itself.
POD = define(
    """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: test-pod}
spec:
  structureDefinition:
    rootComponent:
      name: pod
      kind: {group: "", version: v1, kind: Pod}
      specDefinition: {podTemplateSpecPath: .}
      statusDefinition:
        phaseDefinition: {path: .status.phase}
        statusMappings:
          running: [{byPhase: Running}]
          completed: [{byPhase: Succeeded}]
          failed: [{byPhase: Failed}]
          initializing: [{byPhase: Pending}]
"""
)
