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

"""Request schemas of the servers resource.

The create body takes what Nova 34 takes at each microversion, so that
real clients (openstackclient, openstacksdk) pass; servers.py refuses
what nova_mini cannot honour (volumes, networks, key pairs) and ignores
what it does not keep (doc/source/reference/compute-api.rst). Unknown
properties are refused, as Nova does.
"""

import copy

from nova_mini.api.compute.schemas import parameter_types
from nova_mini.api import validation

_string = {'type': 'string', 'maxLength': 255}

_uuid = {'type': 'string', 'format': 'uuid'}

# The value shapes of Nova's hints (a server uuid, or a list of them;
# same_host's single value is not checked, as in Nova). Other hints pass
# the schema, as in Nova; servers.py refuses those no enabled filter reads
# (server_hints.py).
_scheduler_hints = {
    'type': 'object',
    'properties': {
        'group': {'oneOf': [{'type': 'array', 'items': _uuid}, _uuid]},
        'different_host': {'oneOf': [_uuid,
                                     {'type': 'array', 'items': _uuid}]},
        'same_host': {'type': ['string', 'array'], 'items': _uuid},
    },
    'additionalProperties': True,
}

# Nova's block_device_mapping_v2 item (servers.py accepts the image root
# disk only).
_block_device_mapping_v2 = {
    'type': 'object',
    'properties': {
        'source_type': {'type': 'string',
                        'enum': ['volume', 'image', 'snapshot', 'blank']},
        'destination_type': {'type': 'string', 'enum': ['local', 'volume']},
        'uuid': {'type': 'string', 'minLength': 1, 'maxLength': 255,
                 'pattern': '^[a-zA-Z0-9._-]*$'},
        'boot_index': {'type': ['integer', 'string', 'null'],
                       'pattern': '^-?[0-9]+$'},
        'delete_on_termination': parameter_types.boolean,
        'device_name': {'type': 'string', 'minLength': 1, 'maxLength': 255,
                        'pattern': '^[a-zA-Z0-9._/-]*$'},
        'volume_size': parameter_types.non_negative_integer,
        'guest_format': _string,
        'device_type': _string,
        'disk_bus': _string,
        'tag': _string,
        'volume_type': {'type': ['string', 'null'], 'maxLength': 255},
        'image_id': _string,
        'volume_id': _string,
        'snapshot_id': _string,
        'no_device': {},
        'virtual_name': _string,
    },
    'additionalProperties': False,
}

_networks = {
    'oneOf': [
        {'type': 'array',
         'items': {
             'type': 'object',
             'properties': {
                 'fixed_ip': {'type': 'string'},
                 'port': {'type': ['string', 'null']},
                 'uuid': {'type': 'string'},
                 'tag': _string,
             },
             'additionalProperties': False}},
        {'type': 'string', 'enum': ['none', 'auto']},
    ],
}

# Nova's server metadata: keys of letters, digits and - _ : . and space,
# values of at most 255 characters (the server metadata API uses it too).
metadata = {
    'type': 'object',
    'patternProperties': {
        '^[a-zA-Z0-9-_:. ]{1,255}$': {'type': 'string', 'maxLength': 255},
    },
    'additionalProperties': False,
}

# A server's description: Nova's, at most 255 characters.
description = dict(parameter_types.description, maxLength=255)

# Nova's server tags: no comma or slash, at most 60 characters.
tag = {'type': 'string', 'minLength': 1, 'maxLength': 60,
       'pattern': '^[^,/]*$'}
MAX_TAGS = 50

_access_ip_v4 = {'type': 'string', 'format': 'ipv4'}
_access_ip_v6 = {'type': 'string', 'format': 'ipv6'}
_disk_config = {'type': 'string', 'enum': ['AUTO', 'MANUAL']}

create = {
    'type': 'object',
    'properties': {
        'server': {
            'type': 'object',
            'properties': {
                'name': parameter_types.name,
                'flavorRef': {'type': ['string', 'integer'],
                              'minLength': 1},
                # Bare metal deploys an image; nova_mini keeps its id.
                # Empty when the image is the root block device mapping.
                'imageRef': {'type': 'string', 'maxLength': 255},
                'block_device_mapping_v2': {
                    'type': 'array', 'items': _block_device_mapping_v2},
                'min_count': parameter_types.positive_integer,
                'max_count': parameter_types.positive_integer,
                'availability_zone': {'type': ['string', 'null'],
                                      'maxLength': 255},
                'adminPass': {'type': 'string'},
                'networks': _networks,
                'security_groups': {
                    'type': 'array',
                    'items': {
                        'type': 'object',
                        'properties': {'name': parameter_types.name},
                        'additionalProperties': False}},
                'key_name': parameter_types.name,
                'metadata': metadata,
                'user_data': {'type': 'string', 'maxLength': 65535},
                'config_drive': parameter_types.boolean,
                'OS-DCF:diskConfig': _disk_config,
                'accessIPv4': _access_ip_v4,
                'accessIPv6': _access_ip_v6,
                'personality': {
                    'type': 'array',
                    'items': {
                        'type': 'object',
                        'properties': {
                            'path': {'type': 'string'},
                            'contents': {'type': 'string'}},
                        'additionalProperties': False}},
                'return_reservation_id': parameter_types.boolean,
            },
            'required': ['name', 'flavorRef'],
            'additionalProperties': False,
        },
        'os:scheduler_hints': _scheduler_hints,
        'OS-SCH-HNT:scheduler_hints': _scheduler_hints,
    },
    'required': ['server'],
    'additionalProperties': False,
}


