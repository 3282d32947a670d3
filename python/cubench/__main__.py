"""`python -m cubench ...`: see cubench/cli.py."""
import sys

from .cli import main

sys.exit(main())
