"""The web page in a real browser: its numbers equal the CLI's JSON for the same input,
filters and the keyboard reach everything, hostile strings stay text, bad input is located."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import Serve, shown
from tests.corpus import corpus_path
from tests.traces import trace_path

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "wlmap" / "examples"


def cli_json(*args: str) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "wlmap.cli", *args, "-o", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    return json.loads(done.stdout)


def rows(page: Any) -> list[dict[str, str]]:
    found: list[dict[str, str]] = page.eval_on_selector_all(
        "tbody tr[data-key]",
        """rows => rows.map(r => ({kind: r.cells[0].textContent, name: r.cells[2].textContent,
            pods: r.querySelector('[data-col=pods]').textContent,
            gpus: r.querySelector('[data-col=gpus]').textContent}))""",
    )
    return found


def listed(items: list[dict[str, Any]]) -> list[dict[str, str]]:
    def number(value: float) -> str:
        return str(int(value)) if value == int(value) else f"{value:g}"

    return sorted(
        (
            {
                "kind": i["kind"],
                "name": i["name"],
                "pods": number(i["totals"]["pods"])
                if i["podsReady"] is None
                else f"{i['podsReady']}/{i['totals']['pods']}",
                "gpus": number(i["totals"]["gpus"]),
            }
            for i in items
        ),
        key=lambda r: (r["kind"], r["name"]),
    )


def state_counts(page: Any) -> dict[str, int]:
    return {
        b.get_attribute("data-state"): int(b.query_selector("b").text_content())
        for b in page.query_selector_all(".counts button")
    }


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(str(EXAMPLES), id="examples"),
        pytest.param("kubeflow-pytorchjob", id="corpus-pytorchjob"),
        pytest.param("jobset", id="corpus-jobset"),
        pytest.param("kai-podgroup", id="corpus-kai"),
    ],
)
def test_workloads_page_equals_get_json(page: Any, serve: Serve, source: str) -> None:
    path = source if source.startswith("/") else str(corpus_path(source))
    expected = cli_json("get", "--all-types", "-f", path)["items"]
    shown(page, serve(path))
    assert sorted(rows(page), key=lambda r: (r["kind"], r["name"])) == listed(expected)
    phases = Counter(p for i in expected for p in i["phases"])
    assert state_counts(page) == dict(phases)
    assert page.errors == []


@pytest.mark.parametrize("folder", ["kubeflow-pytorchjob", "kai-podgroup", "jobset"])
def test_workload_page_gangs_equal_describe_json(page: Any, serve: Serve, folder: str) -> None:
    path = str(corpus_path(folder))
    described = cli_json("describe", "-f", path)
    items = described.get("items", [described])
    url = serve(path)
    shown(page, url)
    links = page.eval_on_selector_all(
        "tbody a", "as => as.map(a => [a.textContent, a.getAttribute('href')])"
    )
    by_name = {i["name"]: i for i in items}
    checked = 0
    for name, href in links:
        want = by_name[name]
        shown(page, url + href)
        gangs = [int(c.text_content()) for c in page.query_selector_all("[data-col=minMember]")]
        assert gangs == [g["minMember"] for g in want["gangGroups"]]
        assert page.text_content("h1") == f"{want['kind']} {want['namespace'] or 'default'}/{name}"
        checked += 1
    assert checked == len(items)


def test_filters_and_sorting(page: Any, serve: Serve) -> None:
    expected = cli_json("get", "--all-types", "-f", str(EXAMPLES))["items"]
    shown(page, serve(str(EXAMPLES)))
    page.select_option("select[data-filter=kind]", "RayCluster")
    assert [r["kind"] for r in rows(page)] == [
        i["kind"] for i in expected if i["kind"] == "RayCluster"
    ]
    page.select_option("select[data-filter=kind]", "")
    page.fill("input[data-filter=text]", "multislice")
    assert [r["name"] for r in rows(page)] == ["v6e-multislice"]
    page.fill("input[data-filter=text]", "")
    page.click("button[data-sort=gpus]")
    page.click("button[data-sort=gpus]")  # descending
    gpus = [float(r["gpus"]) for r in rows(page)]
    assert gpus == sorted(gpus, reverse=True) and len(gpus) == len(expected)


def test_keyboard_reaches_every_control(page: Any, serve: Serve) -> None:
    shown(page, serve(str(EXAMPLES)))
    controls = page.eval_on_selector_all(
        "a[href], button:not([hidden]), input, select",
        "els => els.filter(e => e.offsetParent !== null).length",
    )
    reached = set()
    for _ in range(controls + 5):
        page.keyboard.press("Tab")
        reached.add(page.evaluate("document.activeElement.outerHTML.slice(0, 120)"))
    assert len(reached) >= controls
    page.focus("select[data-filter=kind]")
    page.keyboard.press("ArrowDown")  # the first kind, chosen from the keyboard
    assert len(rows(page)) < len(cli_json("get", "--all-types", "-f", str(EXAMPLES))["items"])


def focused(page: Any) -> str:
    """What has the keyboard focus: its tag and the data attribute naming it."""
    found: str = page.evaluate(
        """() => { const e = document.activeElement;
            return `${e.tagName.toLowerCase()} ${e.dataset.filter || e.dataset.sort || e.dataset.state || ''}`; }"""
    )
    return found


def tab_to(page: Any, wanted: str) -> None:
    for _ in range(100):
        page.keyboard.press("Tab")
        if focused(page) == wanted:
            return
    raise AssertionError(f"Tab never reached {wanted}")


def test_filters_keep_the_keyboard_focus(page: Any, serve: Serve) -> None:
    expected = cli_json("get", "--all-types", "-f", str(EXAMPLES))["items"]
    kinds = sorted({i["kind"] for i in expected})
    shown(page, serve(str(EXAMPLES)))
    tab_to(page, "select kind")
    page.keyboard.press("ArrowDown")  # the first kind
    assert focused(page) == "select kind"
    assert {r["kind"] for r in rows(page)} == {kinds[0]}
    page.keyboard.press("ArrowDown")  # the next one, still from the same control
    assert focused(page) == "select kind"
    assert {r["kind"] for r in rows(page)} == {kinds[1]}
    page.keyboard.press("Home")  # all kinds again
    assert len(rows(page)) == len(expected)
    page.keyboard.press("Tab")  # focus moves on from where it was, not from the top
    assert focused(page) == "select state"
    page.keyboard.press("Tab")
    page.keyboard.type("multislice")
    assert focused(page) == "input text"
    assert [r["name"] for r in rows(page)] == ["v6e-multislice"]
    page.keyboard.press("Control+A")
    page.keyboard.press("Backspace")
    tab_to(page, "button gpus")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")  # descending, the button still focused
    assert focused(page) == "button gpus"
    gpus = [float(r["gpus"]) for r in rows(page)]
    assert gpus == sorted(gpus, reverse=True) and len(gpus) == len(expected)
    assert page.get_attribute("th:has(button[data-sort=gpus])", "aria-sort") == "descending"
    page.keyboard.press("Shift+Tab")
    state = focused(page)
    assert state.startswith("button")
    page.keyboard.press("Enter")  # a sort button: sorting by the column left of GPUs
    assert focused(page) == state
    phase = sorted({p for i in expected for p in i["phases"]})[0]
    tab_to(page, f"button {phase}")
    page.keyboard.press("Enter")  # a state count filters, and the State select follows
    assert focused(page) == f"button {phase}"
    assert page.get_attribute(f".counts button[data-state={phase}]", "aria-pressed") == "true"
    assert page.eval_on_selector("select[data-filter=state]", "s => s.value") == phase
    assert len(rows(page)) == sum(phase in i["phases"] for i in expected)


HOSTILE = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: '<script>window.pwned=1</script>'
  namespace: '"onload=window.pwned=2 x="'
  labels:
    long: {long}
    html: '<img src=x onerror="window.pwned=3">'
spec:
  template:
    spec:
      containers: [{{name: c, image: busybox}}]
"""


