"""Every relative link and image of README.md and docs/*.md works from a clone: its file is in the
repository (not beside it, as the team's shared/ folder is), a ``#fragment`` names a heading of the
page it points to (GitHub's anchors), and a picture stays small enough to keep in git."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
#: Largest picture a page may show (bytes).
MAX_IMAGE_BYTES = 200_000

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"(`+).+?\1", re.DOTALL)
LINK = re.compile(r"(!?)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def prose(text: str) -> str:
    """``text`` without its code blocks and code spans, where brackets are not links."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def anchors(page: Path) -> set[str]:
    """The fragments GitHub gives the headings of ``page``: lower case, punctuation dropped, spaces
    as hyphens, a repeated one numbered -1, -2, ..."""
    seen: dict[str, int] = {}
    for heading in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        if count:
            seen[f"{slug}-{count}"] = 1
    return set(seen)


def links(page: Path) -> list[tuple[bool, str]]:
    """Each relative link of ``page``: (is an image, target as written)."""
    found = LINK.findall(prose(page.read_text(encoding="utf-8")))
    return [(bang == "!", target) for bang, target in found if not SCHEME.match(target)]


def test_the_pages_have_relative_links() -> None:
    assert links(REPO / "README.md"), "the link parser found nothing in README.md"
    assert "the-two-commands" in anchors(REPO / "README.md")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves_in_the_repository(page: Path) -> None:
    broken = []
    for image, target in links(page):
        path, _, fragment = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.is_relative_to(REPO) or not resolved.exists():
            broken.append(f"{target}: no such file in the repository")
        elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
            broken.append(f"{target}: no heading #{fragment} in {resolved.relative_to(REPO)}")
        elif image and resolved.stat().st_size > MAX_IMAGE_BYTES:
            broken.append(f"{target}: {resolved.stat().st_size} bytes, more than {MAX_IMAGE_BYTES}")
    assert not broken, f"{page.relative_to(REPO)}: " + "; ".join(broken)
