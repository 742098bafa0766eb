"""Writing the shipped metrics files: the Prometheus rules and the Grafana dashboard, in
their own folders and as copies in the Helm chart (``make metrics-files``).

    python -m wlmap.metrics.shipped deploy      # the deploy/ folder of the repository
"""

from __future__ import annotations

import sys
from pathlib import Path

from wlmap.metrics.dashboard import render_dashboard
from wlmap.metrics.rules import RuleSettings, render_rules

__all__ = ["FILES", "main", "rendered"]

RULES = "wlmap-rules.yaml"
DASHBOARD = "wlmap-dashboard.json"
# the files, relative to the deploy folder, each with what renders it
FILES = {
    f"prometheus/{RULES}": RULES,
    f"grafana/{DASHBOARD}": DASHBOARD,
    f"helm/wlmap/files/{RULES}": RULES,
    f"helm/wlmap/files/{DASHBOARD}": DASHBOARD,
}


def rendered(settings: RuleSettings | None = None) -> dict[str, str]:
    """Each shipped file's text, by its path under the deploy folder."""
    texts = {RULES: render_rules(settings), DASHBOARD: render_dashboard(settings)}
    return {path: texts[name] for path, name in FILES.items()}


def main(argv: list[str] | None = None) -> int:
    """Write the files under the deploy folder given (the only argument)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m wlmap.metrics.shipped DEPLOY_DIR", file=sys.stderr)
        return 2
    root = Path(args[0])
    for path, text in rendered().items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
