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

"""The per-instance vendordata document: the part a deployer rewrites.

``describe(conf, instance)`` gets the validated body the metadata service
POSTed and returns a JSON-serializable dict, which becomes the target's key
of ``vendor_data2.json``. It must be a pure function of its inputs: the
ETag is a digest of the answer, so the same instance must give the same
bytes until something about it changes.
"""

import hashlib
import hmac

# What the metadata service sends (Nova's DynamicJSON body). Only
# instance-id and project-id are required: the list may grow, and a
# target must cope with keys it does not know and with missing ones.
REQUEST_SCHEMA = {
    'type': 'object',
    'properties': {
        'instance-id': {'type': 'string', 'minLength': 1,
                        'maxLength': 255},
        'project-id': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'image-id': {'type': ['string', 'null']},
        'user-data': {'type': ['string', 'null']},
        'hostname': {'type': ['string', 'null']},
        'metadata': {'type': ['object', 'null'],
                     'additionalProperties': {'type': 'string'}},
        # Nova sends a comma-separated string; a list is accepted too.
        'boot-roles': {'type': ['string', 'array', 'null'],
                       'items': {'type': 'string'}},
    },
    'required': ['instance-id', 'project-id'],
    'additionalProperties': True,
}


def join_token(secret, project_id, instance_id):
    """A credential only this instance gets: hex HMAC-SHA256 of
    ``project_id/instance_id`` keyed with the configured secret. A real
    service would register it with its directory before handing it out.
    """
    message = ('%s/%s' % (project_id, instance_id)).encode('utf-8')
    return hmac.new(secret.encode('utf-8'), message,
                    hashlib.sha256).hexdigest()


def boot_roles(value):
    if not value:
        return []
    if isinstance(value, str):
        value = value.split(',')
    return sorted({role.strip() for role in value if role.strip()})


def describe(conf, instance):
    """The vendordata of ``instance`` (the request body, validated)."""
    options = conf.vendordata_sample
    hostname = instance.get('hostname') or instance['instance-id']
    document = {
        'instance-id': instance['instance-id'],
        'project-id': instance['project-id'],
        'hostname': hostname,
        'fqdn': '%s.%s' % (hostname, options.realm),
        'greeting': 'Hello %s, from the nova_mini vendordata sample'
                    % hostname,
        'boot-roles': boot_roles(instance.get('boot-roles')),
    }
    if options.join_secret:
        document['join-token'] = join_token(
            options.join_secret, instance['project-id'],
            instance['instance-id'])
    return document
