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

"""StaticJSON: the deployer's JSON file, the same for every instance.

Served as ``vendor_data.json`` and as the ``static`` key of
``vendor_data2.json``. The file is read once, when the provider is loaded:
a missing, unreadable or invalid file stops the daemon at start rather than
failing requests later.
"""

import copy
import json

from nova_mini import exception

OPTION = '[api] vendordata_jsonfile_path'
KEY = 'static'


def read_document(path):
    """The JSON object in ``path``; VendorDataConfigError naming the path
    and the reason otherwise.
    """
    def fail(reason):
        raise exception.VendorDataConfigError(
            reason='%s %s: %s' % (OPTION, path, reason))

    try:
        with open(path, 'rb') as stream:
            raw = stream.read()
    except OSError as exc:
        fail(exc.strerror or str(exc))
    try:
        # JSON files are UTF-8 (RFC 8259); a BOM is tolerated.
        text = raw.decode('utf-8-sig')
    except UnicodeDecodeError as exc:
        fail('not UTF-8 text (%s)' % exc.reason)
    try:
        document = json.loads(text)
    except ValueError as exc:
        fail('invalid JSON (%s)' % exc)
    if not isinstance(document, dict):
        fail('the JSON document is a %s, not an object'
             % type(document).__name__)
    return document


class StaticJSON:
    """The vendordata provider of ``[api] vendordata_jsonfile_path``."""

    keys = frozenset([KEY])

    def __init__(self, conf):
        path = conf.api.vendordata_jsonfile_path
        # NOTE: as Nova, no file configured is an empty document.
        self._document = read_document(path) if path else {}

    def document(self):
        """Return a copy of the document (callers may change it)."""
        return copy.deepcopy(self._document)

    def get(self, instance):
        """Return this provider's key of vendor_data2.json: ``{'static':
        document}``.
        """
        return {KEY: self.document()}
