"""The grader's import graph: every module imports, no import circle, no private name
imported from another module, and each package imports only the layers below it.

The graph is read from the sources (ast), every import statement counted, those inside
functions and under TYPE_CHECKING too: a circle that only a lazy import closes is still
one. The checks run on a graph, so the tests below can also feed them a bad one.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1]

# Which groups of modules each group may import (itself included): those above it in
# grader/README.md's Layout table. classroom/ is left out of the student export, so
# nothing outside it imports it.
LAYERS: dict[str, set[str]] = {
    "core": {"core"},
    "trust": {"core", "trust"},
    "shared": {"core", "trust", "shared"},  # options.py, command.py, errors' users
    "commands": {"core", "trust", "shared", "commands"},
    "cli": {"core", "shared", "commands", "cli"},
    "classroom": {"core", "trust", "shared", "commands", "cli", "classroom"},
}
TOP_LEVEL = {
    "grader": "core",
    "grader.options": "shared",
    "grader.command": "shared",
    "grader.commands": "shared",  # the registry, whose own imports are command.py only
    "grader.cli": "cli",
    "grader.__main__": "cli",
}


def module_files(package: Path = PACKAGE) -> dict[str, Path]:
    """Module name -> file, for every module of the grader but its own tests."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package.parent).with_suffix("")
        if "tests" in rel.parts:
            continue
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        found[".".join(parts)] = path
    return found


def imports_of(tree: ast.AST, modules: set[str]) -> Iterator[tuple[str, str]]:
    """(module imported, name taken from it) for each grader import in `tree`; the
    name is "" for a whole module. Absolute imports only: test_no_relative_import."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    yield alias.name, ""
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    yield f"{base}.{alias.name}", ""
                elif base in modules:
                    yield base, alias.name


def import_graph(files: Mapping[str, Path]) -> dict[str, set[str]]:
    modules = set(files)
    return {
        name: {m for m, _ in imports_of(ast.parse(path.read_text()), modules)} - {name}
        for name, path in files.items()
    }


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """One import circle of `graph` (its modules in order, the first repeated at the
    end), or None when there is none."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                return [*path[path.index(dep) :], dep]
            if dep not in state:
                found = visit(dep)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def private_imports(files: Mapping[str, Path]) -> list[str]:
    """`module: name` for each private name (`_x`) taken from another grader module,
    by `from m import _x` or as an attribute `m._x` of a module imported whole."""
    modules = set(files)
    found = []
    for name, path in files.items():
        tree = ast.parse(path.read_text())
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for alias in node.names:
                    whole = (
                        alias.name
                        if isinstance(node, ast.Import)
                        else f"{node.module}.{alias.name}"
                    )
                    if whole in modules:
                        aliases[alias.asname or alias.name.split(".")[0]] = whole
        for module, taken in imports_of(tree, modules):
            if taken.startswith("_") and module != name:
                found.append(f"{name}: {module}.{taken}")
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                found.append(f"{name}: {aliases[node.value.id]}.{node.attr}")
    return found


def layer_of(module: str) -> str:
    if module in TOP_LEVEL:
        return TOP_LEVEL[module]
    return module.split(".")[1]


def layer_violations(graph: Mapping[str, set[str]]) -> list[str]:
    return [
        f"{module} ({layer_of(module)}) imports {dep} ({layer_of(dep)})"
        for module, deps in sorted(graph.items())
        for dep in sorted(deps)
        if layer_of(dep) not in LAYERS[layer_of(module)]
    ]


FILES = module_files()


# __main__ runs the command line when imported.
@pytest.mark.parametrize(
    "module", sorted(set(FILES) - {"grader.__main__", "grader.classroom.__main__"})
)
def test_every_module_imports(module: str) -> None:
    importlib.import_module(module)


def test_every_module_has_a_layer() -> None:
    assert {layer_of(m) for m in FILES} <= set(LAYERS)


def test_no_relative_import() -> None:
    relative = [
        name
        for name, path in FILES.items()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and node.level
    ]
    assert relative == []


def test_no_import_circle() -> None:
    assert find_cycle(import_graph(FILES)) is None


def test_no_private_name_is_imported_from_another_module() -> None:
    """Nor from the grader's tests, scripts/ or submissions/ (their own names only)."""
    repo = PACKAGE.parent
    users = [
        *PACKAGE.glob("tests/*.py"),
        *repo.glob("scripts/*.py"),
        *repo.glob("submissions/*.py"),
    ]
    files = {**FILES, **{str(path.relative_to(repo)): path for path in users}}
    assert private_imports(files) == []


def test_each_package_imports_only_the_layers_below_it() -> None:
    assert layer_violations(import_graph(FILES)) == []


def test_the_checks_find_what_they_look_for(tmp_path: Path) -> None:
    """The checks above can fail: a circle closed by a lazy import, a private name,
    core importing classroom."""
    pkg = tmp_path / "grader"
    for sub in ("core", "classroom"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "core" / "a.py").write_text("from grader.core.b import _hidden\n")
    (pkg / "core" / "b.py").write_text(
        "def f() -> None:\n    from grader.core import a\n    a._x()\n"
    )
    (pkg / "core" / "c.py").write_text("import grader.classroom.d\n")
    (pkg / "classroom" / "d.py").write_text("thing = 1\n")
    files = module_files(pkg)
    graph = import_graph(files)
    assert find_cycle(graph) == ["grader.core.a", "grader.core.b", "grader.core.a"]
    assert sorted(private_imports(files)) == [
        "grader.core.a: grader.core.b._hidden",
        "grader.core.b: grader.core.a._x",
    ]
    assert layer_violations(graph) == [
        "grader.core.c (core) imports grader.classroom.d (classroom)"
    ]


def test_no_module_imports_pytest() -> None:
    """pytest runs the grader's own tests, never a grading: no module of the grader needs it."""
    for name, path in module_files().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                roots = [alias.name for alias in node.names]
            else:
                roots = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert all(root.partition(".")[0] != "pytest" for root in roots), name
