"""Render the report model (page.py) as one self-contained HTML file.

No external scripts, styles or fonts: the page opens the same from a CI
artifact, an e-mail attachment or a laptop without a network. Its one
script is a few inline lines that sort a table by the column header
clicked (numbers as numbers, then text); without it the page reads the
same. Figures are the PNGs next to it (each linked to its SVG and to the
data it plots). Every text from the data is escaped.
"""

from __future__ import annotations

import re
from html import escape

from .figure import Figure
from .page import Page, Paragraph, Section, Table

STYLE = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 2em auto;
       max-width: 1200px; padding: 0 1em; color: #222; line-height: 1.4; }
h1 { margin-bottom: 0.1em; } .subtitle { color: #666; margin-top: 0; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
h3 { margin-top: 1.6em; }
figure { margin: 1.2em 0; } figure img { max-width: 100%; height: auto;
       border: 1px solid #eee; }
figcaption { font-size: 0.9em; color: #444; max-width: 60em; }
figcaption .links { color: #888; }
table { border-collapse: collapse; font-size: 0.82em; margin: 0.6em 0; }
th, td { border: 1px solid #ddd; padding: 2px 6px; vertical-align: top;
         overflow-wrap: anywhere; }
th { background: #f3f3f3; text-align: left; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.marked td { background: #fff4e0; }
.caption { font-size: 0.9em; color: #444; max-width: 60em; }
nav ul { font-size: 0.9em; padding-left: 1.2em; }
details > summary { cursor: pointer; color: #225; }
table.sortable th { cursor: pointer; } table.sortable th:hover { background: #e6e6f0; }
th[aria-sort=ascending]::after { content: " ▲"; } th[aria-sort=descending]::after { content: " ▼"; }
table.key td:nth-child(2), table.key td:nth-child(3) { font-weight: 600; white-space: nowrap; }
"""

# Sort a table by the clicked header: numbers (the first number in a cell)
# before words, each in order; a second click reverses. No library.
SORT_SCRIPT = """
document.querySelectorAll('table.sortable').forEach(function (t) {
  t.querySelectorAll('th').forEach(function (th, col) {
    th.addEventListener('click', function () {
      var down = th.getAttribute('aria-sort') === 'ascending';
      t.querySelectorAll('th').forEach(function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', down ? 'descending' : 'ascending');
      var key = function (tr) {
        var text = tr.children[col] ? tr.children[col].textContent : '';
        var n = parseFloat(text.replace(/[^0-9eE.+-]+/, ' ').trim().split(' ')[0]);
        return isNaN(n) ? [1, 0, text] : [0, n, text];
      };
      var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a), y = key(b), c = x[0] - y[0] || x[1] - y[1] ||
          (x[2] < y[2] ? -1 : x[2] > y[2] ? 1 : 0);
        return down ? -c : c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""

_NUMBER = re.compile(r"^[+-]?[0-9.]+(e[+-]?\d+)?( ?(ns|us|µs|ms|s|%))?$")


def _anchor(title: str, used: set[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section"
    anchor, i = base, 2
    while anchor in used:
        anchor, i = f"{base}-{i}", i + 1
    used.add(anchor)
    return anchor


def render_table(table: Table) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in table.headers)
    body = []
    for i, row in enumerate(table.rows):
        marked = table.marked[i] if i < len(table.marked) else False
        cells = []
        for cell in row:
            cls = ' class="num"' if table.numeric and _NUMBER.match(cell) else ""
            cells.append(f"<td{cls}>{escape(cell)}</td>")
        attr = ' class="marked"' if marked else ""
        body.append(f"<tr{attr}>{''.join(cells)}</tr>")
    classes = " ".join(c for c in ("sortable" if table.sortable else "", table.css) if c)
    attr = f' class="{escape(classes)}"' if classes else ""
    html = (f"<table{attr}><thead><tr>{head}</tr></thead><tbody>\n"
            + "\n".join(body) + "\n</tbody></table>")
    caption = f'<p class="caption">{escape(table.caption)}</p>' if table.caption else ""
    if table.collapsed:
        return (f"{caption}<details><summary>show {len(table.rows)} row(s)</summary>"
                f"{html}</details>")
    return caption + html


def render_figure(fig: Figure) -> str:
    links = (f'<span class="links">[<a href="{escape(fig.svg)}">SVG</a> · '
             f'<a href="{escape(fig.data_csv)}">data CSV</a> · '
             f'<a href="{escape(fig.data_json)}">data JSON</a>]</span>')
    return (f'<figure id="fig-{escape(fig.name.replace("/", "-"))}">'
            f'<a href="{escape(fig.svg)}"><img src="{escape(fig.png)}" '
            f'alt="{escape(fig.title)}"></a>'
            f"<figcaption>{escape(fig.caption)} {links}</figcaption></figure>")


def _render_section(section: Section, level: int, used: set[str], toc: list) -> str:
    anchor = section.anchor or _anchor(section.title, used)
    toc.append((level, anchor, section.title))
    parts = [f'<h{level} id="{anchor}">{escape(section.title)}</h{level}>']
    for block in section.blocks:
        if isinstance(block, Figure):
            parts.append(render_figure(block))
        elif isinstance(block, Table):
            parts.append(render_table(block))
        elif isinstance(block, Paragraph):
            parts.append(f"<p>{escape(block.text)}</p>")
        elif isinstance(block, Section):
            parts.append(_render_section(block, min(level + 1, 4), used, toc))
    return "\n".join(parts)


def render(page: Page) -> str:
    used: set[str] = set()
    toc: list = []
    body = "\n".join(_render_section(s, 2, used, toc) for s in page.sections)
    # One line per top-level section, its subsections inline after it.
    lines: list[list[str]] = []
    for lvl, a, t in toc:
        link = f'<a href="#{a}">{escape(t)}</a>'
        if lvl == 2 or not lines:
            lines.append([link])
        elif lvl == 3:
            lines[-1].append(link)
    nav = "".join(f"<li>{parts[0]}" + (": " + " · ".join(parts[1:]) if parts[1:] else "")
                  + "</li>" for parts in lines)
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(page.title)}</title>"
            # no favicon request (a 404 in every browser console)
            f"<link rel=\"icon\" href=\"data:,\"><style>{STYLE}</style></head><body>\n"
            f"<h1>{escape(page.title)}</h1><p class=\"subtitle\">{escape(page.subtitle)}</p>\n"
            f"<nav><ul>{nav}</ul></nav>\n{body}\n<script>{SORT_SCRIPT}</script>\n"
            f"</body></html>\n")
