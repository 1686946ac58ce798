"""Request schemas of a node's traits: a trait is a standard os-traits
name or CUSTOM_ followed by capitals, digits and underscores.
"""

import os_traits

STANDARD_TRAITS = sorted(os_traits.get_traits())
# NOTE: nova_mini.api.validation anchors a final '$' at the very end of
# the string, so "CUSTOM_X\n" does not pass (it does in Ironic).
CUSTOM_TRAIT_PATTERN = '^%s[A-Z0-9_]+$' % os_traits.CUSTOM_NAMESPACE

trait = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'anyOf': [{'pattern': CUSTOM_TRAIT_PATTERN},
              {'enum': STANDARD_TRAITS}],
}

set_traits = {
    'type': 'object',
    'properties': {
        'traits': {'type': 'array', 'items': trait},
    },
    'required': ['traits'],
    'additionalProperties': False,
}
