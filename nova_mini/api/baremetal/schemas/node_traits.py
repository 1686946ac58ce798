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

"""Request schemas of a node's traits: a trait is a standard os-traits
name or CUSTOM_ followed by capitals, digits and underscores.
"""

import os_traits

from nova_mini.api.validation import messages

STANDARD_TRAITS = sorted(os_traits.get_traits())
# NOTE: nova_mini.api.validation anchors a final '$' at the very end of
# the string, so "CUSTOM_X\n" does not pass (it does in Ironic).
CUSTOM_TRAIT_PATTERN = '^%s[A-Z0-9_]+$' % os_traits.CUSTOM_NAMESPACE

trait = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'description': messages.TRAIT_RULE,
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
