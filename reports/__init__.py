"""cubench report generator.

Turns one or more cubench result directories (results.csv, samples.csv,
meta.json; docs/schema.md, schema version 1) into a self-contained HTML page
with PNG and SVG figures. Each figure is written together with the exact
series it plots (JSON and CSV), so that what a reader sees can be checked
against the numbers the run recorded.

Run it as ``python3 -m reports RESULT_DIR... -o OUT_DIR``.
"""
