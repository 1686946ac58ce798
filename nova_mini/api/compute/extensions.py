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

"""/extensions and /extensions/{alias}: the extension list Nova serves.

Extensions stopped meaning anything when Nova's v2.1 API replaced them
with microversions; Nova still answers the fixed list it had then (older
clients and Tempest read it), whatever the microversion, with one more
entry below the v2 compatibility root. nova_mini answers the same list
(data/extensions.json): it describes Nova's API, not what this
deployment serves; the microversion range does that. Query parameters
are ignored, as in Nova up to 2.101.
"""

import json
import os

import pecan
from pecan import rest

from nova_mini.api import microversion
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini.policies.compute import extensions as policies

_DATA = os.path.join(os.path.dirname(__file__), 'data', 'extensions.json')


def _load():
    with open(_DATA) as f:
        data = json.load(f)

    def body(row):
        alias, name, description = row
        return {'alias': alias, 'description': description, 'links': [],
                'name': name, 'namespace': data['namespace'],
                'updated': data['updated']}

    v21 = [body(row) for row in data['extensions']]
    v2 = sorted(v21 + [body(row) for row in data['legacy_v2']],
                key=lambda ext: ext['alias'])
    return v21, v2


V21_EXTENSIONS, V2_EXTENSIONS = _load()


def _extensions(req):
    # The v2 compatibility root lists its extra entry too.
    if req.environ.get(microversion.LEGACY_V2_KEY):
        return V2_EXTENSIONS
    return V21_EXTENSIONS


class ExtensionsController(rest.RestController):

    @wsgi.expose()
    def get_all(self):
        req = pecan.request
        req.ctxt.can(policies.BASE, {})
        return {'extensions': _extensions(req)}

    @wsgi.expose()
    def get_one(self, alias):
        req = pecan.request
        req.ctxt.can(policies.BASE, {})
        for extension in _extensions(req):
            if extension['alias'] == alias:
                return {'extension': extension}
        # Nova's words for an unknown alias.
        raise exception.NotFound('The resource could not be found.')
