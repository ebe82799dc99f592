"""``python -m mtsig.cli``: the ``mtsig`` command."""

import sys

from mtsig.cli import main

sys.exit(main())
