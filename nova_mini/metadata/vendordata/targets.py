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

"""[api] vendordata_dynamic_targets: ``name@url`` entries, checked at start.

Nova logged a target with no name or a duplicate name at every request and
skipped it; the spec calls both errors, so here they stop the daemon at
start, like a URL that could never be called.
"""

import collections
import re
import urllib.parse

from nova_mini import exception

OPTION = '[api] vendordata_dynamic_targets'

# The key of vendor_data2.json that StaticJSON fills.
RESERVED_NAMES = frozenset(['static'])

# A name is a key of vendor_data2.json. No '/' or ':' either: "http://h/x"
# split at an '@' of its userinfo would otherwise pass for a name.
_NAME = re.compile(r'^[^\s/:@]+$')

Target = collections.namedtuple('Target', ['name', 'url'])


def _fail(entry, reason):
    raise exception.VendorDataConfigError(
        reason='%s: %r %s' % (OPTION, entry, reason))


def parse_target(entry):
    """``'name@url'`` -> Target; VendorDataConfigError if it is not one.

    The name ends at the first '@': a URL with userinfo keeps its own.
    """
    name, sep, url = entry.strip().partition('@')
    if not sep or not name:
        _fail(entry, 'has no name (expected <name>@<url>)')
    if not _NAME.match(name):
        _fail(entry, 'has an invalid name %r (no spaces, "/", ":" or "@")'
              % name)
    if name in RESERVED_NAMES:
        _fail(entry, 'uses the reserved name %r (the key of StaticJSON)'
              % name)
    try:
        parsed = urllib.parse.urlsplit(url)
        parsed.port     # raises ValueError for a port out of range
    except ValueError as exc:
        _fail(entry, 'has an invalid URL: %s' % exc)
    if parsed.scheme not in ('http', 'https') or not parsed.hostname:
        _fail(entry, 'has an invalid URL %r (expected http:// or https:// '
              'and a host)' % url)
    if re.search(r'\s', url):
        _fail(entry, 'has an invalid URL %r (whitespace)' % url)
    return Target(name, url)


def parse_targets(entries):
    """Parse ``[api] vendordata_dynamic_targets``.

    :param entries: the option's entries, ``name@url``.
    :returns: the Targets, in order.
    :raises nova_mini.exception.VendorDataConfigError: a bad entry or a
        name given twice.
    """
    targets = []
    seen = {}
    for entry in entries:
        target = parse_target(entry)
        if target.name in seen:
            _fail(entry, 'repeats the name %r of %r'
                  % (target.name, seen[target.name]))
        seen[target.name] = entry
        targets.append(target)
    return targets
