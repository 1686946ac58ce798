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

"""How a node looks in bare-metal API responses, by microversion and by
who asks: secrets are masked for everyone (unless the show_password and
show_instance_secrets rules allow them); below the
``baremetal:node:get:filter_threshold`` rule, ``last_error``,
``driver_info`` and ``driver_internal_info`` are redacted unless their own
rules allow them (a lessee does not see the owner's).
"""

from oslo_utils import strutils

from nova_mini.api.baremetal import lookup
from nova_mini.api.baremetal import versions
from nova_mini.api.baremetal.views import base
from nova_mini.api import secrets
from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.objects.baremetal import allocation as allocation_obj
from nova_mini.objects.baremetal import node_conductor
from nova_mini.objects.baremetal import node_interfaces
from nova_mini.policies.baremetal import nodes as policies
from nova_mini import states

# Fields shown from a version on; asking for them earlier is refused (406).
FIELD_VERSIONS = {
    'driver_internal_info': versions.DRIVER_INTERNAL_INFO,
    'name': versions.NODE_NAME,
    'inspection_started_at': versions.INSPECTION_TIMES,
    'inspection_finished_at': versions.INSPECTION_TIMES,
    'clean_step': versions.CLEAN_STEP,
    'raid_config': versions.RAID_CONFIG,
    'target_raid_config': versions.RAID_CONFIG,
    'network_interface': versions.NETWORK_INTERFACE,
    'resource_class': versions.RESOURCE_CLASS,
    'storage_interface': versions.STORAGE_INTERFACE,
    'traits': versions.NODE_TRAITS,
    'rescue_interface': versions.RESCUE_INTERFACE,
    'bios_interface': versions.BIOS_INTERFACE,
    'fault': versions.FAULT,
    'deploy_step': versions.DEPLOY_STEP,
    'conductor_group': versions.CONDUCTOR_GROUP,
    'automated_clean': versions.AUTOMATED_CLEAN,
    'protected': versions.PROTECTED,
    'protected_reason': versions.PROTECTED,
    'conductor': versions.CONDUCTOR,
    'owner': versions.NODE_OWNER,
    'description': versions.DESCRIPTION,
    'allocation_uuid': versions.ALLOCATION,
    'retired': versions.RETIRED,
    'retired_reason': versions.RETIRED,
    'lessee': versions.NODE_LESSEE,
}
FIELD_VERSIONS.update({name: versions.HARDWARE_INTERFACES
                       for name in node_interfaces.FIELDS
                       if name not in FIELD_VERSIONS})
# Every field of a node body, in Ironic's order of appearance.
FIELDS = ('uuid', 'name', 'chassis_uuid', 'driver', 'driver_info',
          'driver_internal_info', 'extra', 'properties', 'resource_class',
          'provision_state', 'target_provision_state',
          'provision_updated_at', 'power_state', 'target_power_state',
          'console_enabled', 'maintenance', 'maintenance_reason',
          'reservation', 'instance_uuid', 'instance_info', 'last_error',
          'inspection_started_at', 'inspection_finished_at', 'clean_step',
          'raid_config', 'target_raid_config', 'deploy_step', 'fault',
          'conductor_group', 'conductor', 'automated_clean', 'protected',
          'protected_reason', 'allocation_uuid', 'description', 'retired',
          'retired_reason') + node_interfaces.FIELDS + (
    'traits', 'owner', 'lessee', 'created_at', 'updated_at')
# Fields of Ironic's nodes that nova_mini keeps no state for, and the
# value they always have: no step in progress (clean and deploy steps run
# within their request) and no faults (power failures). ``reservation``
# is the stored one: the host of the nova-mini-conductor working on the
# node (nova_mini.conductor.task_manager).
# ``conductor`` is one of the alive conductors of the registry: the hash
# ring's host of a redfish node, one of the API services of a fake-hardware
# node (see objects/baremetal/node_conductor.py).
_FIXED = {
    'clean_step': {},
    'deploy_step': {},
    'fault': None,
}
# The fields of a brief node list.
BRIEF_FIELDS = ('uuid', 'name', 'instance_uuid', 'power_state',
                'provision_state', 'maintenance')
