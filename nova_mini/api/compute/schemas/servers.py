"""Request schemas of the servers resource.

The properties real clients send on create (openstackclient,
openstacksdk: networks, security groups, metadata, ...) are accepted;
those nova_mini has no use for (networking, key pairs, user data) are
ignored. Unknown properties are refused, as Nova does.
"""

from nova_mini.api.compute.schemas import parameter_types
from nova_mini.api import validation

_ref = {'type': 'string', 'minLength': 1, 'maxLength': 255}
_accepted = {'type': ['string', 'object', 'array', 'boolean', 'null']}

create = {
    'type': 'object',
    'properties': {
        'server': {
            'type': 'object',
            'properties': {
                'name': parameter_types.name,
                'flavorRef': {'type': ['string', 'integer'],
                              'minLength': 1},
                # Bare metal boots an image; nova_mini keeps its id.
                'imageRef': {'type': 'string', 'maxLength': 255},
                'min_count': parameter_types.positive_integer,
                'max_count': parameter_types.positive_integer,
                'availability_zone': {'type': ['string', 'null'],
                                      'maxLength': 255},
                'description': parameter_types.description,
                'metadata': {'type': 'object'},
                'networks': _accepted,
                'security_groups': _accepted,
                'key_name': _accepted,
                'user_data': _accepted,
                'config_drive': _accepted,
                'adminPass': _accepted,
                'OS-DCF:diskConfig': _accepted,
                'block_device_mapping_v2': _accepted,
                'tags': _accepted,
                'return_reservation_id': _accepted,
            },
            'required': ['name', 'flavorRef'],
            'additionalProperties': False,
        },
        'os:scheduler_hints': {'type': 'object'},
        'OS-SCH-HNT:scheduler_hints': {'type': 'object'},
    },
    'required': ['server'],
    'additionalProperties': False,
}

index_query = {
    'type': 'object',
    'properties': {
        'limit': validation.multi_params(
            parameter_types.query_non_negative_integer),
    },
    'additionalProperties': True,
}
