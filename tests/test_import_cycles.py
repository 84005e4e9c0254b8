"""No module of the repository imports one that imports it back, directly or through others.

The import graph is read from the source with `ast`, so nothing is imported or executed. Every import statement
counts, the ones inside functions too: a function-level import is how a circle hides (the policy factory in
policies/base.py imported the policies that import base.py; tasks_app's services and forms imported each other
that way), and it still ties the two modules together. Imports under `if TYPE_CHECKING:` never run and are left
out; so is the implicit import of a module's parent packages, which Python resolves without a circle.

Two more arrows are checked on the same parse. Nothing under sandmle/ imports Django, DRF or a web package of the
repository, by any statement (the engine runs without a database). And no app imports another app's internals: an
app's public surface is its `models`, `services` and `selectors` (the app's own or a feature folder's), its
`shared/` package and the few modules in PUBLIC_MODULES; views, api, serializers, forms, filters, charts and the rest
belong to the app alone.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIPPED_DIRS = {".venv", "node_modules", "__pycache__", ".git"}


def project_modules(root: Path) -> dict[str, Path]:
    """Every module of the repository's top-level packages, by dotted name."""
    modules = {}
    for package in sorted(path for path in root.iterdir() if (path / "__init__.py").is_file()):
        for file in package.rglob("*.py"):
            parts = file.relative_to(root).with_suffix("").parts
            if SKIPPED_DIRS.intersection(parts):
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = file
    return modules


def _is_type_checking_block(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def _import_nodes(tree: ast.AST):
    stack = [tree]
    while stack:
        node = stack.pop()
        if _is_type_checking_block(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def imported_modules(name: str, file: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules `name` imports; `from package import module` names the module, not the package."""
    found = set()
    for node in _import_nodes(ast.parse(file.read_text(), filename=str(file))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                package = name.split(".") if file.name == "__init__.py" else name.split(".")[:-1]
                package = package[: len(package) - node.level + 1]
                base = ".".join(package + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        found.update(target for target in targets if target in modules and target != name)
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    modules = project_modules(root)
    return {name: imported_modules(name, file, modules) for name, file in modules.items()}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected group of modules (Tarjan's algorithm, iterative)."""
    index, low, on_stack, stack, groups = {}, {}, set(), [], []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(set(group))
    return [_cycle_within(graph, group) for group in groups]


def _cycle_within(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """The shortest path from the group's first module back to itself, staying inside the group."""
    first = min(group)
    paths = {first: [first]}
    frontier = [first]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node] & group):
                if child == first:
                    return paths[node] + [first]
                if child not in paths:
                    paths[child] = paths[node] + [child]
                    following.append(child)
        frontier = following
    raise AssertionError(f"no cycle inside {sorted(group)}")


def test_the_graph_sees_the_apps_and_imports_inside_functions():
    graph = import_graph(ROOT)
    assert {"tasks_app.models", "training_app.models", "studio.views", "tests.conftest"} <= graph.keys()
    assert "sandmle.agents.policies.base" in graph["sandmle.agents.policies"]
    # sandmle.evaluation.campaign imports the policies inside the function that runs a campaign
    assert "sandmle.agents.policies" in graph["sandmle.evaluation.campaign"]


def test_cycles_are_found_and_named():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_cycles(graph) == [["a", "b", "c", "a"]]


def test_no_module_imports_one_that_imports_it_back():
    cycles = import_cycles(import_graph(ROOT))
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(cycle) for cycle in cycles)


# The engine stands alone: usable from the CLI, a notebook or a worker without a database (DESIGN.md).
WEB_PACKAGES = {"django", "rest_framework", "drf_spectacular", "django_filters", "django_celery_results"}


def web_imports(root: Path) -> list[str]:
    """`module: imported` for every import statement under sandmle/ of Django, DRF or a web package of this repository
    (sandmle_web, workers, the apps). Every statement counts: inside functions and under `if TYPE_CHECKING:` too."""
    web = WEB_PACKAGES | {"sandmle_web", "workers"} | app_names(root)
    found = []
    for name, file in sorted(project_modules(root).items()):
        if name.split(".")[0] != "sandmle":
            continue
        for node in ast.walk(ast.parse(file.read_text(), filename=str(file))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                targets = [node.module or ""]
            else:
                continue  # a relative import stays inside sandmle/
            found += [f"{name}: {target}" for target in targets if target.split(".")[0] in web]
    return found


def app_names(root: Path) -> set[str]:
    """The repository's Django apps: the top-level packages with an apps.py."""
    return {path.parent.name for path in root.glob("*/apps.py") if (path.parent / "__init__.py").is_file()}


# An app's public surface, what another app may import (HackSoft's rule: models, services for writes, selectors for
# reads): its `models`, `services` and `selectors`, at the app's top or in a feature folder (`tasks_app.review.services`);
# anything in its `shared/` package (helpers it offers its features and the other apps: training_app's job launch
# API, trajectory presentation, checkpoint rules; tasks_app's training_hooks, which training_app fills in); and the
# modules listed here. Everything else (views, api, serializers, forms, filters, charts, urls, apps, management
# commands) is the app's own.
PUBLIC_NAMES = {"models", "services", "selectors"}
PUBLIC_MODULES = {"accounts.roles", "accounts.permissions"}  # every page and API of every app checks roles


def is_public(module: str) -> bool:
    parts = module.split(".")
    return module in PUBLIC_MODULES or parts[-1] in PUBLIC_NAMES and len(parts) <= 3 or "shared" in parts[1:2]


def foreign_internals(graph: dict[str, set[str]], apps: set[str]) -> list[str]:
    """`importer -> imported` for each import by one app of a module of another app outside its public surface."""
    return [
        f"{importer} -> {imported}"
        for importer in sorted(graph)
        if importer.split(".")[0] in apps
        for imported in sorted(graph[importer])
        if imported.split(".")[0] in apps - {importer.split(".")[0]} and not is_public(imported)
    ]


def test_the_engine_imports_no_django():
    assert web_imports(ROOT) == []


def test_a_lazy_django_import_in_the_engine_is_seen(tmp_path):
    (tmp_path / "sandmle").mkdir()
    (tmp_path / "sandmle" / "__init__.py").write_text("")
    (tmp_path / "sandmle" / "quiet.py").write_text("def f():\n    from django.db import models\n    import json\n")
    assert web_imports(tmp_path) == ["sandmle.quiet: django.db"]


def test_an_app_is_seen_importing_another_apps_internals():
    graph = {
        "shop.orders.views": {"shop.orders.services", "billing.invoices.views", "billing.invoices.selectors"},
        "billing.invoices.services": {"shop.models", "shop.shared.money", "shop.orders.forms"},
    }
    assert foreign_internals(graph, {"shop", "billing"}) == [
        "billing.invoices.services -> shop.orders.forms", "shop.orders.views -> billing.invoices.views"]


def test_no_app_imports_another_apps_internals():
    apps = app_names(ROOT)
    assert {"accounts", "studio", "tasks_app", "training_app"} <= apps
    crossings = foreign_internals(import_graph(ROOT), apps)
    assert not crossings, "imports of another app's internals: " + "; ".join(crossings)