def test_hostile_strings_render_as_text(page: Any, serve: Serve, tmp_path: Path) -> None:
    long = "A" * 10_000
    (tmp_path / "hostile.yaml").write_text(HOSTILE.format(long=long))
    url = serve(str(tmp_path))
    shown(page, url)
    assert rows(page)[0]["name"] == "<script>window.pwned=1</script>"
    assert page.text_content("tbody td:nth-child(2)") == '"onload=window.pwned=2 x="'
    page.fill("input[data-filter=text]", long[:5000])
    assert len(rows(page)) == 1  # the 10,000-character label is searched as text
    page.click("tbody a")
    page.wait_for_function("() => document.body.dataset.shown.startsWith('#/workload/')")
    assert page.evaluate("window.pwned") is None
    assert page.query_selector_all("main script, main img") == []
    assert page.errors == []


def test_malformed_file_is_located_on_the_page(page: Any, serve: Serve, tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text((EXAMPLES / "pytorchjob-with-status.yaml").read_text())
    (tmp_path / "broken.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: [\n")
    (tmp_path / "unknown.yaml").write_text(
        "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g}\n"
    )
    shown(page, serve(str(tmp_path)))
    problems = [p.text_content() for p in page.query_selector_all("#problems li")]
    assert any(re.search(r"broken\.yaml:\d+:\d+: malformed YAML", p) for p in problems), problems
    assert any("unknown.yaml" in p and "Gizmo" in p for p in problems), problems
    assert "Traceback" not in page.content()
    assert len(rows(page)) == 1


def test_cluster_page_draws_every_openb_gpu(page: Any, serve: Serve) -> None:
    nodes = trace_path("openb/openb_node_list_gpu_node.csv")
    pods = trace_path("openb/openb_pod_list_default.csv")
    lines = nodes.read_text().splitlines()[1:]
    gpus = sum(int(line.split(",")[3]) for line in lines)
    shown(page, serve(str(EXAMPLES), trace_nodes=str(nodes), trace_pods=str(pods)) + "#/cluster")
    assert page.eval_on_selector_all("g[data-node]", "g => g.length") == len(lines)
    assert page.eval_on_selector_all("rect.gpu", "r => r.length") == gpus
    assert page.text_content("#cluster-totals").startswith(f"{len(lines)} nodes · {gpus} GPUs")
    assert page.errors == []
