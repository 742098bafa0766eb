"""The Waiting page in a real browser, on a dump with Node objects: for each waiting
workload, the plan's answer on the page (where its gang would go, or the binding level and
resource and whose pods finishing would make room) equals `wlmap plan -o json`.

The dump is the plan tests' cluster (two blocks of two racks of 8-GPU nodes, with running
pods) and the Kueue TAS sample Job from the corpus, given GPUs: once too wide for any rack
and suspended, as Kueue holds it, once narrow enough and just created.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.browser.conftest import Serve, shown
from tests.unit.placement.plan.inputs import LEVELS, dump_objects, gpu_job


def waiting_jobs() -> list[dict[str, Any]]:
    wide, narrow = gpu_job(4, 4), gpu_job(3, 4)
    wide["metadata"]["name"], narrow["metadata"]["name"] = "wide", "narrow"
    wide["spec"]["suspend"] = True  # held by Kueue; the Job controller says so
    wide["status"] = {"conditions": [{"type": "Suspended", "status": "True"}]}
    narrow["status"] = {}  # created, no pod yet
    return [wide, narrow]


def plan_json(workload: Path, dump: Path) -> dict[str, Any]:
    levels = ",".join(LEVELS)
    command = ["plan", "-f", str(workload), "--cluster", str(dump), "--levels", levels]
    done = subprocess.run(
        [sys.executable, "-m", "wlmap.cli", *command, "-o", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr  # 1: it does not fit
    (item,) = json.loads(done.stdout)["items"]
    return item  # type: ignore[no-any-return]  # parsed JSON


def drawn_plan(row: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = row.eval_on_selector_all(
        "[data-gang]",
        """gangs => gangs.map(g => {
            const text = (col) => { const c = g.querySelector(`[data-col=${col}]`); return c ? c.textContent : null; };
            return {gang: g.dataset.gang, fits: g.dataset.fits === "true", domain: text("domain"),
              nodes: [...g.querySelectorAll("[data-node]")].map(n => ({name: n.dataset.node, pods: +n.dataset.pods})),
              level: text("level"), neededGpus: text("neededGpus"), emptiest: text("emptiestFreeGpus"),
              roomiest: text("roomiestDomain"),
              reliefs: [...g.querySelectorAll("[data-relief]")].map(r => [r.dataset.relief, +r.dataset.gpus])};
        })""",
    )
    return found


def expected_plan(item: dict[str, Any]) -> list[dict[str, Any]]:
    plans = []
    for p in item["plans"]:
        short = p.get("shortfall") or {}
        plans.append(
            {
                "gang": p["gang"],
                "fits": p["fits"],
                "domain": f"{p['domain']['level']} {'/'.join(p['domain']['values'])}"
                if p["fits"]
                else None,
                "nodes": p.get("nodes") or [],
                "level": short.get("level"),
                "neededGpus": str(short["neededGpus"]) if short else None,
                "emptiest": str(short["emptiestFreeGpus"]) if short else None,
                "roomiest": short.get("roomiestDomain"),
                "reliefs": [
                    [", ".join(r["workloads"]), r["gpus"]]
                    for r in short.get("wouldFitIfFinished", [])
                ],
            }
        )
    return plans


def test_waiting_page_plan_equals_plan_json(page: Any, serve: Serve, tmp_path: Path) -> None:
    jobs = waiting_jobs()
    dump = tmp_path / "cluster.yaml"
    dump.write_text(
        yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": dump_objects() + jobs})
    )
    for job in jobs:
        (tmp_path / f"{job['metadata']['name']}.yaml").write_text(yaml.safe_dump(job))

    shown(page, serve(dump, levels=LEVELS) + "#/waiting")
    rows = {
        r.query_selector("a").text_content(): r
        for r in page.query_selector_all("tbody tr[data-key]")
    }
    # the dump's own pending pod waits too (a pod alone is no gang, so it has no plan here)
    assert sorted(rows) == ["Job team-c/narrow", "Job team-c/wide", "Pod team-d/finetune-0-z7v4c"]
    answers = {}
    for job in jobs:
        name = job["metadata"]["name"]
        item = plan_json(tmp_path / f"{name}.yaml", dump)
        row = rows[f"Job team-c/{name}"]
        assert drawn_plan(row) == expected_plan(item)
        answers[name] = row.query_selector("[data-plan]").get_attribute("data-plan")
    # the one too wide for a rack is told whose pods finishing would make room
    assert answers == {"wide": "short", "narrow": "fits"}
    assert page.eval_on_selector_all("[data-relief]", "r => r.length") >= 1
    # the dump's Nodes are no workloads: said once, with how often
    notes = [p.text_content() for p in page.query_selector_all("#problems li")]
    nodes = sum(o["kind"] == "Node" for o in dump_objects())
    assert notes == [f"{dump}: no definition covers Node (v1) ({nodes} times)"]
    assert page.errors == []
