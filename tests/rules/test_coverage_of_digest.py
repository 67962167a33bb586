"""Every numbered item of the rules digest (N.M), every contradiction (C1..) and every ambiguity reading (A1..)
is named by at least one test under tests/; so is every item of the module sections built so far (MODULES.md,
``MODULE_SECTIONS``) and every module contradiction/ambiguity (MC.., MA..) those modules rely on.

A test cites an item by a comment (``# 9.3`` or ``# 9.3, 10.1: ...``; every item named in a comment counts), a
docstring, or its name (``test_9_3_...``, ``test_C3_...``, ``test_A7_...``). The digest is read from the repo
copy ``docs/rules.md`` (the modules digest from ``docs/modules.md``); when the shared originals sit beside the
clone they must be identical.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "docs" / "rules.md"
SHARED_DIGEST = REPO.parent / "shared" / "rules" / "DIGEST.md"
MODULES = REPO / "docs" / "modules.md"
SHARED_MODULES = REPO.parent / "shared" / "rules" / "MODULES.md"
# Module sections whose every item must be cited, and the MC/MA readings they rely on.
MODULE_SECTIONS: dict[str, str] = {"18": "Garage", "19": "Legends", "20": "Weather and road conditions"}
MODULE_READINGS: tuple[str, ...] = ("MC8", "MC9", "MC10", "MC11", "MA5", "MA8", "MA9", "MA10", "MA17", "MA19")
MODULE_READINGS += ("MA20", "MA31")  # Legends and weather
# Single items of sections not yet built whole (22: expansion circuits as data, circuit values, not covered).
MODULE_ITEMS: tuple[str, ...] = (
    *("22.1", "22.3", "22.4", "22.5", "22.6", "22.9", "22.10", "MA16"),
    *("21.1", "21.6", "21.10", "21.12", "MC6", "MA11", "MA12"),  # the Championship's pure rules
    *("21.8", "21.13", "MA21", "MA23"),  # the event cards in the race (the championship module's Rules)
    *("21.2", "21.7", "21.9", "21.14", "MA3", "MA4", "MA18", "MA22"),  # the draft, what a turn earns, handicaps
    *("22.2", "22.7", "22.8"),  # chicanes under road conditions; what the expansions add
)
# The Garage (section 18, issue 14) and the module readings it relies on (docs/garage.md): every one cited.
GARAGE_READINGS = ("MC1", "MC2", "MC3", "MC4", "MC5", "MA1", "MA2", "MA5", "MA6", "MA13", "MA14", "MA15", "MA17")
GARAGE_READINGS += ("MA19", "MA20", "MA24", "MA25", "MA26", "MA27", "MA28", "MA29", "MA32")
MODULE_READINGS += GARAGE_READINGS
TESTS = REPO / "tests"

ITEM = re.compile(r"^(\d+\.\d+|M?[CA]\d+)\.? ", re.MULTILINE)
CITED_IN_TEXT = re.compile(r"(?<![\w.])(\d+\.\d+|M?[CA]\d+)(?![\w.]*\d)")
LEADING_ITEM = re.compile(r"(\d+_\d+|M?[CA]\d+)(?:_|$)")  # test_16_2_A9_adrenaline -> 16.2, A9; MA5 too


def digest_items(text: str) -> list[str]:
    items = ITEM.findall(text)
    assert len(items) == len(set(items)), "an item number appears twice in the digest"
    return items


def citations(source: str) -> set[str]:
    found: set[str] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            found.update(CITED_IN_TEXT.findall(tok.string))
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)):
            doc = ast.get_docstring(node)
            if doc:
                found.update(CITED_IN_TEXT.findall(doc))
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            found.update(name_citations(node.name))
    return found


def name_citations(name: str) -> set[str]:
    """Items named at the start of a test name, before the first plain word."""
    rest = name.removeprefix("test_")
    out: set[str] = set()
    while m := LEADING_ITEM.match(rest):
        out.add(m.group(1).replace("_", "."))
        rest = rest[m.end() :]
    return out


def all_citations() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for path in sorted(TESTS.rglob("*.py")):
        if path.resolve() == Path(__file__).resolve():
            continue
        for item in citations(path.read_text(encoding="utf-8")):
            out.setdefault(item, set()).add(str(path.relative_to(REPO)))
    return out


def module_items(text: str) -> list[str]:
    """Items of MODULES.md: N.M of sections 18.., MC.. and MA.. (the bulleted lists of a section are not items)."""
    items = ITEM.findall(text)
    assert len(items) == len(set(items)), "an item number appears twice in the modules digest"
    return items


def test_digest_has_the_expected_shape():
    items = digest_items(RULES.read_text(encoding="utf-8"))
    assert "1.1" in items and "17.2" in items
    assert [i for i in items if i.startswith("C")] == [f"C{n}" for n in range(1, 15)]
    assert [i for i in items if i.startswith("A")] == [f"A{n}" for n in range(1, 16)]


def test_every_digest_item_is_cited_by_a_test():
    items = digest_items(RULES.read_text(encoding="utf-8"))
    cited = all_citations()
    missing = [i for i in items if i not in cited]
    assert not missing, f"digest items no test names: {', '.join(missing)}"


def test_modules_digest_has_the_expected_shape():
    items = module_items(MODULES.read_text(encoding="utf-8"))
    for section in MODULE_SECTIONS:
        assert f"{section}.1" in items, f"section {section} of MODULES.md has no items"
    assert set(MODULE_READINGS) <= set(items)
    assert set(MODULE_ITEMS) <= set(items)


def test_every_item_of_the_built_module_sections_is_cited_by_a_test():
    items = module_items(MODULES.read_text(encoding="utf-8"))
    wanted = [i for i in items if i.split(".")[0] in MODULE_SECTIONS] + list(MODULE_READINGS) + list(MODULE_ITEMS)
    cited = all_citations()
    missing = [i for i in wanted if i not in cited]
    assert not missing, f"module items no test names: {', '.join(missing)}"


def test_every_garage_item_is_cited_by_a_garage_test():
    """Section 18 and the readings the Garage relies on, cited by the Garage's own tests (tests/rules/modules/garage/),
    the module readings it meets beside the weather (MC4, MA5, MA19, MA20) and the Championship (MA26) included."""
    items = module_items(MODULES.read_text(encoding="utf-8"))
    garage = [i for i in items if i.startswith("18.")]
    assert garage == [f"18.{n}" for n in range(1, 28)]
    here = "tests/rules/modules/garage/"
    ours = {i for i, files in all_citations().items() if any(f.startswith(here) for f in files)}
    missing = sorted((set(garage) | set(GARAGE_READINGS)) - ours)
    assert not missing, f"Garage items no Garage test names: {', '.join(missing)}"


def test_citations_name_real_items():
    # A typo like "# 9.9" would look like coverage of an item that does not exist.
    items = set(digest_items(RULES.read_text(encoding="utf-8")))
    items |= set(module_items(MODULES.read_text(encoding="utf-8")))
    unknown = {
        i: files for i, files in all_citations().items() if i not in items and re.match(r"\d+\.\d+$|M[CA]\d+$", i)
    }
    rules_only = {i: f for i, f in unknown.items() if any("tests/rules/" in x for x in f)}
    assert not rules_only, f"tests cite items the digest does not have: {rules_only}"


def test_repo_copy_is_the_shared_digest_verbatim():
    if not SHARED_DIGEST.exists():
        pytest.skip("shared/rules/DIGEST.md is not beside this clone")
    assert RULES.read_bytes() == SHARED_DIGEST.read_bytes(), "docs/rules.md differs from shared/rules/DIGEST.md"


def test_modules_copy_is_the_shared_modules_digest_verbatim():
    if not SHARED_MODULES.exists():
        pytest.skip("shared/rules/MODULES.md is not beside this clone")
    assert MODULES.read_bytes() == SHARED_MODULES.read_bytes(), "docs/modules.md differs from shared/rules/MODULES.md"


def test_the_citation_parser():
    src = (
        '"""Module (# 16.x, C10, A1)."""\n'
        "def test_9_3_paid():\n"
        "    # 9.3, 10.1 (A2): text 1.5x\n"
        "    x = '# 4.4'\n"
        "def test_A12_3_5_shift():\n"
        "    pass\n"
        "def test_7_2_by_gear_3_1_0_0():\n"
        "    pass\n"
        "def test_18_11_MA1_unpayable():\n"
        "    pass\n"
        "def test_MA9_19_5_deck():\n"
        "    # 20.7, MA5, MC8: sector\n"
        "    pass\n"
    )
    got = citations(src)
    assert {"C10", "A1", "9.3", "10.1", "A2", "A12", "3.5", "7.2", "MA9", "19.5", "20.7", "MA5", "MC8"} <= got
    assert {"18.11", "MA1"} <= got
    assert "4.4" not in got  # inside a string literal, not a comment
    assert "3.1" not in got and "0.0" not in got  # only leading numbers of a test name cite items
