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

"""Request schemas of the quota sets resource (os-quota-sets), by
microversion: the Networking service's quotas gone from 2.36, the
injected files' from 2.57, unknown query parameters refused from 2.75."""

import copy

from nova_mini.api.compute.schemas import parameter_types
from nova_mini.api import validation

# A limit as Nova takes it: an integer, or its digits as a string; -1 is
# no limit, the most an integer column holds.
_limit = {
    'type': ['integer', 'string'],
    'pattern': '^-?[0-9]+$',
    'minimum': -1,
    'maximum': parameter_types.MAX_INT,
}

# Every resource of Nova 34's quota sets, before 2.36.
RESOURCES = ('instances', 'cores', 'ram', 'floating_ips', 'fixed_ips',
             'metadata_items', 'key_pairs', 'security_groups',
             'security_group_rules', 'injected_files',
             'injected_file_content_bytes', 'injected_file_path_bytes',
             'server_groups', 'server_group_members')
# Shown and taken no more from 2.36 and from 2.57.
REMOVED_V236 = ('fixed_ips', 'floating_ips', 'security_groups',
                'security_group_rules')
REMOVED_V257 = ('injected_files', 'injected_file_content_bytes',
                'injected_file_path_bytes')


def _update(removed):
    properties = {name: _limit for name in RESOURCES if name not in removed}
    properties['force'] = parameter_types.boolean
    return {
        'type': 'object',
        'properties': {
            'quota_set': {
                'type': 'object',
                'properties': properties,
                'additionalProperties': False,
            },
        },
        'required': ['quota_set'],
        'additionalProperties': False,
    }


update = _update(())
update_v236 = _update(REMOVED_V236)
update_v257 = _update(REMOVED_V236 + REMOVED_V257)

# show, detail, update and delete take ``user_id``.
query = {
    'type': 'object',
    'properties': {
        'user_id': validation.multi_params({'type': 'string'}),
    },
    'additionalProperties': True,
}

query_v275 = copy.deepcopy(query)
query_v275['additionalProperties'] = False

defaults_query = {'type': 'object', 'properties': {},
                  'additionalProperties': True}
