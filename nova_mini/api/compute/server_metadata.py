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

"""A server's metadata: /servers/{server_id}/metadata[/{key}].

As Nova's: GET lists or shows items, POST merges items in, PUT on the
collection replaces them all, PUT on an item sets it and DELETE removes
it. Writes need an ACTIVE or SHUTOFF server (Nova: 409 while building
or in error), unlocked unless the caller is an administrator (409)
and stay within Nova's quota of 128 items (403). The instance object
settles concurrent writers (nova_mini.objects.compute.instance).
"""

import pecan
from pecan import rest

from nova_mini.api.compute.schemas import server_metadata as schema
from nova_mini.api.compute import server_common
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini.objects.compute import instance_task
from nova_mini.policies.compute import server_metadata as policies


class ServerMetadataController(rest.RestController):
    """/servers/{server_id}/metadata[/{key}] (see the module)."""

    def __init__(self, server_id):
        self.server_id = server_id

    def _get_server(self, context, rule):
        return server_common.get_server(context, self.server_id, rule)

    @wsgi.expose()
    def get_all(self):
        instance = self._get_server(pecan.request.ctxt, policies.INDEX)
        return {'metadata': instance.metadata}

    @wsgi.expose()
    def get_one(self, key):
        instance = self._get_server(pecan.request.ctxt, policies.SHOW)
        if key not in instance.metadata:
            raise exception.InstanceMetadataNotFound()
        return {'meta': {key: instance.metadata[key]}}

    # NOTE: 200, not 201, as Nova answers.
    @wsgi.expose()
    @validation.body(schema.create)
    def post(self):
        req = pecan.request
        instance = self._get_server(req.ctxt, policies.CREATE)
        instance_task.check_lock(req.ctxt, instance)
        return {'metadata': instance.update_metadata(req.json['metadata'])}

    @wsgi.expose()
    def put(self, key=None):
        # One handler for both PUTs: pecan routes the collection's and the
        # item's here, with or without the key.
        if key is None:
            return self._update_all()
        return self._update(key)

    @validation.body(schema.update_all)
    def _update_all(self):
        req = pecan.request
        instance = self._get_server(req.ctxt, policies.UPDATE_ALL)
        instance_task.check_lock(req.ctxt, instance)
        return {'metadata': instance.replace_metadata(req.json['metadata'])}

    @validation.body(schema.update)
    def _update(self, key):
        req = pecan.request
        instance = self._get_server(req.ctxt, policies.UPDATE)
        instance_task.check_lock(req.ctxt, instance)
        item = req.json['meta']
        if key not in item:
            raise exception.Invalid('Request body and URI mismatch')
        instance.update_metadata(item)
        return {'meta': item}

    @wsgi.expose(status=204)
    def delete(self, key):
        instance = self._get_server(pecan.request.ctxt, policies.DELETE)
        instance_task.check_lock(pecan.request.ctxt, instance)
        # As Nova: a missing item is 404 whatever the server's state.
        if key not in instance.metadata:
            raise exception.InstanceMetadataNotFound()
        instance.delete_metadata_item(key)
