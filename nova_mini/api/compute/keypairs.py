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

"""The key pairs resource: /os-keypairs, /os-keypairs/{name}.

As Nova: POST imports ``public_key`` or, without one, generates a key
pair and answers its private key once (never stored). ``type`` (ssh or
x509) from 2.2, which also changes create to 201 and delete to 204;
``user_id`` (an administrator acting on another user's key pairs) from
2.10; ``limit`` and ``marker`` (a name) on the list from 2.35, with a
``keypairs_links`` next link on a full page. A server boots with a key
pair by ``key_name`` (servers.py); the metadata service serves its key.
"""

import pecan
from pecan import rest

from nova_mini.api.compute import key_material
from nova_mini.api.compute.schemas import keypairs as schema
from nova_mini.api.compute import versions
from nova_mini.api import pagination
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini.objects.compute import keypair as keypair_obj
from nova_mini.policies.compute import keypairs as policies


_one_query = validation.query([
    (None, schema.query),
    (versions.KEYPAIR_USER_ID, schema.query_v210),
    (versions.STRICT_VALIDATION, schema.query_v275),
])


def _stamp(value):
    return value.strftime('%Y-%m-%dT%H:%M:%S.%f') if value else None


def _user_id(req):
    """The user whose key pairs are meant: ``user_id`` from 2.10 (the
    first value), else the caller.
    """
    if req.since(versions.KEYPAIR_USER_ID):
        values = req.GET.getall('user_id')
        if values:
            return values[0]
    return req.ctxt.user_id


def _summary(req, keypair):
    body = {'name': keypair.name, 'public_key': keypair.public_key,
            'fingerprint': keypair.fingerprint}
    if req.since(versions.KEYPAIR_TYPE):
        body['type'] = keypair.type
    return body


class KeypairsController(rest.RestController):

    @wsgi.expose()
    @validation.query([
        (None, schema.query),
        (versions.KEYPAIR_USER_ID, schema.query_v210),
        (versions.KEYPAIR_PAGING, schema.index_query_v235),
        (versions.STRICT_VALIDATION, schema.index_query_v275),
    ])
    def get_all(self):
        req = pecan.request
        context = req.ctxt
        user_id = _user_id(req)
        context.can(policies.INDEX, {'user_id': user_id})
        limit = marker = None
        if req.since(versions.KEYPAIR_PAGING):
            limit = pagination.limit(req)
            marker = req.GET.get('marker')
        keypairs = keypair_obj.KeyPairList.get_by_user(
            context, user_id, limit=limit, marker=marker).objects
        body = {'keypairs': [{'keypair': _summary(req, keypair)}
                             for keypair in keypairs]}
        if limit is not None and keypairs and len(keypairs) == limit:
            body['keypairs_links'] = pagination.nova_next(
                req, 'os-keypairs', keypairs[-1].name)
        return body

    @wsgi.expose()
    @_one_query
    def get_one(self, name):
        req = pecan.request
        context = req.ctxt
        user_id = _user_id(req)
        context.can(policies.SHOW, {'user_id': user_id})
        keypair = keypair_obj.KeyPair.get_by_name(context, user_id, name)
        body = _summary(req, keypair)
        body.update({'user_id': keypair.user_id, 'id': keypair.id,
                     'created_at': _stamp(keypair.created_at),
                     'updated_at': _stamp(keypair.updated_at),
                     'deleted': False, 'deleted_at': None})
        return {'keypair': body}

    @wsgi.expose()
    @validation.body([(None, schema.create),
                      (versions.KEYPAIR_TYPE, schema.create_v22),
                      (versions.KEYPAIR_USER_ID, schema.create_v210)])
    def post(self):
        req = pecan.request
        context = req.ctxt
        params = req.json['keypair']
        name = params['name'].strip()
        key_type = params.get('type', keypair_obj.SSH)
        user_id = params.get('user_id') or context.user_id
        context.can(policies.CREATE, {'user_id': user_id})
        keypair = keypair_obj.KeyPair(context, name=name, user_id=user_id,
                                      type=key_type)
        private_key = None
        if 'public_key' in params:
            keypair.public_key = params['public_key']
            keypair.fingerprint = key_material.fingerprint(
                params['public_key'], key_type)
        else:
            private_key, keypair.public_key, keypair.fingerprint = (
                key_material.generate(key_type, user_id))
        keypair.create()
        body = _summary(req, keypair)
        body['user_id'] = keypair.user_id
        if private_key is not None:
            body['private_key'] = private_key
        status = 201 if req.since(versions.KEYPAIR_TYPE) else 200
        return wsgi.json_response({'keypair': body}, status=status)

    @wsgi.expose()
    @_one_query
    def delete(self, name):
        req = pecan.request
        context = req.ctxt
        user_id = _user_id(req)
        context.can(policies.DELETE, {'user_id': user_id})
        keypair_obj.KeyPair.destroy_by_name(context, user_id, name)
        status = 204 if req.since(versions.KEYPAIR_TYPE) else 202
        return wsgi.json_response(None, status=status)
