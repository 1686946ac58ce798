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

"""The rules of an image against its flavor (api.compute.image_flavor_rules),
one table a rule: what Nova 34's API accepts, and what it refuses with
which message.
"""

import pytest

from nova_mini.api.compute import image_flavor_rules as rules
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects import image_meta

IMAGE_ID = '7b3c1d2e-0000-4000-8000-00000000abcd'


def _flavor(specs):
    return objects.Flavor(name='bm.small', vcpus=4, memory_mb=4096,
                          extra_specs=dict(specs))


def _image(props):
    return image_meta.ImageMeta.from_dict(
        {'id': IMAGE_ID, 'name': 'cirros', 'properties': dict(props)})


def _run(specs, props, rebuild=False):
    return rules.check(_flavor(specs), _image(props), rebuild=rebuild)


def _refused(specs, props, rebuild=False):
    with pytest.raises(exception.Invalid) as info:
        _run(specs, props, rebuild)
    return info.value.format_message()


def _cases(accepted, refused):
    return ([pytest.param(s, p, None, id='ok-%d' % n)
             for n, (s, p) in enumerate(accepted)] +
            [pytest.param(s, p, m, id='refused-%d' % n)
             for n, (s, p, m) in enumerate(refused)])


def _check(specs, props, message):
    if message is None:
        _run(specs, props)
    else:
        assert _refused(specs, props) == message


PINNING = ("Image property 'hw_cpu_policy' is not permitted to override CPU "
           "pinning policy set against the flavor")


