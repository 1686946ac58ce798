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

"""Request schemas of a flavor's extra specs (os-extra_specs)."""

import copy

from nova_mini.api import validation
from nova_mini.api.validation.extra_specs import registry

# Keys: letters, digits and - _ : . and space, 1 to 255 characters.
# Values: strings up to 255 characters, or numbers (stored as text).
_KEY = r'^[a-zA-Z0-9-_:. ]{1,255}$'
_specs = {
    'type': 'object',
    'patternProperties': {
        _KEY: {
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

# From 2.86 string values may not hold control characters either: no extra
# spec takes them, and they only hide typos in logs and tools.
create_v286 = copy.deepcopy(create)
create_v286['properties']['extra_specs']['patternProperties'][_KEY][
    'pattern'] = r'^[^\x00-\x1f\x7f]*$'
update_v286 = copy.deepcopy(update)
update_v286['patternProperties'][_KEY]['pattern'] = r'^[^\x00-\x1f\x7f]*$'


# From 2.86: ?validation=strict|permissive|disabled, at most once.
validation_query_v286 = {
    'type': 'object',
    'properties': {
        'validation': validation.single_param(
            {'type': 'string', 'enum': list(registry.MODES)}),
    },
    'additionalProperties': True,
}
