"""Schema pieces shared by the compute API's request schemas."""

# Largest value of a signed 32-bit database integer column.
MAX_INT = 0x7FFFFFFF
# Largest single-precision float the database keeps (rxtx_factor).
MAX_FLOAT = 3.40282e+38

# Printable text with no leading or trailing white space.
_NAME_PATTERN = r'^(?!\s)[^\x00-\x1f\x7f]*(?<!\s)$'

name = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'pattern': _NAME_PATTERN,
}

# Free text; control characters other than tab and newlines are refused.
description = {
    'type': ['string', 'null'], 'minLength': 0, 'maxLength': 65535,
    'pattern': r'^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$',
}

positive_integer = {
    'type': ['integer', 'string'], 'pattern': '^[0-9]*$',
    'minimum': 1, 'maximum': MAX_INT, 'minLength': 1,
}

non_negative_integer = {
    'type': ['integer', 'string'], 'pattern': '^[0-9]*$',
    'minimum': 0, 'maximum': MAX_INT, 'minLength': 1,
}

boolean = {
    'type': ['boolean', 'string'],
    'enum': [True, 'True', 'TRUE', 'true', '1', 'ON', 'On', 'on',
             'YES', 'Yes', 'yes',
             False, 'False', 'FALSE', 'false', '0', 'OFF', 'Off', 'off',
             'NO', 'No', 'no'],
}

# Query string values arrive as lists of strings.
query_non_negative_integer = {
    'type': 'string', 'pattern': '^[0-9]+$',
}