_REDACTED = '** Redacted: needs the %s permission. **'


def _mask_secret_dicts(info, masked):
    # NOTE: mask_dict_password masks a secret held as text, a number or a
    # list, but walks into a dict held under a secret key and shows it
    # ({"ipmi_password": {"x": "pw"}}): such a dict is masked whole.
    for key, value in info.items():
        if isinstance(value, dict):
            if secrets.is_secret_key(key):
                masked[key] = secrets.MASK
            else:
                _mask_secret_dicts(value, masked[key])


def _masked(info, secret_keys):
    # oslo.utils' password masking, then the keys it does not know.
    masked = strutils.mask_dict_password(info or {}, secrets.MASK)
    _mask_secret_dicts(info or {}, masked)
    for key in secret_keys:
        if masked.get(key):
            masked[key] = secrets.MASK
    return masked


def masked_driver_info(driver_info):
    """Return ``driver_info`` with its secrets replaced by ``******``.

    :param driver_info: a node's driver_info (None: none).
    :returns: a new dict (passwords, keys and tokens as oslo.utils'
        ``mask_dict_password`` finds them, nested ones too, and the SNMP
        keys).
    """
    return _masked(driver_info, secrets.DRIVER_SECRETS)


def masked_driver_internal_info(driver_internal_info):
    """Return ``driver_internal_info`` with its secrets (a ramdisk agent's
    token) replaced by ``******``, as oslo.utils' ``mask_dict_password``
    finds them.
    """
    return _masked(driver_internal_info, ())


def masked_instance_info(instance_info):
    """Return ``instance_info`` with its secrets replaced by ``******``.

    :param instance_info: a node's instance_info (None: none).
    :returns: a new dict (as masked_driver_info, and the config drive
        and image URL whatever they hold).
    """
    return _masked(instance_info, secrets.INSTANCE_SECRETS)