@pytest.mark.parametrize('specs, props, message', _cases(
    accepted=[
        ({}, {}),
        ({}, {'hw_cpu_policy': 'dedicated'}),
        ({'hw:cpu_policy': 'dedicated'}, {'hw_cpu_policy': 'shared'}),
        ({'hw:cpu_policy': 'dedicated'}, {'hw_cpu_policy': 'mixed'}),
        ({'hw:cpu_policy': 'shared'}, {'hw_cpu_policy': 'shared'}),
        ({'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '^0'},
         {'hw_cpu_policy': 'shared'}),
    ],
    refused=[
        ({'hw:cpu_policy': 'shared'}, {'hw_cpu_policy': 'dedicated'},
         PINNING),
        ({'hw:cpu_policy': 'shared'}, {'hw_cpu_policy': 'mixed'}, PINNING),
        ({'hw:cpu_policy': 'mixed'}, {'hw_cpu_policy': 'dedicated'},
         PINNING),
        ({'hw:cpu_policy': 'pinned'}, {},
         "CPU policy requested from 'flavor extra specs' is invalid, given: "
         "'pinned', available: '('dedicated', 'shared', 'mixed')'."),
        # resources:VCPU with a CPU policy (bare-metal flavors ask for 0).
        ({'resources:VCPU': '4'}, {'hw_cpu_policy': 'dedicated'},
         "It is not possible to use the 'resources:VCPU' or "
         "'resources:PCPU' extra specs in combination with the "
         "'hw:cpu_policy' extra spec or 'hw_cpu_policy' image metadata "
         "property; use one or the other"),
    ]))
def test_cpu_policy(specs, props, message):
    _check(specs, props, message)


MIXED_MASKS = ("Dedicated CPU set can be specified from either "
               "'hw:cpu_dedicated_mask' or 'hw:cpu_realtime_mask' when using "
               "'mixed' CPU policy. 'hw:cpu_dedicated_mask' and "
               "'hw:cpu_realtime_mask' can not be specified at the same "
               "time, or be specified with none of them.")
REALTIME = ('Use of realtime CPUs requires either one or more non-realtime '
            'CPU(s) or offloaded emulator threads.')


@pytest.mark.parametrize('specs, props, message', _cases(
    accepted=[
        ({'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '^0'}, {}),
        ({'hw:cpu_policy': 'dedicated', 'hw:cpu_realtime': 'true',
          'hw:cpu_realtime_mask': '^0'}, {}),
        ({'hw:cpu_policy': 'dedicated', 'hw:cpu_realtime': 'true'},
         {'hw_cpu_realtime_mask': '^0-1'}),
        ({'hw:cpu_policy': 'dedicated',
          'hw:emulator_threads_policy': 'isolate'}, {}),
        ({'resources:PCPU': '4'}, {}),
    ],
    refused=[
        ({}, {'hw_cpu_policy': 'mixed'}, MIXED_MASKS),
        ({'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '^0',
          'hw:cpu_realtime': 'true', 'hw:cpu_realtime_mask': '^0'}, {},
         MIXED_MASKS),
        ({'hw:cpu_dedicated_mask': '^0'}, {'hw_cpu_policy': 'dedicated'},
         "Cannot specify 'hw:cpu_dedicated_mask' without the 'mixed' "
         "policy."),
        ({'hw:cpu_realtime': 'true', 'hw:cpu_realtime_mask': '^0'}, {},
         'Cannot set realtime policy in a non dedicated cpu pinning policy'),
        ({'hw:cpu_policy': 'dedicated', 'hw:cpu_realtime': 'true'}, {},
         REALTIME),
        # The image's mask comes first.
        ({'hw:cpu_policy': 'dedicated', 'hw:cpu_realtime': 'true',
          'hw:cpu_realtime_mask': '^0'}, {'hw_cpu_realtime_mask': '0-7'},
         'Realtime policy vCPU(s) mask is configured with RT vCPUs that are '
         'not a subset of the vCPUs in the flavor. See hw:cpu_realtime_mask '
         'or hw_cpu_realtime_mask'),
        ({'hw:emulator_threads_policy': 'isolate'}, {},
         'An isolated CPU emulator threads option requires a dedicated CPU '
         'policy option.'),
        ({'resources:PCPU': '2'}, {},
         "There is a mismatch between the number of PCPUs requested via "
         "'resourcesNN:PCPU' and the flavor); you must allocate exactly "
         "flavor.vcpus PCPUs"),
    ]))
def test_mixed_realtime_and_emulator_threads(specs, props, message):
    _check(specs, props, message)


def test_zero_vcpu_resources_do_not_count():
    # Bare-metal flavors zero the standard resources: no conflict.
    _run({'resources:VCPU': '0', 'resources:CUSTOM_BM': '1'},
         {'hw_cpu_policy': 'dedicated'})


THREAD_PINNING = ("Image property 'hw_cpu_thread_policy' is not permitted "
                  "to override CPU thread pinning policy set against the "
                  "flavor")
NOT_DEDICATED = ('Cannot set cpu thread pinning policy in a non dedicated '
                 'cpu pinning policy')


@pytest.mark.parametrize('specs, props, message', _cases(
    accepted=[
        ({'hw:cpu_policy': 'dedicated', 'hw:cpu_thread_policy': 'prefer'},
         {'hw_cpu_thread_policy': 'isolate'}),
        ({'hw:cpu_policy': 'dedicated', 'hw:cpu_thread_policy': 'isolate'},
         {'hw_cpu_thread_policy': 'isolate'}),
        ({'hw:cpu_policy': 'dedicated'}, {'hw_cpu_thread_policy': 'require'}),
        ({}, {'hw_cpu_policy': 'dedicated',
              'hw_cpu_thread_policy': 'require'}),
        ({'hw:cpu_policy': 'dedicated', 'trait:HW_CPU_HYPERTHREADING':
          'forbidden'}, {}),
    ],
    refused=[
        ({'hw:cpu_policy': 'dedicated', 'hw:cpu_thread_policy': 'isolate'},
         {'hw_cpu_thread_policy': 'require'}, THREAD_PINNING),
        ({}, {'hw_cpu_thread_policy': 'isolate'}, NOT_DEDICATED),
        ({'hw:cpu_policy': 'shared'}, {'hw_cpu_thread_policy': 'prefer'},
         NOT_DEDICATED),
        ({'trait:HW_CPU_HYPERTHREADING': 'required'}, {}, NOT_DEDICATED),
        ({'hw:cpu_policy': 'dedicated', 'hw:cpu_thread_policy': 'pin'}, {},
         "CPU thread policy requested from 'flavor extra specs' is invalid, "
         "given: 'pin', available: '('prefer', 'isolate', 'require')'."),
        ({'hw:cpu_policy': 'dedicated'},
         {'hw_cpu_thread_policy': 'isolate',
          'trait:HW_CPU_HYPERTHREADING': 'required'},
         "It is not possible to use the 'trait:HW_CPU_HYPERTHREADING' "
         "extra spec in combination with the 'hw:cpu_thread_policy' extra "
         "spec or 'hw_cpu_thread_policy' image metadata property; use one "
         "or the other"),
    ]))
def test_cpu_thread_policy(specs, props, message):
    _check(specs, props, message)


@pytest.mark.parametrize('specs, props, message', _cases(
    accepted=[
        ({}, {'hw_numa_nodes': '2'}),
        ({'hw:numa_nodes': '2'}, {}),
        # No NUMA topology asked for: Nova reads no mapping.
        ({}, {'hw_numa_cpus.0': '0-3'}),
        ({}, {'hw_numa_nodes': '2', 'hw_numa_cpus.0': '0-1',
              'hw_numa_mem.0': '2048', 'hw_numa_cpus.1': '2-3',
              'hw_numa_mem.1': '2048'}),
    ],
    refused=[
        ({'hw:numa_nodes': '2'}, {'hw_numa_nodes': '1'},
         "Image property 'hw_numa_nodes' is not permitted to override NUMA "
         "configuration set against the flavor"),
        ({'hw:numa_nodes': '1', 'hw:numa_cpus.0': '0-3',
          'hw:numa_mem.0': '4096'},
         {'hw_numa_cpus.0': '0-3', 'hw_numa_mem.0': '4096'},
         "Image property 'hw_numa_cpus' is not permitted to override NUMA "
         "configuration set against the flavor"),
        ({}, {'hw_numa_nodes': '1', 'hw_numa_cpus.0': '0-3'},
         'CPU and memory allocation must be provided for all NUMA nodes'),
        ({'hw:numa_nodes': '2'}, {'hw_numa_cpus.0': '0-3',
                                  'hw_numa_mem.0': '4096'},
         'CPU and memory allocation must be provided for all NUMA nodes'),
    ]))
def test_numa(specs, props, message):
    _check(specs, props, message)


@pytest.mark.parametrize('specs, props, message', _cases(
    accepted=[
        ({'hw:mem_page_size': 'large'}, {'hw_mem_page_size': '1GB'}),
        ({'hw:mem_page_size': 'any'}, {'hw_mem_page_size': 'small'}),
        ({'hw:mem_page_size': '2048'}, {}),
    ],
    refused=[
        ({}, {'hw_mem_page_size': 'large'},
         "Page size large forbidden against '<empty>'"),
        ({'hw:mem_page_size': 'small'}, {'hw_mem_page_size': 'large'},
         "Page size large forbidden against 'small'"),
        ({'hw:mem_page_size': '2MB'}, {'hw_mem_page_size': '2MB'},
         "Page size 2MB forbidden against '2MB'"),
        ({'hw:mem_page_size': 'any'}, {'hw_mem_page_size': 'huge'},
         "Invalid memory page size 'huge'"),
    ]))
def test_mem_page_size(specs, props, message):
    _check(specs, props, message)


UEFI = {'hw_firmware_type': 'uefi'}


@pytest.mark.parametrize('specs, props, message', _cases(
    accepted=[
        ({'hw:mem_encryption': 'false'}, {'hw_mem_encryption': 'no'}),
        ({'hw:mem_encryption': 'true'}, UEFI),
        ({}, dict(UEFI, hw_mem_encryption='yes', hw_machine_type='pc-q35-8.2')),
        ({'hw:mem_encryption': 'true',
          'hw:mem_encryption_model': 'amd-sev-snp'},
         dict(UEFI, hw_firmware_stateless='true')),
    ],
    refused=[
        ({'hw:mem_encryption': 'true'}, dict(UEFI, hw_mem_encryption='no'),
         'Flavor bm.small has hw:mem_encryption extra spec explicitly set '
         'to true, conflicting with image cirros which has '
         'hw_mem_encryption property explicitly set to False'),
        ({'hw:mem_encryption': 'true'}, {},
         'Memory encryption is requested by hw:mem_encryption extra spec in '
         "bm.small flavor but the image metadata doesn't have the "
         "'hw_firmware_type' property set to 'uefi'"),
        ({}, {'hw_mem_encryption': 'true', 'hw_firmware_type': 'bios'},
         'Memory encryption is requested by hw_mem_encryption property of '
         "image %s but the image metadata doesn't have the "
         "'hw_firmware_type' property set to 'uefi'" % IMAGE_ID),
        ({'hw:mem_encryption': 'true'}, dict(UEFI, hw_machine_type='pc'),
         "Machine type 'pc' is not compatible with image cirros (%s): q35 "
         'type is required for amd-sev to work' % IMAGE_ID),
        ({'hw:mem_encryption': 'true',
          'hw:mem_encryption_model': 'amd-sev'},
         dict(UEFI, hw_mem_encryption_model='amd-sev-es'),
         'Flavor bm.small has hw:mem_encryption_model extra spec explicitly '
         'set to amd-sev, conflicting with image cirros which has '
         'hw_mem_encryption_model property explicitly set to amd-sev-es'),
        ({'hw:mem_encryption': 'true'},
         dict(UEFI, hw_mem_encryption_model='amd-sev-snp'),
         'The amd-sev-snp memory encryption model requires stateless '
         "firmware but the image metadata doesn't have the "
         "'hw_firmware_stateless' property set to True"),
        ({'hw:mem_encryption': 'true'},
         dict(UEFI, hw_mem_encryption_model='intel-tdx',
              hw_firmware_stateless='true'),
         'The intel-tdx memory encryption model is incompatible with an '
         "attached video device. Set the 'hw_video_model' image property "
         "to 'none' to disable it"),
    ]))
def test_mem_encryption(specs, props, message):
    _check(specs, props, message)


@pytest.mark.parametrize('specs, props, message', _cases(
    accepted=[
        ({'hw:pmu': 'true'}, {'hw_pmu': 'yes'}),
        ({'hw:pmu': 'false'}, {}),
        ({}, {'hw_pmu': 'false'}),
    ],
    refused=[
        ({'hw:pmu': 'false'}, {'hw_pmu': 'true'},
         'Flavor bm.small has hw:pmu extra spec explicitly set to False, '
         'conflicting with image cirros which has hw_pmu explicitly set to '
         'True.'),
    ]))
def test_pmu(specs, props, message):
    _check(specs, props, message)


@pytest.mark.parametrize('specs, props, message', _cases(
    accepted=[
        ({'os:secure_boot': 'required'}, {'os_secure_boot': 'required'}),
        ({'os:secure_boot': 'required'}, {}),
        ({}, {'os_secure_boot': 'disabled'}),
    ],
    refused=[
        ({'os:secure_boot': 'required'}, {'os_secure_boot': 'disabled'},
         'Flavor bm.small has os:secure_boot extra spec explicitly set to '
         'required, conflicting with image cirros which has os_secure_boot '
         'explicitly set to disabled.'),
    ]))
def test_secure_boot(specs, props, message):
    _check(specs, props, message)


@pytest.mark.parametrize('specs, props, message', _cases(
    accepted=[
        ({'trait:CUSTOM_RAID': 'forbidden'}, {'trait:CUSTOM_GPU': 'required'}),
        ({'trait:CUSTOM_GPU': 'required'}, {'trait:CUSTOM_GPU': 'required'}),
    ],
    refused=[
        ({'trait:CUSTOM_GPU': 'forbidden', 'trait:CUSTOM_RAID': 'forbidden'},
         {'trait:CUSTOM_RAID': 'required', 'trait:CUSTOM_GPU': 'required'},
         'Image traits are part of forbidden traits in flavor bm.small '
         '(CUSTOM_GPU, CUSTOM_RAID). Either specify a different image or a '
         'compatible flavor.'),
    ]))
def test_forbidden_traits(specs, props, message):
    _check(specs, props, message)


def test_forbidden_traits_left_to_the_rebuild_check():
    # At rebuild the scheduler's check answers it (Nova's conductor).
    _run({'trait:CUSTOM_GPU': 'forbidden'}, {'trait:CUSTOM_GPU': 'required'},
         rebuild=True)


@pytest.mark.parametrize('props, message', [
    ({'hw_cpu_policy': 'pinned'},
     "Invalid image metadata. Error: Image property 'hw_cpu_policy': "
     "'pinned' is not one of: dedicated, shared, mixed."),
    ({'hw_numa_nodes': 'two'},
     "Invalid image metadata. Error: Image property 'hw_numa_nodes'"),
])
def test_invalid_image_metadata(props, message):
    assert _refused({}, props).startswith(message)


def test_typed_properties_keep_unknown_ones_out():
    props = rules.check(_flavor({}), _image(
        {'hw_cpu_policy': 'dedicated', 'hw_numa_nodes': '2',
         'my_own_property': 'x', 'trait:CUSTOM_X': 'required'}))
    assert props == {'hw_cpu_policy': 'dedicated', 'hw_numa_nodes': 2,
                     'traits_required': ['CUSTOM_X']}


def test_rules_in_nova_order():
    # Nova's API checks memory encryption before the CPU policy.
    assert [name for name, _rule, _rebuild in rules.RULES][:4] == [
        'memory encryption', 'pmu', 'realtime', 'cpu policy']


def test_check_sets_what_the_scheduler_reads():
    # The image as a boot reads it from Glance, not typed yet: check's
    # typing is what the request spec carries to the scheduler.
    image = image_meta.ImageMeta.untyped_from_glance({
        'id': IMAGE_ID, 'status': 'active', 'architecture': 'AMD64',
        'cpu_arch': 'i386', 'trait:CUSTOM_X': 'required'})
    rules.check(_flavor({}), image)
    assert (image.properties.hw_architecture, image.properties.cpu_arch,
            image.properties.traits_required) == ('x86_64', 'i686',
                                                  ['CUSTOM_X'])


def test_check_refuses_a_cpu_arch_that_is_no_architecture():
    image = image_meta.ImageMeta.untyped_from_glance(
        {'id': IMAGE_ID, 'cpu_arch': 'pdp11'})
    with pytest.raises(exception.InvalidRequestSpec) as info:
        rules.check(_flavor({}), image)
    assert 'cpu_arch' in info.value.format_message()
