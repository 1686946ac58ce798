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

"""Nova's legacy image property names: each is read into the field of its
current name when present (the current name wins when both are), with the
current name's coercion.

They are not deprecated: Glance's image schema lists ``architecture``,
``hypervisor_type`` and ``vm_mode``, Nova writes ``owner_id``,
``block_device_mapping``, ``bdm_v2`` and ``root_device_name`` into the
snapshots it uploads, Nova's compute API reads ``auto_disk_config`` (not
``hw_auto_disk_config``) and its VMware driver ``vmware_ostype`` and
``vmware_disktype``. Only those whose current name is itself deprecated
(the XenAPI ones) are.

``vmware_adaptertype`` is the odd one: ``ide`` sets ``hw_disk_bus=ide``,
any other non-empty value sets ``hw_disk_bus=scsi`` and is read as
``hw_scsi_model``.
"""

from nova_mini.api.validation.image_properties import base
from nova_mini.api.validation.image_properties import cpu
from nova_mini.api.validation.image_properties import devices
from nova_mini.api.validation.image_properties import img
from nova_mini.api.validation.image_properties import os
from nova_mini.api.validation.image_properties import platform

# Legacy name -> current name (Nova's ImageMetaProps mapping).
LEGACY_NAMES = {
    'architecture': 'hw_architecture',
    'auto_disk_config': 'hw_auto_disk_config',
    'bdm_v2': 'img_bdm_v2',
    'bittorrent': 'img_bittorrent',
    'block_device_mapping': 'img_block_device_mapping',
    'cache_in_nova': 'img_cache_in_nova',
    'hypervisor_type': 'img_hv_type',
    'hypervisor_version_requires': 'img_hv_requested_version',
    'ipxe_boot': 'hw_ipxe_boot',
    'mappings': 'img_mappings',
    'owner_id': 'img_owner_id',
    'root_device_name': 'img_root_device_name',
    'vm_mode': 'hw_vm_mode',
    'vmware_disktype': 'hw_disk_type',
    'vmware_image_version': 'img_version',
    'vmware_linked_clone': 'img_linked_clone',
    'vmware_ostype': 'os_distro',
    'xenapi_device_id': 'hw_device_id',
    'xenapi_image_compression_level': 'img_compression_level',
    'xenapi_skip_agent_inject_files_at_boot':
        'os_skip_agent_inject_files_at_boot',
    'xenapi_skip_agent_inject_ssh': 'os_skip_agent_inject_ssh',
    'xenapi_use_agent': 'img_use_agent',
}

# Legacy names whose text Nova decodes as JSON before coercion.
_JSON_NAMES = ('block_device_mapping', 'mappings')


def _current():
    definitions = {}
    for module in (cpu, devices, img, os, platform):
        definitions.update((d.name, d) for d in module.DEFINITIONS)
    return definitions


def _legacy(name, current):
    coerce, value = current.coerce, current.value
    description = _READ_AS_IS.get(name) or 'Legacy name of ``%s``. %s' % (
        current.name, current.description)
    if name in _JSON_NAMES:
        # The only form of the mappings Glance can hold.
        coerce = base.list_of_mappings(json_text=True)
        value = base.Value(str, description=(
            'A JSON list of objects whose values are text or null.'))
        description = (
            'Legacy name of ``%s``, and the one that works from Glance: '
            'Nova decodes its text as JSON (a list of objects whose values '
            'are text or null). Nova stores it in snapshots of '
            'volume-backed servers.' % current.name)
    return base.ImageProperty(
        name=name,
        description=description,
        value=value,
        coerce=coerce,
        field=current.name,
        mirrors=current.mirrors,
        drivers=current.drivers,
        support=_support(name, current),
        example=current.example,
    )


# Legacy names that are what Nova actually reads, not an older spelling:
# their own description.
_READ_AS_IS = {
    'auto_disk_config': (
        'The image\'s disk config policy, as Nova\'s compute API reads it: '
        '``disabled`` refuses servers asking for the AUTO disk config. Its '
        'field in Nova\'s image object is ``hw_auto_disk_config``, which '
        'the API does not read.'),
}


def _support(name, current):
    if current.support.status == base.DEPRECATED:
        return current.support
    if name in _READ_AS_IS:
        return base.Support()
    return base.Support(note=(
        'An older name Nova still reads; ``%s`` wins when both are set.'
        % current.name))


_scsi_model = base.folded_enum(devices.SCSI_MODELS, devices.SCSI_ALIASES)


def _adapter_type(value):
    text = str(value)
    if text in ('', 'ide'):
        return text
    return _scsi_model(text)


_BY_NAME = _current()

DEFINITIONS = [
    _legacy(name, _BY_NAME[current])
    for name, current in sorted(LEGACY_NAMES.items())
] + [
    base.ImageProperty(
        name='vmware_adaptertype',
        description=(
            'Legacy VMware disk adapter: ``ide`` puts the disks on an IDE '
            'bus, any other value on a SCSI bus with that controller '
            'model (as ``hw_scsi_model``, VMware names such as '
            '``lsiLogicsas`` and ``paraVirtual`` accepted).'),
        value=base.Value(str, enum=('ide',) + devices.SCSI_MODELS),
        coerce=_adapter_type,
        field='hw_scsi_model',
        drivers=('vmware',),
        support=base.Support(note=(
            'An older name Nova still reads; ``hw_disk_bus`` and '
            '``hw_scsi_model`` win when set.')),
        example='lsiLogic',
    ),
]
