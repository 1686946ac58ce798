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

"""The metadata service, reached as Neutron's metadata proxy reaches it:
the instance named in X-Instance-ID and X-Tenant-ID, and proved by
X-Instance-ID-Signature (HMAC-SHA256 of the instance id, keyed with the
shared secret). No Keystone token: instances have none.
"""

import hashlib
import hmac
import json
import urllib.error
import urllib.request


class MetadataClient(object):

    def __init__(self, url, shared_secret, timeout=30):
        self.url = url.rstrip('/')
        self.shared_secret = shared_secret
        self.timeout = timeout

    def signature(self, instance_id):
        return hmac.new(self.shared_secret.encode('utf-8'),
                        instance_id.encode('utf-8'),
                        hashlib.sha256).hexdigest()

    def get(self, path, instance_id, project_id, signature=None):
        """GET ``path`` as the instance; answers (status, body bytes).

        :param signature: the signature to send (default: the right one).
        """
        headers = {'X-Instance-ID': instance_id,
                   'X-Tenant-ID': project_id,
                   'X-Instance-ID-Signature':
                       signature or self.signature(instance_id)}
        request = urllib.request.Request(
            '%s/%s' % (self.url, path.lstrip('/')), headers=headers)
        try:
            with urllib.request.urlopen(request,
                                        timeout=self.timeout) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def get_json(self, path, instance_id, project_id):
        status, body = self.get(path, instance_id, project_id)
        if status != 200:
            raise AssertionError('GET %s answered %s: %r'
                                 % (path, status, body[:500]))
        return json.loads(body)
