"""Request schemas of a node's states."""

from nova_mini import states

provision = {
    'type': 'object',
    'properties': {
        'target': {'type': 'string',
                   'enum': sorted(states.TRANSITIONS)},
    },
    'required': ['target'],
    'additionalProperties': False,
}
