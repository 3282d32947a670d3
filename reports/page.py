"""The report as data: sections holding figures, tables and paragraphs.

build.py decides what goes on the page; html.py decides how it looks. Keeping
the model between them plain lets tests read what the page says without
parsing HTML.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .figure import Figure


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]]
    caption: str = ""
    collapsed: bool = False       # long tables go in a <details> block
    marked: list[bool] = field(default_factory=list)  # rows to highlight
    numeric: bool = True          # right-align cells that look like numbers
    sortable: bool = True         # click a header to sort (html.py's inline script)
    css: str = ""                 # a class for html.py ("key": the key figures)


@dataclass
class Paragraph:
    text: str


@dataclass
class Section:
    title: str
    blocks: list = field(default_factory=list)  # Figure | Table | Paragraph | Section
    anchor: str = ""

    def figures(self) -> list[Figure]:
        found = []
        for block in self.blocks:
            if isinstance(block, Figure):
                found.append(block)
            elif isinstance(block, Section):
                found += block.figures()
        return found


@dataclass
class Page:
    title: str
    subtitle: str
    sections: list[Section]

    def figures(self) -> list[Figure]:
        return [f for s in self.sections for f in s.figures()]
