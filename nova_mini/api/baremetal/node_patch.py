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

"""What a node patch may change, the rule each of its operations needs,
the document it applies to and what a removed field becomes.

The document is the node as stored, as Ironic's is (``Node.as_dict``),
never the node as the API shows it: the view masks secrets and redacts
fields, and a patch of the view would store the masks.
"""

from oslo_utils import strutils

from nova_mini.api.baremetal.views import nodes as node_views
from nova_mini.objects.baremetal import node_interfaces
from nova_mini.policies.baremetal import nodes as policies

# Fields a patch may change; the others are the service's own.
PATCHABLE = ('name', 'driver', 'driver_info', 'extra', 'properties',
             'resource_class', 'instance_info', 'instance_uuid',
             'maintenance', 'owner', 'lessee', 'chassis_uuid',
             'automated_clean', 'conductor_group', 'description',
             'protected', 'protected_reason', 'retired',
             'retired_reason') + node_interfaces.FIELDS

# The rule a patch of each field needs, as Ironic 39 maps its paths;
# the fields not named need the generic UPDATE. ``retired_reason`` is
# under ``update:retired`` as in Ironic (its path starts with /retired).
FIELD_RULES = {
    'name': policies.UPDATE_NAME,
    'driver': policies.UPDATE_DRIVER,
    'driver_info': policies.UPDATE_DRIVER_INFO,
    'extra': policies.UPDATE_EXTRA,
    'properties': policies.UPDATE_PROPERTIES,
    'instance_info': policies.UPDATE_INSTANCE_INFO,
    'instance_uuid': policies.UPDATE_INSTANCE_UUID,
    'owner': policies.UPDATE_OWNER,
    'lessee': policies.UPDATE_LESSEE,
    'chassis_uuid': policies.UPDATE_CHASSIS,
    'conductor_group': policies.UPDATE_CONDUCTOR_GROUP,
    'retired': policies.UPDATE_RETIRED,
    'retired_reason': policies.UPDATE_RETIRED,
    **{name: policies.UPDATE_DRIVER for name in node_interfaces.FIELDS},
}

# What a field removed becomes (its default, not its old value).
REMOVED = dict(dict.fromkeys(PATCHABLE), maintenance=False, protected=False,
               retired=False, conductor_group='')
# What a dict field removed or set to null becomes.
EMPTY = dict.fromkeys(('driver_info', 'extra', 'properties', 'instance_info'),
                      {})
# The fields whose stored value the view masks, and how: a client that
# sends back the driver_info or instance_info it read sends ``******``
# for their secrets, which keep their stored value (json_patch.apply_to).
MASKED = {'driver_info': node_views.masked_driver_info,
          'instance_info': node_views.masked_instance_info}


def operation_rule(field, operation):
    """Return the rule a patch operation on ``field`` needs.

    Turning automated cleaning off (a false ``automated_clean``) is
    ``baremetal:node:disable_cleaning``; turning it on, or removing it,
    is a generic update, as in Ironic.

    :param field: the first token of the operation's path.
    :param operation: the operation (``op``, ``path``, maybe ``value``).
    :returns: a rule name.
    """
    if field == 'automated_clean' and operation['op'] != 'remove' and \
            strutils.bool_from_string(operation.get('value'),
                                      default=None) is False:
        return policies.DISABLE_CLEANING
    return FIELD_RULES.get(field, policies.UPDATE)


def stored_document(node, chassis_uuid):
    """Return the document a patch of ``node`` applies to: its patchable
    fields as stored (secrets as they are, no view's conversion).

    :param node: the Node.
    :param chassis_uuid: the uuid of its chassis (None: none).
    :returns: a dict of the PATCHABLE fields.
    """
    document = {name: getattr(node, name) for name in PATCHABLE
                if name != 'chassis_uuid'}
    document['chassis_uuid'] = chassis_uuid
    return document
