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

"""What the package imports comes from requirements.txt alone: every
third-party module imported anywhere under nova_mini/ (the tests aside,
whose packages are test-requirements.txt's) belongs to a distribution
listed there, and every distribution listed there is imported, or loaded
by name for a stated reason.

A package that only arrives with a test requirement (as cryptography did
with python-openstackclient) passes every test here and is missing from a
deployment: tests/functional/packaging/test_wheel_install.py shows it in
a fresh venv; this check names the module and the import at once.
Import names map to distributions through the test venv's installed
metadata (importlib.metadata.packages_distributions).
"""

import ast
import functools
import importlib.metadata
import os
import sys

from packaging import requirements
from packaging import utils

import nova_mini

PACKAGE = os.path.dirname(nova_mini.__file__)
REPO = os.path.dirname(PACKAGE)

# Requirements that no module imports, and why they are listed anyway.
NOT_IMPORTED = {
    'pymemcache': "dogpile.cache's backend 'dogpile.cache.pymemcache', "
                  "loaded by the name in [cache] backend",
    'pyjwt': 'a floor past advisories: keystonemiddleware imports it',
    'jinja2': 'a floor past advisories: oslo.middleware imports it',
}


def _requirements(filename='requirements.txt'):
    """Canonical distribution name -> the Requirement of ``filename``."""
    reqs = {}
    with open(os.path.join(REPO, filename)) as lines:
        for line in lines:
            line = line.split('#', 1)[0].strip()
            if line and not line.startswith('-'):
                req = requirements.Requirement(line)
                reqs[utils.canonicalize_name(req.name)] = req
    return reqs


def _imports(tree):
    """The absolute module names imported anywhere in ``tree`` (module
    level or not, guarded by try/except ImportError or not: each runs in
    some path of a daemon).
    """
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and not node.level:
            yield node.module


def third_party_imports(package=PACKAGE):
    """Top-level module name -> sorted paths (relative to the repository)
    of the modules of ``package``, tests excluded, that import it.
    """
    tests = os.path.join(package, 'tests')
    found = {}
    for root, dirs, files in os.walk(package):
        if root == tests or root.startswith(tests + os.sep):
            continue
        for name in files:
            if not name.endswith('.py'):
                continue
            path = os.path.join(root, name)
            with open(path, 'rb') as f:
                tree = ast.parse(f.read(), path)
            for module in _imports(tree):
                top = module.split('.')[0]
                if top in sys.stdlib_module_names or top == 'nova_mini':
                    continue
                found.setdefault(top, set()).add(
                    os.path.relpath(path, REPO))
    return {top: sorted(paths) for top, paths in found.items()}


@functools.lru_cache(maxsize=1)
def _installed():
    return importlib.metadata.packages_distributions()


def _distributions(module):
    return {utils.canonicalize_name(d) for d in _installed().get(module, ())}


def test_every_imported_package_is_a_runtime_requirement():
    required = set(_requirements())
    missing = []
    for module, paths in sorted(third_party_imports().items()):
        dists = _distributions(module)
        if not dists & required:
            missing.append('%s (distribution %s) imported by %s' % (
                module, ', '.join(sorted(dists)) or 'not installed',
                ', '.join(paths)))
    assert missing == [], 'not in requirements.txt: %s' % '; '.join(missing)


def test_every_runtime_requirement_is_used():
    imported = set()
    for module in third_party_imports():
        imported |= _distributions(module)
    unused = sorted(set(_requirements()) - imported - set(NOT_IMPORTED))
    assert unused == [], ('in requirements.txt, imported by no module of '
                          'nova_mini: %s' % ', '.join(unused))


def test_requirements_not_imported_are_still_listed():
    # An entry of NOT_IMPORTED outlives its requirement otherwise.
    assert set(NOT_IMPORTED) <= set(_requirements())


def test_the_scan_sees_guarded_and_nested_imports():
    tree = ast.parse(
        'import a.b\n'
        'from c import d\n'
        'from . import e\n'
        'try:\n'
        '    import f\n'
        'except ImportError:\n'
        '    f = None\n'
        'def g():\n'
        '    from h.i import j\n')
    assert list(_imports(tree)) == ['a.b', 'c', 'f', 'h.i']
