"""``wlmap web`` without -f, on the real API server: what each service account sees with
``--auth``, and live changes reaching a page open in a real browser without a reload."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import chromium_path, page, shown
from tests.integration.controllers import jobset_children
from tests.integration.kube import Kube, load, wait_for
from tests.integration.testcluster import TestCluster
from tests.integration.webserver import get, names, reader, web_server

__all__ = ["chromium_path", "page"]  # the browser fixtures, used here by name

COORDINATOR = "jobset/coordinator.yaml"
JOBSETS = ("jobset.x-k8s.io", "jobsets")


def jobset(kube: Kube, namespace: str, name: str) -> dict[str, Any]:
    (manifest,) = load(COORDINATOR)
    manifest["metadata"]["name"] = name
    return kube.create(manifest, namespace)


def test_each_service_account_sees_only_the_namespaces_it_may_list(
    cluster: TestCluster, kube: Kube, namespace: str
) -> None:
    other = kube.namespace(f"{namespace[:40]}-other")
    jobset(kube, namespace, "alpha")
    jobset(kube, other, "beta")
    first = reader(kube, namespace, "first", [JOBSETS])
    second = reader(kube, other, "second", [JOBSETS, ("", "pods")])
    pods_only = reader(kube, namespace, "pods-only", [("", "pods")])
    ours = (namespace, other)
    with web_server(cluster, auth=True) as url:
        assert names(get(f"{url}api/workloads", first), ours) == {"alpha"}
        assert names(get(f"{url}api/workloads", second), ours) == {"beta"}
        assert names(get(f"{url}api/workloads", pods_only), ours) == set()

        for token in (None, "not-a-token", first[:-4] + "abcd"):
            refused = get(f"{url}api/workloads", token)
            assert refused.status_code == 401, (token, refused.text)
            assert "alpha" not in refused.text
            assert refused.headers["WWW-Authenticate"].startswith("Bearer")
        assert get(url, None).status_code == 401  # the page itself too

        rows = json.loads(get(f"{url}api/workloads", second).text)["items"]
        beta = next(r["key"] for r in rows if r["name"] == "beta" and r["namespace"] == other)
        assert json.loads(get(f"{url}api/workload/{beta}", second).text)["pods"] == []
        assert get(f"{url}api/workload/{beta}", first).status_code == 404
        rows = json.loads(get(f"{url}api/workloads", first).text)["items"]
        alpha = next(r["key"] for r in rows if r["name"] == "alpha")
        assert json.loads(get(f"{url}api/workload/{alpha}", first).text)["pods"] is None
        assert get(f"{url}api/waiting", first).status_code == 200
        cluster_page = json.loads(get(f"{url}api/cluster", first).text)
        assert cluster_page["domains"] == [], cluster_page


def test_no_endpoint_changes_the_cluster(cluster: TestCluster, kube: Kube, namespace: str) -> None:
    jobset(kube, namespace, "kept")
    with web_server(cluster, auth=False) as url:
        for method in ("POST", "PUT", "PATCH", "DELETE"):
            import httpx  # noqa: PLC0415

            answer = httpx.request(method, f"{url}api/workloads", timeout=10)
            assert answer.status_code == 405, (method, answer.status_code)
    assert kube.get("jobset.x-k8s.io/v1alpha2", "JobSet", namespace, "kept") is not None


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Any]:
    """Chromium for this module only: Playwright's loop stops with it (see tests/browser)."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the dev extras")
    with sync_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=chromium_path, args=["--no-sandbox"])
        yield launched
        launched.close()


def pods_shown(page: Any, key: int) -> str:
    cell = page.query_selector(f'tr[data-key="{key}"] [data-col=pods]')
    return str(cell.text_content()) if cell is not None else ""


