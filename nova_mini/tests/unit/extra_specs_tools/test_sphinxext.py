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

"""The Sphinx extension, through real sphinx-build runs of small projects
(warnings as errors, as ``tox -e docs`` builds the documentation).
"""

import html
import os
import re
import subprocess
import sys
import textwrap

import pytest

from nova_mini.tests.unit.extra_specs_tools import sample_definitions

# The extension is documentation tooling: doc/ext/ in the source tree, as
# doc/source/conf.py finds it.
DOC_EXT = os.path.abspath(os.path.join(
    os.path.dirname(__file__), '..', '..', '..', '..', 'doc', 'ext'))
EXTENSION = 'extra_specs'
SAMPLE = ('nova_mini.tests.unit.extra_specs_tools.sample_definitions:'
          'DEFINITIONS')


def sphinx_build(tmp_path, body, definitions=SAMPLE, builder='html'):
    """Build a one-page project; (returncode, stderr, page text)."""
    source = tmp_path / 'source'
    source.mkdir(parents=True, exist_ok=True)
    (source / 'conf.py').write_text(textwrap.dedent('''\
        import sys
        sys.path.insert(0, %r)
        extensions = [%r]
        nova_mini_extra_specs = %r
        ''' % (DOC_EXT, EXTENSION, definitions)))
    (source / 'index.rst').write_text('Extra specs\n===========\n\n' +
                                      textwrap.dedent(body))
    out = tmp_path / 'build'
    result = subprocess.run(
        [sys.executable, '-m', 'sphinx', '-W', '--keep-going', '-q', '-b',
         builder, str(source), str(out)],
        capture_output=True, text=True, timeout=300)
    page = out / ('index.html' if builder == 'html' else 'index.txt')
    text = page.read_text() if page.exists() else ''
    return result.returncode, result.stderr, text


def plain(page):
    """The page's text, tags dropped, whitespace collapsed."""
    return html.unescape(' '.join(re.sub(r'<[^>]+>', '', page).split()))


def anchors(page):
    return set(re.findall(r'id="(extra-spec-[^"]+)"', page))


def links(page):
    return re.findall(r'<a class="reference internal" href="#([^"]+)"'
                      r'(?: title="([^"]*)")?', page)


@pytest.fixture(scope='module')
def full_page(tmp_path_factory):
    rc, stderr, page = sphinx_build(tmp_path_factory.mktemp('full'), '''
        Links: :extra-spec:`hw:cpu_policy`, :extra-spec:`hw:numa_cpus.{id}`,
        :extra-spec:`hw:numa_cpus.3`, :extra-spec:`resources1:VCPU`,
        :nova-mini:extra-spec:`group_policy` and
        :extra-spec:`the dedicated policy <hw:cpu_policy>`.

        .. extra-specs::
        ''')
    assert rc == 0, stderr
    return page


def test_every_definition_has_a_target(full_page):
    assert len(anchors(full_page)) == len(sample_definitions.DEFINITIONS)
    assert 'extra-spec-hw-cpu_policy' in anchors(full_page)
    for spec in sample_definitions.DEFINITIONS:
        assert html.escape(spec.name) in full_page


def test_grouped_by_namespace(full_page):
    sections = re.findall(r'<section id="(extra-specs-[^"]+)">', full_page)
    assert sections == ['extra-specs-hw', 'extra-specs-quota',
                        'extra-specs-rack', 'extra-specs-resources',
                        'extra-specs-none']
    assert 'Without a namespace' in full_page
    # Sorted by name within a namespace.
    hw = full_page.index('id="extra-specs-hw"')
    order = [full_page.index('id="extra-spec-hw-%s' % n, hw)
             for n in ('awkward', 'cpu_policy', 'numa_cpus', 'numa_nodes',
                       'old_policy')]
    assert order == sorted(order)


def test_role_links_exact_and_patterned_names(full_page):
    found = links(full_page)
    targets = [href for href, _title in found]
    assert targets.count('extra-spec-hw-cpu_policy') >= 4
    numa = [href for href in targets if href.startswith(
        'extra-spec-hw-numa_cpus')]
    # By its own name, by a concrete key, and from hw:cpu_policy's text.
    assert len(numa) >= 3
    assert any(href.startswith('extra-spec-resources') for href in targets)
    assert any(href.startswith('extra-spec-group_policy')
               for href in targets)
    assert 'Links: hw:cpu_policy, hw:numa_cpus.{id}, hw:numa_cpus.3, ' \
           'resources1:VCPU, group_policy and the dedicated policy.' \
           in plain(full_page)


