"""``python -m ccsim`` is the ``ccsim`` command (useful without the script on PATH)."""

import sys

from .cli import main

sys.exit(main())
