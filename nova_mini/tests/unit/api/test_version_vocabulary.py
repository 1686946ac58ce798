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

"""The one version vocabulary of the APIs: handlers are gated with
``microversion.versioned`` and schema lists, and answers are shaped with
``req.since(versions.X)``; no other module compares versions.
"""

import ast
import pathlib

import pytest

import nova_mini.api
from nova_mini.api.baremetal import versions as baremetal_versions
from nova_mini.api.compute import versions
from nova_mini.api import microversion
from nova_mini.api import wsgi

API = pathlib.Path(nova_mini.api.__file__).parent
# Where versions are compared (microversion.py) and the request's
# version is kept (wsgi.py).
_ALLOWED = {'microversion.py', 'wsgi.py'}
_ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _request(text):
    return wsgi.APIRequest.blank('/', environ={
        wsgi.API_VERSION_KEY: microversion.APIVersion(text)})


def test_since_is_the_version_or_later():
    req = _request('2.19')
    assert req.since(versions.SERVER_DESCRIPTION)
    assert req.since(versions.SERVER_LOCKED)
    assert not req.since(versions.SERVER_TAGS)
    # None: what the API's first version had (tables of later fields
    # leave those out).
    assert req.since(None)


def test_since_of_the_baremetal_tables():
    req = _request('1.9')
    assert req.since(baremetal_versions.NODE_FILTERS.get(
        'provision_state'))
    assert not req.since(baremetal_versions.NODE_FILTERS.get('driver'))
    assert req.since(baremetal_versions.NODE_FILTERS.get('maintenance'))


def _is_version(node):
    """Whether an operand is an API version: the request's, a named one
    (``versions.X``) or a variable or attribute named after one.
    """
    for sub in ast.walk(node):
        name = (sub.attr if isinstance(sub, ast.Attribute)
                else sub.id if isinstance(sub, ast.Name) else '')
        if 'version' in name.lower():
            return True
    return False


def _raw_uses(path):
    """The lines of ``path`` comparing versions, or reading
    ``api_version`` for anything but its text (``str()``).
    """
    tree = ast.parse(path.read_text(), str(path))
    printed = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == 'str':
            printed.update(id(arg) for arg in node.args)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(
                isinstance(op, _ORDERING) for op in node.ops) and any(
                _is_version(operand)
                for operand in [node.left] + node.comparators):
            found.append('%s: comparison' % node.lineno)
        elif isinstance(node, ast.Attribute) and \
                node.attr == 'api_version' and id(node) not in printed:
            found.append('%s: api_version read' % node.lineno)
    return sorted(found, key=lambda line: int(line.split(':')[0]))


def _modules():
    return sorted(path for path in API.rglob('*.py')
                  if path.name not in _ALLOWED or path.parent != API)


@pytest.mark.parametrize('path', _modules(),
                         ids=lambda path: str(path.relative_to(API)))
def test_no_raw_version_comparison(path):
    assert _raw_uses(path) == [], (
        'compare versions with req.since(versions.X) or gate the handler '
        'with microversion.versioned / a schema list')


def test_the_check_finds_raw_comparisons(tmp_path):
    module = tmp_path / 'handler.py'
    module.write_text(
        'def show(req, view):\n'
        '    if req.api_version >= versions.SERVER_TAGS:\n'
        '        pass\n'
        '    version = req.api_version\n'
        '    if view.version < (2, 3):\n'
        '        pass\n'
        '    return str(req.api_version)\n')
    assert _raw_uses(module) == ['2: comparison', '2: api_version read',
                                 '4: api_version read', '5: comparison']
