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

"""The Sphinx extension's image property reference and its links with the
extra spec reference, through real sphinx-build runs (warnings as
errors)."""

import re

import pytest

from nova_mini.api.validation.image_properties import registry
from nova_mini.tests.unit.extra_specs_tools import test_sphinxext as ts


def image_anchors(page):
    return set(re.findall(r'id="(image-property-[^"]+)"', page))


def _entry(page, anchor):
    """The plain text of one rendered definition."""
    start = page.index('id="%s"' % anchor)
    end = page.find('<dl class="nova-mini', start + 1)
    return ts.plain(page[start:end if end > 0 else None])


@pytest.fixture(scope='module')
def both(tmp_path_factory):
    rc, stderr, page = ts.sphinx_build(tmp_path_factory.mktemp('both'), '''
        Links: :image-property:`hw_cpu_policy`,
        :image-property:`hw_numa_cpus.3`,
        :nova-mini:image-property:`trait:CUSTOM_GPU`.

        .. extra-specs::

        Image properties
        ----------------

        .. image-properties::
        ''')
    assert rc == 0, stderr
    return page


def test_every_image_property_is_rendered(both):
    names = {p.name for p in registry.build(include_plugins=False)}
    assert len(image_anchors(both)) == len(names)
    text = ts.plain(both)
    for title in ('hw', 'img', 'os', 'trait', 'Legacy names'):
        assert title in text
    entry = _entry(both, 'image-property-hw_pmu')
    assert ('Value: Any value; true, yes, on, 1, y or t (any case) read as '
            'true, anything else as false.') in entry
    assert 'Flavor extra spec: hw:pmu' in entry
    legacy = _entry(both, 'image-property-architecture')
    assert ('Status: Supported. An older name Nova still reads; '
            'hw_architecture wins when both are set.') in legacy
    assert 'Nova field: hw_architecture' in legacy
    assert 'Deprecated.' in _entry(both, 'image-property-img_use_agent')


def test_image_properties_and_extra_specs_link_each_other(both):
    hrefs = {href for href, _title in ts.links(both)}
    policy = [a for a in ts.anchors(both) if a.endswith('cpu_policy')]
    assert policy, ts.anchors(both)
    # hw_cpu_policy -> hw:cpu_policy (a sample definition here) ...
    start = both.index('id="image-property-hw_cpu_policy"')
    entry = both[start:both.index('</dl>', start)]
    assert 'href="#%s"' % policy[0] in entry
    # ... and back.
    start = both.index('id="%s"' % policy[0])
    entry = both[start:both.index('</dl>', start)]
    assert 'Image property' in ts.plain(entry)
    assert 'href="#image-property-hw_cpu_policy"' in entry
    # The roles: a name, a family's key, the long form.
    assert {'image-property-hw_cpu_policy',
            'image-property-hw_numa_cpus.-id',
            'image-property-trait-trait'} <= hrefs


def test_a_prefix_or_the_legacy_names_alone(tmp_path):
    rc, stderr, page = ts.sphinx_build(tmp_path, '''
        .. image-properties:: legacy
        ''')
    assert rc == 0, stderr
    names = {a[len('image-property-'):] for a in image_anchors(page)}
    assert 'architecture' in names and 'vmware_adaptertype' in names
    assert not any(n.startswith('hw_') for n in names)


def test_unknown_prefix_and_dangling_link_fail_the_build(tmp_path):
    rc, stderr, _page = ts.sphinx_build(tmp_path, '''
        :image-property:`hw_no_such_thing`

        .. image-properties:: hw:
        ''')
    assert rc != 0
    assert "no image property uses the namespace 'hw:'" in stderr
    assert 'no image property definition matches hw_no_such_thing' in stderr


def test_extra_specs_alone_name_their_image_property_unlinked(tmp_path):
    rc, stderr, page = ts.sphinx_build(tmp_path, '''
        .. extra-specs:: hw
        ''')
    assert rc == 0, stderr
    assert 'Image property: hw_cpu_policy' in ts.plain(page)
    assert 'image-property-hw_cpu_policy' not in page
