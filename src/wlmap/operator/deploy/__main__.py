"""``python -m wlmap.operator.deploy DIR``: write the operator's deployment files."""

import sys

from wlmap.operator.deploy.bundle import main

raise SystemExit(main(sys.argv[1:]))
