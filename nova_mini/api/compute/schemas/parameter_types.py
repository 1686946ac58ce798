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

"""Schema pieces shared by the compute API's request schemas."""

from nova_mini.api import validation

# Largest value of a signed 32-bit database integer column.
MAX_INT = 0x7FFFFFFF
# Largest single-precision float the database keeps (rxtx_factor).
MAX_FLOAT = 3.40282e+38

# Printable text with no leading or trailing white space.
name = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'format': validation.NAME_FORMAT,
}

# Free text of printable characters (spaces anywhere; no tabs, newlines or
# other control characters), as Nova's descriptions.
description = {
    'type': ['string', 'null'], 'minLength': 0, 'maxLength': 65535,
    'pattern': validation.PRINTABLE_PATTERN,
}

positive_integer = {
    'type': ['integer', 'string'], 'pattern': '^[0-9]+$',
    'minimum': 1, 'maximum': MAX_INT,
}

non_negative_integer = {
    'type': ['integer', 'string'], 'pattern': '^[0-9]+$',
    'minimum': 0, 'maximum': MAX_INT,
}

boolean = {
    'type': ['boolean', 'string'],
    'enum': [True, 'True', 'TRUE', 'true', '1', 'ON', 'On', 'on',
             'YES', 'Yes', 'yes',
             False, 'False', 'FALSE', 'false', '0', 'OFF', 'Off', 'off',
             'NO', 'No', 'no'],
}

# Query string values arrive as lists of strings.
# Larger values are taken as the largest (a limit or offset), as Nova
# does; the length only keeps int() from refusing thousands of digits.
query_non_negative_integer = {
    'type': 'string', 'pattern': '^[0-9]*$', 'minLength': 1,
    'maxLength': 255,
}
