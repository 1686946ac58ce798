"""Request schemas of a flavor's extra specs (os-extra_specs)."""

import copy

# Keys: letters, digits and - _ : . and space, 1 to 255 characters.
# Values: strings up to 255 characters, or numbers (stored as text).
_specs = {
    'type': 'object',
    'patternProperties': {
        r'^[a-zA-Z0-9-_:. ]{1,255}$': {
            'type': ['string', 'number'], 'maxLength': 255,
        },
    },
    'additionalProperties': False,
}

create = {
    'type': 'object',
    'properties': {'extra_specs': _specs},
    'required': ['extra_specs'],
    'additionalProperties': False,
}

update = copy.deepcopy(_specs)
update.update({'minProperties': 1, 'maxProperties': 1})
