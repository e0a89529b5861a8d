"""``python -m geosched``: the same command line as the ``geosched`` script."""

import sys

from geosched.cli import main

sys.exit(main())
