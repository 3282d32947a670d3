"""`python -m cubench ...`: the `cubench` command (cubench/cli.py)."""
from .cli import console

console()
