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

"""The SQL narrowing of ``capabilities:`` requirements in the ranked
candidate reads, on every backend: the nodes the ComputeCapabilitiesFilter
passes are all still read (whatever form the node's capabilities take),
and the best-ranked nodes without the capability are no longer read.
"""

import pytest

from nova_mini import context as nm_context
from nova_mini import exception
from nova_mini.objects import request_spec
from nova_mini.scheduler import candidate_conditions
from nova_mini.scheduler import filter_scheduler
from nova_mini import states
from nova_mini.tests.fixtures import builders


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


@pytest.fixture
def scheduler(conf):
    return filter_scheduler.FilterScheduler(conf.conf)


def _node(admin, name, memory_mb=4096, **properties):
    return builders.create_node(
        admin, name, resource_class='baremetal-gold',
        provision_state=states.AVAILABLE,
        properties=builders.node_properties(memory_mb=memory_mb,
                                            cpu_arch='x86_64', **properties))


def _spec(**capabilities):
    specs = {'resources:CUSTOM_BAREMETAL_GOLD': '1'}
    specs.update(('capabilities:%s' % name, value)
                 for name, value in capabilities.items())
    flavor = builders.make_flavor(memory_mb=1024, vcpus=2,
                                  extra_specs=specs)
    return request_spec.RequestSpec.from_components(None, flavor)


def _chosen(admin, scheduler, spec, count=1):
    counts = {}
    passed = scheduler._passing(admin, spec, count, counts)
    return sorted(node.name for node in passed), counts


@pytest.mark.parametrize('requirement', [
    'uefi', 's== uefi', '<in> uef', '<or> efi2 <or> uefi',
    '<all-in> ue fi'])
def test_capability_of_the_string_form(admin, scheduler, requirement):
    """Fifty better-ranked nodes boot with bios: the one uefi node is
    found and the others are not read.
    """
    for index in range(50):
        _node(admin, 'bios-%02d' % index, memory_mb=8192 + index,
              capabilities='boot_mode:bios,secure_boot:false')
    _node(admin, 'uefi', capabilities=' boot_mode : uefi , secure_boot:true')
    names, counts = _chosen(admin, scheduler, _spec(boot_mode=requirement))
    assert names == ['uefi']
    assert counts['database'] == 1


def test_capability_of_the_dict_form_and_other_cases(admin, scheduler):
    """Capabilities as a dict with a boolean, and cpu_arch: the filter
    passes 'True' for true, and so does the SQL (case aside).
    """
    _node(admin, 'dict-true', capabilities={'secure_boot': True})
    _node(admin, 'dict-false', memory_mb=8192,
          capabilities={'secure_boot': False})
    names, _counts = _chosen(admin, scheduler, _spec(secure_boot='True'))
    assert names == ['dict-true']
    names, _counts = _chosen(admin, scheduler, _spec(cpu_arch='x86_64'))
    assert names == ['dict-false', 'dict-true']


def test_requirements_left_to_the_filter(admin, scheduler):
    """Numeric operators and host attributes are not narrowed in SQL, and
    still decide.
    """
    _node(admin, 'small', memory_mb=4096)
    _node(admin, 'large', memory_mb=8192)
    assert candidate_conditions.capability_words('memory_mb', '8192') is None
    assert candidate_conditions.capability_words('boot_mode', '>= 2') is None
    assert candidate_conditions.capability_words('a:b', 'x') is None
    assert candidate_conditions.capability_words('boot_mode', 'a b') is None
    names, counts = _chosen(admin, scheduler, _spec(memory_mb='>= 8000'))
    assert names == ['large']
    assert counts['database'] == 2


def test_no_valid_host_still_names_the_capability(admin, scheduler):
    """The explanation reads the candidates without the narrowing: the
    filter is still named as what rejected the node.
    """
    _node(admin, 'bios', capabilities='boot_mode:bios')
    with pytest.raises(exception.NoValidHost) as info:
        scheduler.select_destinations(admin, _spec(boot_mode='uefi'), ['a'])
    assert info.value.format_message().endswith(
        'The ComputeCapabilitiesFilter rejected the only candidate node.')