def test_a_pod_becoming_ready_and_a_deletion_reach_the_open_page(
    cluster: TestCluster, kube: Kube, namespace: str, page: Any
) -> None:
    created = jobset(kube, namespace, "live")
    pods = jobset_children(kube, created)
    slow = next(p for p in pods if p["metadata"]["name"].endswith("-workers-0-3"))
    kube.set_status(slow, {"conditions": [{"type": "Ready", "status": "False"}]})
    with web_server(cluster, auth=False) as url:
        rows = json.loads(get(f"{url}api/workloads").text)["items"]
        key = next(r["key"] for r in rows if r["name"] == "live" and r["namespace"] == namespace)
        wait_for(
            lambda: json.loads(get(f"{url}api/workload/{key}").text)["components"],
            "the JobSet interpreted",
        )
        shown(page, f"{url}#/workloads")
        page.wait_for_function("() => document.body.dataset.live === 'open'")
        assert pods_shown(page, key) == "4/5"
        page.evaluate("() => { window.notReloaded = true; }")

        kube.set_status(slow, {"conditions": [{"type": "Ready", "status": "True"}]})
        page.wait_for_function(
            f"""() => document.querySelector('tr[data-key="{key}"] [data-col=pods]')
                ?.textContent === '5/5'""",
            timeout=2000,
        )
        kube.delete(created)
        page.wait_for_function(
            f"""() => !document.querySelector('tr[data-key="{key}"]')""", timeout=2000
        )
        assert page.evaluate("() => window.notReloaded") is True
        assert page.errors == []


def test_the_workload_page_follows_its_pods_and_its_deletion(
    cluster: TestCluster, kube: Kube, namespace: str, page: Any
) -> None:
    created = jobset(kube, namespace, "followed")
    pods = jobset_children(kube, created)
    slow = next(p for p in pods if p["metadata"]["name"].endswith("-workers-0-3"))
    with web_server(cluster, auth=False) as url:
        rows = json.loads(get(f"{url}api/workloads").text)["items"]
        key = next(r["key"] for r in rows if r["name"] == "followed")
        shown(page, f"{url}#/workload/{key}")
        page.wait_for_function("() => document.body.dataset.live === 'open'")
        ready = f"""() => [...document.querySelectorAll('table.pods tr')]
            .find(r => r.cells[0].textContent === '{slow["metadata"]["name"]}')?.cells[4].textContent"""
        assert page.evaluate(ready) == "yes"
        page.evaluate("() => { window.notReloaded = true; }")

        kube.set_status(slow, {"conditions": [{"type": "Ready", "status": "False"}]})
        page.wait_for_function(f"() => ({ready})() === 'no'", timeout=2000)
        kube.delete(created)
        page.wait_for_function(
            "() => document.getElementById('problems').textContent.includes('was deleted')",
            timeout=2000,
        )
        assert page.evaluate("() => window.notReloaded") is True
        assert page.errors == []


def test_in_the_browser_a_token_sees_only_its_own_namespace_change(
    cluster: TestCluster, kube: Kube, namespace: str, browser: Any
) -> None:
    other = kube.namespace(f"{namespace[:40]}-other")
    jobset(kube, namespace, "mine")
    token = reader(kube, namespace, "viewer", [JOBSETS])
    with web_server(cluster, auth=True) as url:
        context = browser.new_context(extra_http_headers={"Authorization": f"Bearer {token}"})
        try:
            opened = context.new_page()
            shown(opened, f"{url}#/workloads")
            opened.wait_for_function("() => document.body.dataset.live === 'open'")
            listed = opened.eval_on_selector_all(
                "tbody tr[data-key]", "rows => rows.map(r => r.cells[1].textContent)"
            )
            assert set(listed) <= {namespace} and listed, listed  # only the namespace it may list
            jobset(kube, other, "hidden")
            jobset(kube, namespace, "arrived")
            opened.wait_for_function(
                """() => [...document.querySelectorAll('tbody tr[data-key] a')]
                    .some(a => a.textContent === 'arrived')""",
                timeout=2000,
            )
            opened.wait_for_timeout(500)  # "hidden" came first: it would be drawn by now
            names_shown = opened.eval_on_selector_all(
                "tbody tr[data-key] a", "links => links.map(a => a.textContent)"
            )
            assert "hidden" not in names_shown and "mine" in names_shown, names_shown
        finally:
            context.close()