def test_definition_details(full_page):
    text = plain(full_page)
    # Enum, bounds, pattern, boolean.
    assert 'One of: shared, dedicated, mixed.' in text
    assert 'An integer from 1 to 8.' in text
    assert 'An integer of at least 0.' in text
    assert r'A string matching \^?\d+((-\d+)?(,\^?\d+(-\d+)?)?)* in full.' \
        in text
    assert 'A boolean (true/false, yes/no, on/off, y/n, t/f, 1/0, any ' \
           'case).' in text
    # Parameters of a patterned name.
    assert r'{id} (matches \d+)' in text
    assert 'A standard or CUSTOM_ resource class.' in text
    # Support status, drivers, requirements, example, source.
    assert 'Deprecated since 2.0; use hw:cpu_policy instead.' in text
    assert 'Experimental.' in text
    assert 'Virt drivers: libvirt, ironic' in text
    assert 'Requires: hw:cpu_policy=dedicated' in text
    assert 'Example: hw:cpu_policy=dedicated' in text
    assert 'Example: hw:numa_cpus.0=0-3' in text
    assert 'Source: nova_mini (in tree)' in text
    assert 'plugin sample_scheduler' in text
    # Descriptions are reStructuredText.
    assert '<strong>guest</strong>' in full_page
    assert '<em>3.0</em>' in full_page


def test_deprecation_links_to_the_replacement(full_page):
    status = full_page[full_page.index('id="extra-spec-hw-old_policy"'):]
    status = status[status.index('Deprecated'):][:400]
    assert 'href="#extra-spec-hw-cpu_policy"' in status


def test_awkward_text_is_shown_as_written(full_page):
    # Description, value description and support note: as plain text.
    assert plain(full_page).count(sample_definitions.AWKWARD) == 3
    assert '`[*]+`|a``b' in html.unescape(full_page)
    assert 'Example: hw:awkward=`**`' in plain(full_page)


def test_unknown_reference_fails_the_build(tmp_path):
    rc, stderr, _page = sphinx_build(tmp_path, '''
        See :extra-spec:`hw:cpu_polcy` and :extra-spec:`hw:numa_cpus.x`.

        .. extra-specs::
        ''')
    assert rc != 0
    assert 'no extra spec definition matches hw:cpu_polcy' in stderr
    assert 'no extra spec definition matches hw:numa_cpus.x' in stderr


def test_reference_to_an_undocumented_namespace_fails(tmp_path):
    # hw:cpu_policy exists, but only the quota namespace is rendered.
    rc, stderr, _page = sphinx_build(tmp_path, '''
        See :extra-spec:`hw:cpu_policy`.

        .. extra-specs:: quota
        ''')
    assert rc != 0
    assert 'no extra spec definition matches hw:cpu_policy' in stderr


def test_one_namespace(tmp_path):
    rc, stderr, page = sphinx_build(tmp_path, '''
        .. extra-specs:: quota
        ''')
    assert rc == 0, stderr
    assert anchors(page) == {'extra-spec-quota-disk_read_bytes_sec'}
    assert '<section id="extra-specs-' not in page


def test_unknown_namespace_fails(tmp_path):
    rc, stderr, _page = sphinx_build(tmp_path, '''
        .. extra-specs:: nope
        ''')
    assert rc != 0
    assert "no extra spec uses the namespace 'nope'" in stderr


def test_rendering_twice_needs_no_index(tmp_path):
    twice = '''
        .. extra-specs:: quota

        .. extra-specs:: quota
        '''
    rc, stderr, _page = sphinx_build(tmp_path / 'dup', twice)
    assert rc != 0
    assert 'quota:disk_read_bytes_sec is already described' in stderr
    rc, stderr, page = sphinx_build(tmp_path / 'ok', twice + '''\
           :no-index:
        ''')
    assert rc == 0, stderr
    assert len(anchors(page)) == 1


def test_definitions_that_cannot_load_fail_the_build(tmp_path):
    rc, stderr, _page = sphinx_build(tmp_path, '''
        .. extra-specs::
        ''', definitions='nova_mini.no_such_module:DEFINITIONS')
    assert rc != 0
    assert 'cannot load the extra spec definitions' in stderr


def test_in_tree_definitions_render_cleanly(tmp_path):
    """nova_mini's own definitions, as the documentation renders them."""
    rc, stderr, page = sphinx_build(tmp_path, '''
        See :extra-spec:`hw:cpu_policy` and :extra-spec:`hw:numa_cpus.0`.

        .. extra-specs::
        ''', definitions='')
    assert rc == 0, stderr
    assert 'extra-spec-hw-cpu_policy' in anchors(page)
    assert len(anchors(page)) > 100


def test_the_runtime_package_does_not_import_sphinx():
    """Documentation tooling stays in doc/ext/: the daemons never need
    Sphinx installed.
    """
    package = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))))
    importers = []
    for root, dirs, files in os.walk(package):
        dirs[:] = [d for d in dirs if d != 'tests']
        for name in files:
            if name.endswith('.py'):
                path = os.path.join(root, name)
                with open(path, encoding='utf-8') as source:
                    if re.search(r'^\s*(from|import) sphinx\b', source.read(),
                                 re.M):
                        importers.append(os.path.relpath(path, package))
    assert importers == []
    assert os.path.exists(os.path.join(DOC_EXT, EXTENSION + '.py'))
