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

"""Request schemas of a node's states."""

from nova_mini.api.baremetal import schemas
from nova_mini.objects.baremetal import deploy_steps
from nova_mini import states

provision = {
    'type': 'object',
    'properties': {
        'target': {'type': 'string',
                   'enum': sorted(states.TRANSITIONS)},
        # Only with target "rescue" (checked by the handler, Ironic's 400).
        'rescue_password': {'type': ['string', 'null']},
        # Only with target "clean", and required with it; its steps match
        # clean_steps (checked by the handler, Ironic's 400s).
        'clean_steps': {'type': ['array', 'null']},
        # Text or an object, with targets active and rebuild only; the
        # object matches configdrive (checked by the handler, Ironic's
        # 400s in Ironic's order).
        'configdrive': {'type': ['string', 'object', 'null']},
    },
    'required': ['target'],
    'additionalProperties': False,
}

# The JSON object a config drive is built from (API 1.56; vendor_data
# 1.59): objects/baremetal/node_configdrive.py says what each becomes.
configdrive = {
    'type': 'object',
    'properties': {
        'meta_data': {'type': 'object'},
        'network_data': {'type': 'object'},
        'user_data': {'type': ['object', 'array', 'string', 'null']},
        'vendor_data': {'type': 'object'},
    },
    'additionalProperties': False,
}

# The steps of a manual cleaning, as Ironic's API checks them (whether
# the node has them is checked when they run).
clean_steps = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {
            'interface': {'enum': list(deploy_steps.INTERFACE_PRIORITY)},
            'step': {'type': 'string', 'minLength': 1},
            'args': {'type': 'object'},
        },
        'required': ['interface', 'step'],
        'additionalProperties': False,
    },
}

# Any text: a target that is not one is Ironic's 400 with the node's
# state (InvalidStateRequested), not a schema error.
power = {
    'type': 'object',
    'properties': {
        'target': {'type': 'string'},
        # Seconds; bounded so that a deadline can be computed from it.
        'timeout': {'type': ['integer', 'null'], 'minimum': 1,
                    'maximum': schemas.MAX_INT},
    },
    'required': ['target'],
    'additionalProperties': False,
}

console = {
    'type': 'object',
    'properties': {
        'enabled': {'type': 'boolean'},
    },
    'required': ['enabled'],
    'additionalProperties': False,
}

boot_device = {
    'type': 'object',
    'properties': {
        'boot_device': {'type': 'string'},
        'persistent': {'type': 'boolean'},
    },
    'required': ['boot_device'],
    'additionalProperties': False,
}

# Ironic takes no parameter; {} (what its clients send) or no body.
inject_nmi = {
    'type': 'object',
    'properties': {},
    'additionalProperties': False,
}

indicator_state = {
    'type': 'object',
    'properties': {
        'state': {'type': 'string'},
    },
    'required': ['state'],
    'additionalProperties': False,
}

# Any object: objects/baremetal/node_raid.py checks it as the RAID interface does.
target_raid_config = {'type': 'object'}