def _server(schema):
    return schema['properties']['server']['properties']


create_v219 = copy.deepcopy(create)
_server(create_v219)['description'] = description

create_v252 = copy.deepcopy(create_v219)
_server(create_v252)['tags'] = {
    'type': 'array', 'maxItems': MAX_TAGS, 'items': tag}

create_v257 = copy.deepcopy(create_v252)
del _server(create_v257)['personality']

# PUT /servers/{server_id}: what Nova lets change (hostname only from
# 2.90, beyond nova_mini's newest version).
update = {
    'type': 'object',
    'properties': {
        'server': {
            'type': 'object',
            'properties': {
                'name': parameter_types.name,
                'OS-DCF:diskConfig': _disk_config,
                'accessIPv4': _access_ip_v4,
                'accessIPv6': _access_ip_v6,
            },
            'additionalProperties': False,
        },
    },
    'required': ['server'],
    'additionalProperties': False,
}

update_v219 = copy.deepcopy(update)
_server(update_v219)['description'] = description

_multi = validation.multi_params({'type': 'string'})

# Every query parameter of Nova 34's server lists; server_filters.py says
# which ones nova_mini evaluates.
NOVA_QUERY_PARAMETERS = (
    'user_id', 'project_id', 'tenant_id', 'launch_index', 'image_ref',
    'image', 'kernel_id', 'ramdisk_id', 'hostname', 'key_name',
    'power_state', 'vm_state', 'task_state', 'host', 'node', 'flavor',
    'reservation_id', 'launched_at', 'terminated_at', 'availability_zone',
    'name', 'display_name', 'description', 'display_description',
    'locked_by', 'uuid', 'root_device_name', 'config_drive', 'access_ip_v4',
    'access_ip_v6', 'auto_disk_config', 'progress', 'sort_key', 'sort_dir',
    'all_tenants', 'soft_deleted', 'deleted', 'status', 'changes-since',
    'ip', 'ip6', 'created_at', 'tags', 'tags-any', 'not-tags',
    'not-tags-any', 'changes-before', 'locked', 'marker',
    # Joined tables: named so that they are refused with Nova's message.
    'block_device_mapping', 'services', 'metadata', 'system_metadata',
    'info_cache', 'security_groups', 'pci_devices',
)

# Nova 34's sort keys ('locked' from 2.73).
SORT_KEYS = (
    'access_ip_v4', 'access_ip_v6', 'auto_disk_config', 'availability_zone',
    'config_drive', 'created_at', 'display_description', 'display_name',
    'host', 'hostname', 'image_ref', 'instance_type_id', 'kernel_id',
    'key_name', 'launch_index', 'launched_at', 'locked', 'locked_by', 'node',
    'power_state', 'progress', 'project_id', 'ramdisk_id',
    'root_device_name', 'task_state', 'terminated_at', 'updated_at',
    'user_id', 'uuid', 'vm_state',
)

# Columns Nova once sorted on: ignored until 2.75, refused from 2.75.
LEGACY_SORT_KEYS = (
    'architecture', 'cell_name', 'cleaned', 'default_ephemeral_device',
    'default_swap_device', 'deleted', 'deleted_at', 'disable_terminate',
    'ephemeral_gb', 'ephemeral_key_uuid', 'id', 'key_data', 'launched_on',
    'memory_mb', 'os_type', 'reservation_id', 'root_gb',
    'shutdown_terminate', 'user_data', 'vcpus', 'vm_mode',
)

index_query = {
    'type': 'object',
    'properties': dict(
        {name: _multi for name in NOVA_QUERY_PARAMETERS},
        sort_key=validation.multi_params(
            {'type': 'string', 'enum': list(SORT_KEYS + LEGACY_SORT_KEYS)}),
        limit=validation.multi_params(
            parameter_types.query_non_negative_integer)),
    # Unknown parameters were ignored until 2.75, but for names of
    # internal attributes (_name), which server_filters.py refuses.
    'additionalProperties': True,
}

index_query_v275 = copy.deepcopy(index_query)
index_query_v275['properties']['sort_key'] = validation.multi_params(
    {'type': 'string', 'enum': list(SORT_KEYS)})
index_query_v275['additionalProperties'] = False