class NodeView(base.ResourceView):
    """Render nodes for one request (its version, URLs and rights).

    :param req: the request being served.
    """

    COLLECTION = 'nodes'
    FIELDS = FIELDS
    BRIEF_FIELDS = BRIEF_FIELDS
    FIELD_VERSIONS = FIELD_VERSIONS

    def __init__(self, req):
        super().__init__(req)
        self._decisions = {}
        self._chassis_uuids = {}
        self._allocation_uuids = {}
        self._pending_allocations = set()
        self._conductors = node_conductor.NodeConductors(self.context)

    def _can(self, rule, node=None):
        """Whether the caller passes ``rule`` (on ``node``'s projects);
        the node-free decisions are asked once per request.
        """
        if node is None:
            if rule not in self._decisions:
                self._decisions[rule] = self.context.can(
                    rule, lookup.node_target(self.context, None), fatal=False)
            return self._decisions[rule]
        return self.context.can(rule, lookup.node_target(self.context, node),
                                fatal=False)

    def _filtered(self, node, rule):
        """Whether a field that ``rule`` guards is redacted for ``node``."""
        return (not self._can(policies.GET_FILTER_THRESHOLD) and
                not self._can(rule, node))

    def wants_traits(self, fields, detail):
        """Return whether a node list shows traits (so reads them).

        :param fields: the fields selected (None or empty: the default
            ones).
        :param detail: whether the list is /nodes/detail.
        :returns: a bool.
        """
        if not self.allowed('traits'):
            return False
        return 'traits' in fields if fields else detail

    def value(self, node, name):
        """Return the field ``name`` of ``node`` as this version shows it.

        :param node: the Node.
        :param name: a field of FIELDS.
        :returns: the value (secrets masked, times as ISO 8601 text).
        """
        if name == 'traits':
            return node.traits.get_trait_names()
        if name == 'provision_state':
            if (node.provision_state == states.AVAILABLE and
                    not self.req.since(versions.AVAILABLE_STATE)):
                return states.NOSTATE
            return node.provision_state
        if name == 'driver_info':
            if self._filtered(node, policies.GET_DRIVER_INFO):
                return {'content': _REDACTED % policies.GET_DRIVER_INFO}
            if self._can(policies.SHOW_PASSWORD):
                return node.driver_info
            return masked_driver_info(node.driver_info)
        if name == 'driver_internal_info':
            if self._filtered(node, policies.GET_DRIVER_INTERNAL_INFO):
                return {'content':
                        _REDACTED % policies.GET_DRIVER_INTERNAL_INFO}
            if self._can(policies.SHOW_PASSWORD):
                return node.driver_internal_info
            return masked_driver_internal_info(node.driver_internal_info)
        if name == 'instance_info':
            if self._can(policies.SHOW_INSTANCE_SECRETS):
                return node.instance_info
            return masked_instance_info(node.instance_info)
        if name == 'last_error':
            if node.last_error and self._filtered(node,
                                                  policies.GET_LAST_ERROR):
                return _REDACTED % policies.GET_LAST_ERROR
            return node.last_error
        if name in ('provision_updated_at', 'created_at', 'updated_at',
                    'inspection_started_at', 'inspection_finished_at'):
            return base.timestamp(getattr(node, name))
        if name in _FIXED:
            return _FIXED[name]
        if name in ('raid_config', 'target_raid_config'):
            # A row written before they were kept has none: {}.
            if not node.obj_attr_is_set(name):
                return {}
            return getattr(node, name) or {}
        if name == 'chassis_uuid':
            return self._chassis_uuid(node.chassis_id)
        if name == 'conductor':
            return self._conductor(node)
        if name == 'allocation_uuid':
            return self._allocation_uuid(node)
        if name == 'conductor_group':
            return node.conductor_group or ''
        return getattr(node, name)

    def _conductor(self, node):
        """The conductor of ``node`` (None while none alive drives it);
        the registry is read once per request.
        """
        return self._conductors.host(node)

    def _allocation_uuid(self, node):
        """The uuid of the allocation holding ``node`` (None: none); a
        node without an instance has none (an allocation is the node's
        instance_uuid). A list reads those of its page at once.
        """
        if node.instance_uuid is None:
            return None
        if node.id not in self._allocation_uuids:
            self._allocation_uuids.update(
                dict.fromkeys(self._pending_allocations | {node.id}))
            self._allocation_uuids.update(
                allocation_obj.node_allocation_uuids(
                    self.context, self._pending_allocations | {node.id}))
            self._pending_allocations = set()
        return self._allocation_uuids[node.id]

    def _chassis_uuid(self, chassis_id):
        """The uuid of the chassis of id ``chassis_id``, read once per
        request (None: no chassis).
        """
        if chassis_id is None:
            return None
        if chassis_id not in self._chassis_uuids:
            try:
                self._chassis_uuids[chassis_id] = objects.Chassis.get_by_id(
                    self.context, chassis_id).uuid
            except exception_baremetal.ChassisNotFound:
                self._chassis_uuids[chassis_id] = None
        return self._chassis_uuids[chassis_id]

    def extra_links(self, node):
        """Return the states links (from 1.14) and volume links (from
        1.32) of a full node body.
        """
        links = {}
        if self.req.since(versions.STATES_LINKS):
            links['states'] = self.links('nodes/%s/states' % node.uuid)
        if self.req.since(versions.VOLUME):
            links['volume'] = self.links('nodes/%s/volume' % node.uuid)
        return links

    def collection(self, nodes, limit, path, fields=None, detail=False,
                   query=None):
        """Return a node list body (see ResourceView.collection); the
        allocations of the page's nodes are read at once.
        """
        self._pending_allocations = {node.id for node in nodes
                                     if node.instance_uuid is not None}
        return super().collection(nodes, limit, path, fields=fields,
                                  detail=detail, query=query)
