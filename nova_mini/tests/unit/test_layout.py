#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""The shape of the package (tests excluded), read from its source:

- no import cycle between its modules, counting the imports made inside
  functions (a deferred import hides a cycle, it does not remove it);
- the API handlers reach the database through the objects only: no module
  under ``nova_mini/api`` imports ``nova_mini.db``;
- no module longer than ``MAX_LINES``.
"""

import ast
import os

import nova_mini

PACKAGE = os.path.dirname(nova_mini.__file__)
REPO = os.path.dirname(PACKAGE)

MAX_LINES = 450

# Modules allowed past MAX_LINES: the database models (one table each,
# read together).
LONG_MODULES = frozenset([
    'nova_mini/db/models.py',
])


def _modules(package=PACKAGE):
    """Dotted module name -> path of each module of ``package``, tests
    excluded.
    """
    modules = {}
    tests = os.path.join(package, 'tests')
    for directory, subdirs, files in os.walk(package):
        if directory == tests:
            subdirs[:] = []
            continue
        subdirs.sort()
        for filename in sorted(files):
            if not filename.endswith('.py'):
                continue
            path = os.path.join(directory, filename)
            name = os.path.relpath(path[:-3], REPO).replace(os.sep, '.')
            if name.endswith('.__init__'):
                name = name[:-len('.__init__')]
            modules[name] = path
    return modules


def _imported(module, path, modules):
    """The modules of ``modules`` that ``module`` (at ``path``) imports,
    wherever the import statement is (module level or in a function).

    ``from package import name`` imports module ``package.name`` when it
    is one, else ``package`` itself.
    """
    with open(path) as source:
        tree = ast.parse(source.read(), path)
    is_package = path.endswith('__init__.py')
    here = module if is_package else module.rpartition('.')[0]

    def known(name):
        # The longest prefix of ``name`` that is a module of the package.
        while name and name not in modules:
            name = name.rpartition('.')[0]
        return name

    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(known(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                parts = here.split('.')[:len(here.split('.')) - node.level
                                        + 1]
                base = '.'.join(parts + ([base] if base else []))
            for alias in node.names:
                full = '%s.%s' % (base, alias.name)
                found.add(full if full in modules else known(base))
    found.discard('')
    found.discard(module)
    return found


def import_graph(package=PACKAGE):
    """Module -> the set of the package's modules it imports."""
    modules = _modules(package)
    return {name: _imported(name, path, modules)
            for name, path in modules.items()}


def import_cycles(graph):
    """The import cycles of ``graph``: for each strongly connected set of
    modules, one cycle through it (a list of modules, the first repeated
    at the end), in a stable order.
    """
    # Tarjan's algorithm, iterative: the graph has hundreds of modules.
    index = {}
    low = {}
    stack = []
    on_stack = set()
    components = []
    counter = [0]

    def visit(root):
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(component)

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return sorted(_cycle_through(graph, component)
                  for component in components)


def _cycle_through(graph, component):
    # A shortest way back to the component's first module (breadth first).
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(graph[node] & component):
            if child == start:
                return paths[node] + [start]
            if child not in paths:
                paths[child] = paths[node] + [child]
                queue.append(child)
    raise AssertionError('not a cycle: %s' % sorted(component))


def test_import_cycles_found():
    # The check itself: a cycle hidden in a function is found, and named.
    graph = {'a': {'b'}, 'b': {'c'}, 'c': {'a'}, 'd': {'a'}, 'e': set()}
    assert import_cycles(graph) == [['a', 'b', 'c', 'a']]
    assert import_cycles({'a': {'b'}, 'b': set()}) == []


def test_deferred_import_counted(tmp_path):
    package = tmp_path / 'pkg'
    package.mkdir()
    (package / '__init__.py').write_text('')
    (package / 'one.py').write_text('from pkg import two\n')
    (package / 'two.py').write_text(
        'def late():\n    from pkg import one\n    return one\n')
    (package / 'three.py').write_text('from . import one\n')
    modules = {'pkg': str(package / '__init__.py'),
               'pkg.one': str(package / 'one.py'),
               'pkg.two': str(package / 'two.py'),
               'pkg.three': str(package / 'three.py')}
    graph = {name: _imported(name, path, modules)
             for name, path in modules.items()}
    assert graph['pkg.two'] == {'pkg.one'}
    assert graph['pkg.three'] == {'pkg.one'}
    assert import_cycles(graph) == [['pkg.one', 'pkg.two', 'pkg.one']]


def test_no_import_cycles():
    cycles = import_cycles(import_graph())
    assert not cycles, 'import cycles (module-level or deferred):\n%s' % (
        '\n'.join(' -> '.join(cycle) for cycle in cycles))


def test_api_does_not_import_db():
    # Handlers reach the database through the objects, which own their
    # transactions and retries.
    offenders = []
    for module, imported in sorted(import_graph().items()):
        db = sorted(name for name in imported
                    if name == 'nova_mini.db' or
                    name.startswith('nova_mini.db.'))
        if module.startswith('nova_mini.api') and db:
            offenders.append('%s imports %s' % (module, ', '.join(db)))
    assert not offenders, '\n'.join(offenders)


def test_module_sizes():
    too_long = []
    for path in _modules().values():
        relative = os.path.relpath(path, REPO).replace(os.sep, '/')
        with open(path) as source:
            lines = sum(1 for _line in source)
        if lines > MAX_LINES and relative not in LONG_MODULES:
            too_long.append('%s: %d lines' % (relative, lines))
    assert not too_long, 'modules over %d lines:\n%s' % (
        MAX_LINES, '\n'.join(sorted(too_long)))


def test_long_modules_exist():
    # A stale exception would hide a module that grows back.
    missing = [path for path in LONG_MODULES
               if not os.path.exists(os.path.join(REPO, path))]
    assert not missing, missing
