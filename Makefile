# wlmap developer entry points. `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit bench schema deploy-manifests metrics-files lock docs clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/wlmap describe -f src/wlmap/examples/

test: $(STAMP) lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -q

bench: $(STAMP)
	$(BIN)/python benchmarks/interpret.py
	$(BIN)/python benchmarks/cli_get_dump.py
	$(BIN)/python benchmarks/cli_startup.py
	$(BIN)/python benchmarks/metrics_scrape.py
	$(BIN)/python benchmarks/placement_gang_speed.py --policy wlmap,kueue-bestfit
	$(BIN)/python benchmarks/placement_gangs.py
	$(BIN)/python benchmarks/placement_gang_optimum.py
	$(BIN)/python benchmarks/placement_faults.py --paired
	$(BIN)/python benchmarks/placement_dra.py
	$(BIN)/python benchmarks/placement_dra_speed.py
	$(BIN)/python benchmarks/placement_fgd.py --jobs 2
	$(BIN)/python benchmarks/placement_live.py

schema: $(STAMP)
	$(BIN)/python -m wlmap.definitions.schema deploy/crds

deploy-manifests: schema metrics-files
	$(BIN)/python -m wlmap.operator.deploy deploy/operator
	$(BIN)/python -m wlmap.operator.deploy deploy/helm/wlmap --helm

# The Prometheus rules and the Grafana dashboard, their copies in the Helm chart, and the
# standalone exporter's read-only RBAC.
metrics-files: $(STAMP)
	$(BIN)/python -m wlmap.metrics.shipped deploy
	mkdir -p deploy/metrics
	$(BIN)/python -c 'import sys; from wlmap.operator.deploy.metrics_rbac import main; main(sys.argv[1:])' \
		deploy/metrics/rbac.yaml

# The operator image's dependencies, pinned with their hashes for every platform (the
# Containerfile installs them with --require-hashes); run after changing the dependencies.
lock: $(STAMP)
	$(BIN)/uv pip compile pyproject.toml --extra operator --universal --python-version 3.11 \
		--generate-hashes --custom-compile-command "make lock" -o requirements/operator.lock

docs: $(STAMP)
	$(BIN)/python -m wlmap.catalog.reference docs/catalog.md

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
