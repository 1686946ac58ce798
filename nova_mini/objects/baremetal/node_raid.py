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

"""A node's target RAID configuration (Ironic's target_raid_config, API
1.12), checked as Ironic's RAID interfaces check it.

A non-empty configuration must match ``SCHEMA`` (Ironic's RAID
configuration schema: a list of logical disks, each with a RAID level and
a size) and name at most one root volume; the empty one clears it and is
taken whatever the node's RAID interface. A node whose RAID interface
does nothing (``no-raid``) refuses any other.
"""

import jsonschema
from jsonschema import exceptions as jsonschema_exc

from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import node_interfaces

_LOGICAL_DISK = {
    'type': 'object',
    'properties': {
        'raid_level': {'type': 'string',
                       'enum': ['JBOD', '0', '1', '2', '5', '6', '1+0',
                                '5+0', '6+0']},
        'size_gb': {'anyOf': [{'type': 'integer', 'minimum': 0},
                              {'type': 'string', 'enum': ['MAX']}]},
        'volume_name': {'type': 'string'},
        'is_root_volume': {'type': 'boolean'},
        'share_physical_disks': {'type': 'boolean'},
        'disk_type': {'type': 'string', 'enum': ['hdd', 'ssd']},
        'interface_type': {'type': 'string',
                           'enum': ['sata', 'scsi', 'sas']},
        'number_of_physical_disks': {'type': 'integer', 'minimum': 0,
                                     'exclusiveMinimum': True},
        'controller': {'type': 'string'},
        'physical_disks': {'anyOf': [
            {'type': 'array', 'items': {'type': 'string'}},
            {'type': 'array', 'items': {'type': 'object'}, 'minItems': 2},
        ]},
    },
    'required': ['raid_level', 'size_gb'],
    'additionalProperties': False,
    'dependencies': {'physical_disks': ['controller']},
}

SCHEMA = {
    '$schema': 'http://json-schema.org/draft-04/schema#',
    'type': 'object',
    'properties': {
        'logical_disks': {'type': 'array', 'items': _LOGICAL_DISK,
                          'minItems': 1},
    },
    'required': ['logical_disks'],
    'additionalProperties': False,
}


def validate(node, config):
    """Check ``config``, a target RAID configuration for ``node``.

    :raises nova_mini.exception_baremetal.UnsupportedDriverExtension: the node's
        RAID interface does nothing (and ``config`` is not empty).
    :raises nova_mini.exception.Invalid: ``config`` breaks the schema, or
        names more than one root volume.
    """
    if not config:
        return
    if not node_interfaces.implemented(node, 'raid'):
        raise exception_baremetal.UnsupportedDriverExtension(driver=node.driver,
                                                             extension='raid')
    try:
        jsonschema.validate(config, SCHEMA)
    except jsonschema_exc.ValidationError as e:
        raise exception.Invalid(
            'RAID config validation error: %s. Fix the target RAID '
            'configuration (see GET /v1/drivers/{driver}/raid/'
            'logical_disk_properties) and send it again.' % e.message)
    roots = [disk for disk in config['logical_disks']
             if disk.get('is_root_volume')]
    if len(roots) > 1:
        raise exception.Invalid(
            'Raid config cannot have more than one root volume. %d root '
            'volumes were specified: set is_root_volume on one logical '
            'disk only.' % len(roots))


def set_target(node, config):
    """Store ``config`` as ``node``'s target RAID configuration (``{}``
    clears it) once ``validate`` accepts it.
    """
    validate(node, config)
    node.target_raid_config = config
    node.save()
