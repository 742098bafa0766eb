"""``wlmap infer --crd FILE|NAME``: draft a definition for a kind nobody has mapped yet."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from wlmap.cli._session import Session
from wlmap.cli.commands._base import command, file_option
from wlmap.errors import ManifestError
from wlmap.infer import candidate_kinds, infer
from wlmap.sources import read_manifests

if TYPE_CHECKING:
    from wlmap.app.live import Connected

_CRD_API = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


@command("infer", short_help="Draft a definition from a CRD (and sample objects and pods).")
@click.option(
    "--crd",
    "crd_source",
    required=True,
    metavar="FILE|NAME",
    help="The CRD: a file, or the name of one installed in the cluster (plural.group); "
    "by name and without -f/--pods, the kind's objects and their pods are listed too.",
)
@click.option("--version", "version", metavar="V", help="Served version (default: storage).")
@file_option(
    required=False, help="Sample objects of the kind (and their pods, if in the same files)."
)
@click.option(
    "--pods",
    "pods",
    multiple=True,
    metavar="DUMP",
    type=click.Path(allow_dash=True),
    help="Pods of the samples (e.g. `kubectl get pods -o yaml`).",
)
@click.option(
    "--format",
    "output",
    type=click.Choice(["wlmap", "karta"]),
    default="wlmap",
    show_default=True,
    help="Write a WorkloadMap or a Karta.",
)
@click.option(
    "--referenced-crd",
    "referenced",
    multiple=True,
    metavar="FILE|NAME",
    help="The CRD of a kind the workload names by reference, such as a runtime that holds "
    "its pod templates: a file, or a name in the cluster. With --crd NAME, the kinds the "
    "schema names are looked up in the cluster too.",
)
@click.option("--explain", is_flag=True, help="Show the evidence for each choice on stderr.")
def infer_command(
    session: Session,
    crd_source: str,
    version: str | None,
    files: tuple[str, ...],
    pods: tuple[str, ...],
    output: str,
    referenced: tuple[str, ...],
    explain: bool,
) -> None:
    """Draft a definition for the kind a CRD defines: pod templates found by shape, roles,
    instance ids, counts, suspend, conditions and phases mapped to the shared states; sample
    objects fill schemaless parts and their pods give the selectors (read from the cluster
    when the CRD is named and no -f or --pods is given). The draft goes to stdout; guesses are commented and listed on stderr for review."""
    live = not files and not pods and not _is_file(crd_source)
    crd, objects, pod_objects, known = _read_crd(session, crd_source, version, live)
    objects += [m.obj for m in read_manifests(files)] if files else []
    pod_objects += [m.obj for m in read_manifests(pods)] if pods else []
    pod_objects += [o for o in objects if o.get("kind") == "Pod" and o.get("apiVersion") == "v1"]
    known += _referenced_crds(session, referenced)
    draft = infer(
        crd, version, objects, pod_objects, "karta" if output == "karta" else "wlmap", known
    )
    session.output.data(draft.text.rstrip("\n"))
    if explain:
        for item in draft.evidence:
            session.output.warn(item.line())
    if draft.review:
        session.output.warn(
            f"{len(draft.review)} choice(s) are guesses; confirm them (listed at the top "
            "of the draft) before use"
        )


def _is_file(source: str) -> bool:
    return source == "-" or Path(source).exists()


_Read = tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]


def _crds_in(source: str) -> list[dict[str, Any]]:
    found = [m.obj for m in read_manifests([source])]
    return [o for o in found if o.get("kind") == "CustomResourceDefinition"]


def _referenced_crds(session: Session, sources: tuple[str, ...]) -> list[dict[str, Any]]:
    """The CRDs ``--referenced-crd`` names: every CRD in each file, or one by name."""
    out: list[dict[str, Any]] = []
    for source in sources:
        if _is_file(source):
            crds = _crds_in(source)
            if not crds:
                raise ManifestError(f"{source}: --referenced-crd: no CustomResourceDefinition")
            out += crds
        else:
            out.append(_read_crd(session, source, None, live=False)[0])
    return out


def _read_crd(session: Session, source: str, version: str | None, live: bool) -> _Read:
    """The CRD, and when ``live``, the kind's objects, their namespaces' pods and the CRDs
    of the kinds it names by reference."""
    if _is_file(source):
        crds = _crds_in(source)
        if len(crds) != 1:
            raise ManifestError(
                f"{source}: expected one CustomResourceDefinition, found {len(crds)}"
            )
        return crds[0], [], [], []
    if "." not in source:
        raise ManifestError(
            f"{source!r} is neither a file nor a CRD name (plural.group, e.g. rayclusters.ray.io)"
        )
    from wlmap.sources.cluster import ApiError  # noqa: PLC0415 - live mode only

    async def fetch(connected: Connected) -> _Read:
        cluster, discovery = connected.cluster, connected.discovery
        crd: dict[str, Any] = await cluster.request("GET", f"{_CRD_API}/{source}")
        if not live:
            return crd, [], [], []
        try:
            samples, pods = await _list_live(cluster, discovery, crd, version)
        except ApiError as exc:
            session.output.warn(f"samples not listed, drafting from the CRD alone: {exc}")
            samples, pods = [], []
        known = await _referenced_live(cluster, discovery, crd, version, samples)
        return crd, samples, pods, known

    return session.cluster.run(fetch)


async def _list_live(
    cluster: Any, discovery: Any, crd: dict[str, Any], version: str | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Objects of the CRD's kind in every namespace, and the pods of those namespaces.

    Samples show what the schema leaves open and their pods show the labels; a cluster
    that refuses the lists leaves the draft to the schema alone.
    """
    from wlmap.sources.cluster import list_objects  # noqa: PLC0415 - live mode only

    spec = crd.get("spec") or {}
    group, kind = str(spec.get("group") or ""), str((spec.get("names") or {}).get("kind") or "")
    resource = discovery.find(group, kind, version)
    pods_resource = discovery.find("", "Pod", "v1")
    if resource is None:
        return [], []
    samples = await list_objects(cluster, resource)
    namespaces = sorted({str((o.get("metadata") or {}).get("namespace") or "") for o in samples})
    pods: list[dict[str, Any]] = []
    for namespace in namespaces if pods_resource is not None else ():
        if namespace:
            pods += await list_objects(cluster, pods_resource, namespace)
    return samples, pods


async def _referenced_live(
    cluster: Any,
    discovery: Any,
    crd: dict[str, Any],
    version: str | None,
    samples: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """The CRDs of the kinds the CRD names by reference, where the cluster serves them;
    their objects join ``samples`` (a runtime's objects show which role is which)."""
    from wlmap.sources.cluster import ApiError, list_objects  # noqa: PLC0415 - live mode only

    known: list[dict[str, Any]] = []
    for kind, group in candidate_kinds(crd, version, samples):
        serving = [r for r in discovery.resources if r.kind == kind and group in (None, r.group)]
        for resource in sorted(serving, key=lambda r: not r.preferred):
            try:
                known.append(await cluster.request("GET", f"{_CRD_API}/{resource.qualified}"))
                samples += await list_objects(cluster, resource)
            except ApiError:
                continue  # a built-in kind, or one this user may not read
            break
    return known
