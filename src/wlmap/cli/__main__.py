"""``python -m wlmap.cli``."""

import sys

from wlmap.cli import main

sys.exit(main())
