"""One walk over a page's body shared by the non-jusText extractors.

The walk turns the lxml tree into two flat tables:

* :class:`Node` - one per element of the body, in document (depth-first)
  order, with its parent, depth, subtree extent and xpath. The DOM-tree
  methods of seed 002 (MenEx, ConEx) compute their node features on it.
* :class:`Run` - one per DOM text node (lxml's ``text`` and ``tail``), with
  its word count, whether it sits inside a link, how many tag tokens precede
  it (BTE, seed 003 Sect. 2.6.1) and which block it belongs to under two
  segmentations:

  - ``block``: split at block-level tags and at ``<br><br>``, the way jusText
    segments a page (seed 003 Sect. 2.7.1; used by BTE output, the tc/sw
    filter of Sect. 2.9.3, MenEx and ConEx output);
  - ``fine``: split at every tag except links, the boilerpipe segmentation
    (seed 003 Sect. 2.6.4).

Script, style and similar non-text elements are dropped with their content
(as jusText's preprocessor does); comments and processing instructions are
dropped, their tail text is kept. Nothing here depends on the jusText engine.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..document import BAD, GOOD, Paragraph

# Elements removed together with their content before segmentation.
SKIP_TAGS = frozenset({
    "script", "style", "noscript", "template", "head", "title", "meta", "link", "base",
    "svg", "math", "iframe", "object", "embed", "applet", "canvas",
})

# jusText's PARAGRAPH_TAGS plus the HTML5 sectioning/grouping elements the
# justext package predates (a page written today wraps text in them).
BLOCK_TAGS = frozenset({
    "body", "blockquote", "caption", "center", "col", "colgroup", "dd", "div", "dl", "dt",
    "fieldset", "form", "legend", "optgroup", "option", "p", "pre", "table", "td", "textarea",
    "tfoot", "th", "thead", "tr", "ul", "li", "h1", "h2", "h3", "h4", "h5", "h6",
    # HTML5 and lists jusText 3.0.2 does not know
    "article", "aside", "section", "nav", "header", "footer", "main", "figure", "figcaption",
    "ol", "address", "hr", "details", "summary", "menu", "dir", "hgroup", "tbody",
})

# Elements without an end tag: one tag token for BTE, not two.
VOID_TAGS = frozenset({
    "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta",
    "param", "source", "track", "wbr",
})

HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


@dataclass(slots=True)
class Node:
    """One element of the body."""

    element: Any
    tag: str
    index: int                 # depth-first (document) order; the body is 0
    parent: int                # index of the parent element, -1 for the root
    depth: int                 # edges from the root (body)
    end: int = 0               # last index inside the subtree (inclusive)
    children: list[int] = field(default_factory=list)   # element children
    text_nodes: int = 0        # non-blank text nodes that are direct children
    xpath: str = ""
    dom_path: str = ""
    in_link: bool = False      # the element is an <a> or inside one

    def contains(self, other: int) -> bool:
        """True when node ``other`` is this node or one of its descendants."""
        return self.index <= other <= self.end


@dataclass(slots=True)
class Run:
    """One DOM text node."""

    text: str                  # as in the page (whitespace not normalised)
    words: int                 # whitespace-separated words
    node: int                  # index of the element the text node is a child of
    in_link: bool
    tags_before: int           # tag tokens since the previous word-bearing run
    block: int                 # jusText-style block id
    fine: int                  # boilerpipe-style block id


@dataclass
class Segmentation:
    nodes: list[Node]
    runs: list[Run]
    trailing_tags: int                 # tag tokens after the last word-bearing run
    block_container: list[int]         # block id -> index of the node that opened it
    fine_container: list[int]

    @property
    def root(self) -> Node | None:
        return self.nodes[0] if self.nodes else None


def body_of(tree: Any) -> Any:
    if tree is None:
        return None
    if tree.tag == "body":
        return tree
    body = tree.find("body")
    return body if body is not None else tree


def segment(tree: Any) -> Segmentation:
    """Walk the body once (iteratively: real pages nest deeper than Python's recursion limit)."""
    nodes: list[Node] = []
    runs: list[Run] = []
    block_container: list[int] = []
    fine_container: list[int] = []
    root = body_of(tree)
    if root is None or not isinstance(root.tag, str):
        return Segmentation(nodes, runs, 0, block_container, fine_container)

    # walk state
    tags = 0                 # tag tokens since the last word-bearing run
    block_open = False       # the current jusText-style block has a run
    fine_open = False
    block_stack: list[int] = []   # open block-level elements (innermost last)
    fine_stack: list[int] = []    # open non-link elements
    br_pending = False       # last thing seen in the current block was a <br>
    link_depth = 0

    def add_text(text: str | None, owner: int) -> None:
        nonlocal tags, block_open, fine_open, br_pending
        if not text:
            return
        words = len(text.split())
        if not words:
            if block_open:      # keeps the spacing between inline elements
                runs.append(Run(text, 0, owner, link_depth > 0, 0, len(block_container) - 1,
                                len(fine_container) - 1))
            return
        if not block_open:
            block_container.append(block_stack[-1] if block_stack else owner)
            block_open = True
        if not fine_open:
            fine_container.append(fine_stack[-1] if fine_stack else owner)
            fine_open = True
        runs.append(Run(text, words, owner, link_depth > 0, tags, len(block_container) - 1,
                        len(fine_container) - 1))
        tags = 0
        br_pending = False

    def open_node(el: Any, tag: str, parent: int, depth: int, xpath: str, dom_path: str) -> int:
        nonlocal tags, block_open, fine_open, br_pending, link_depth
        idx = len(nodes)
        nodes.append(Node(el, tag, idx, parent, depth, idx, xpath=xpath, dom_path=dom_path,
                          in_link=link_depth > 0 or tag == "a"))
        if parent >= 0:
            nodes[parent].children.append(idx)
        tags += 1
        if tag == "br":
            if br_pending:      # <br><br> separates paragraphs (jusText)
                block_open = False
                br_pending = False
            else:
                br_pending = True
                if block_open:
                    runs.append(Run(" ", 0, parent, link_depth > 0, 0, len(block_container) - 1,
                                    len(fine_container) - 1))
        elif tag in BLOCK_TAGS:
            block_open = False
            br_pending = False
        if tag == "a":
            link_depth += 1
        else:
            fine_open = False
            fine_stack.append(idx)
        if tag in BLOCK_TAGS:
            block_stack.append(idx)
        return idx

    def close_node(idx: int) -> None:
        nonlocal tags, block_open, fine_open, br_pending, link_depth
        node = nodes[idx]
        node.end = len(nodes) - 1
        tag = node.tag
        if tag not in VOID_TAGS:
            tags += 1
        if tag == "a":
            link_depth -= 1
        else:
            fine_open = False
            if fine_stack and fine_stack[-1] == idx:
                fine_stack.pop()
        if tag in BLOCK_TAGS:
            block_open = False
            br_pending = False
            if block_stack and block_stack[-1] == idx:
                block_stack.pop()

    root_tag = root.tag.lower()
    idx = open_node(root, root_tag, -1, 0, f"/{root_tag}[1]" if root_tag != "body" else "/html[1]/body[1]",
                    root_tag if root_tag != "body" else "html.body")
    add_text(root.text, idx)
    if root.text and root.text.strip():
        nodes[idx].text_nodes += 1
    # stack entries: (node index, iterator over children, per-tag sibling counter)
    stack: list[tuple[int, Any, dict[str, int]]] = [(idx, iter(root), {})]
    while stack:
        parent_idx, it, counter = stack[-1]
        child = next(it, None)
        if child is None:
            stack.pop()
            close_node(parent_idx)
            if stack:
                el = nodes[parent_idx].element
                tail = el.tail
                if tail:
                    owner = stack[-1][0]
                    add_text(tail, owner)
                    if tail.strip():
                        nodes[owner].text_nodes += 1
            continue
        tag = child.tag
        if not isinstance(tag, str):          # comment, processing instruction, entity
            tail = child.tail
            if tail:
                add_text(tail, parent_idx)
                if tail.strip():
                    nodes[parent_idx].text_nodes += 1
            continue
        tag = tag.lower()
        n = counter.get(tag, 0) + 1
        counter[tag] = n
        if tag in SKIP_TAGS:
            tail = child.tail
            if tail:
                add_text(tail, parent_idx)
                if tail.strip():
                    nodes[parent_idx].text_nodes += 1
            continue
        parent = nodes[parent_idx]
        cidx = open_node(child, tag, parent_idx, parent.depth + 1, f"{parent.xpath}/{tag}[{n}]",
                         f"{parent.dom_path}.{tag}")
        text = child.text
        if text:
            add_text(text, cidx)
            if text.strip():
                nodes[cidx].text_nodes += 1
        stack.append((cidx, iter(child), {}))
    return Segmentation(nodes, runs, tags, block_container, fine_container)


def cached_segmentation(page: Any) -> Segmentation:
    """The page's segmentation, computed once per page and shared (MenEx evidence, ...)."""
    seg = page.meta.get("segmentation")
    if seg is None:
        seg = segment(page.tree)
        page.meta["segmentation"] = seg
    return seg


def normalize(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Piece:
    """Consecutive runs of one block that share a label: one output paragraph."""

    runs: list[Run]
    container: int
    label: Any

    @property
    def text(self) -> str:
        return normalize("".join(r.text for r in self.runs))

    @property
    def link_words(self) -> int:
        return sum(r.words for r in self.runs if r.in_link)

    @property
    def tags(self) -> int:
        return sum(r.tags_before for r in self.runs)


def pieces(seg: Segmentation, level: str = "block",
           label: Callable[[Run], Any] | None = None) -> list[Piece]:
    """Group runs into blocks (``level`` "block" or "fine"); split a block where ``label`` changes.

    A block is never merged with another; splitting at label changes keeps a
    method's decision exact when a block straddles a boundary (a BTE span
    edge, the edge of a menu or of the main content).
    """
    containers = seg.block_container if level == "block" else seg.fine_container
    out: list[Piece] = []
    current: Piece | None = None
    current_block = -1
    for run in seg.runs:
        block = run.block if level == "block" else run.fine
        if run.words == 0:
            # spacing: belongs to the open piece of the same block, never starts one
            if current is not None and block == current_block:
                current.runs.append(run)
            continue
        lab = label(run) if label is not None else None
        if current is None or block != current_block or lab != current.label:
            current = Piece([run], containers[block], lab)
            current_block = block
            out.append(current)
        else:
            current.runs.append(run)
    return out


def make_paragraph(seg: Segmentation, piece: Piece, good: bool, features: dict[str, Any],
                   text: str | None = None) -> Paragraph:
    node = seg.nodes[piece.container]
    return Paragraph(
        text=piece.text if text is None else text,
        cls=GOOD if good else BAD,
        heading=node.tag in HEADING_TAGS or any(p in HEADING_TAGS for p in node.dom_path.split(".")),
        tag=node.tag,
        dom_path=node.dom_path,
        xpath=node.xpath,
        reason=None if good else "boilerplate",
        features=features,
    )
