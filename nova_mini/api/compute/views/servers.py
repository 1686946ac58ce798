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

"""How a server looks in compute API responses, by microversion.

The fields are Nova 34's, so that clients reading them (openstackclient,
openstacksdk) find every one they expect; those about things nova_mini
servers do not have (addresses, volumes, key pairs, locks) carry the
values Nova shows for a server without them. What a server keeps from its
boot request (metadata, access addresses, config drive, description,
tags, user data, launch index) is shown where and from the microversion
Nova shows it.
"""

import hashlib

from oslo_utils import timeutils

from nova_mini.api.compute import legacy_v2
from nova_mini.api.compute import versions
from nova_mini.api import pagination
from nova_mini import conf
from nova_mini.objects.compute import instance as instance_obj
from nova_mini.objects.compute import instance_task
from nova_mini.objects.compute import server_group as server_group_obj
from nova_mini.policies.compute import flavor_extra_specs as specs_policies
from nova_mini.policies.compute import servers as policies
from nova_mini import policy

CONF = conf.CONF

# Nova's power states: nothing yet, running (a deployed node), shut down.
NOSTATE = instance_task.NOSTATE
RUNNING = instance_task.RUNNING
SHUTDOWN = instance_task.SHUTDOWN

# Statuses whose servers show a progress (Nova's, of those nova_mini has).
_PROGRESS_STATUSES = ('ACTIVE', 'BUILD')


def disk_config(instance):
    """``OS-DCF:diskConfig`` of the server: AUTO or MANUAL."""
    return 'AUTO' if instance.auto_disk_config else 'MANUAL'


def _iso(value):
    return value.strftime('%Y-%m-%dT%H:%M:%SZ') if value else None


def task_state(instance):
    """Nova's task state: the action's while one runs (server_actions.py),
    scheduling while the scheduler builds the server.
    """
    if instance.task_state:
        return instance.task_state
    return 'scheduling' if instance.vm_state == instance_obj.BUILDING else (
        None)


def power_state(instance):
    return instance_task.power_state_of(instance.vm_state,
                                        instance.power_state)


def launched_at(instance):
    # Nova shows this stamp with microseconds.
    if not instance.launched_at:
        return None
    return instance.launched_at.strftime('%Y-%m-%dT%H:%M:%S.%f')


def host_id(instance):
    """Nova's hostId: a hash of the project and the machine (here the
    node) that two servers share when they share a machine.
    """
    if not instance.node_uuid:
        return ''
    return hashlib.sha224(('%s%s' % (instance.project_id,
                                     instance.node_uuid)).encode()
                          ).hexdigest()


class ServerView(object):
    """Renders servers for one request (its version, URLs and policy)."""

    def __init__(self, req):
        self.root_url = req.application_url.rstrip('/')
        self.version_url = legacy_v2.version_url(req)
        self.req = req
        self._may = {}

    def _can(self, rule):
        if rule not in self._may:
            context = self.req.ctxt
            self._may[rule] = context.can(
                rule, policy.own_target(context), fatal=False)
        return self._may[rule]

    def _links(self, kind, ident):
        return [
            {'rel': 'self',
             'href': '%s/%s/%s' % (self.version_url, kind, ident)},
            {'rel': 'bookmark',
             'href': '%s/%s/%s' % (self.root_url, kind, ident)},
        ]

    def _flavor(self, instance):
        flavor = instance.flavor
        if not self.req.since(versions.EMBEDDED_FLAVOR):
            return {'id': flavor.flavorid,
                    'links': self._links('flavors', flavor.flavorid)[1:]}
        # 2.47: the instance's own copy, whatever became of the flavor.
        body = {'vcpus': flavor.vcpus, 'ram': flavor.memory_mb,
                'disk': flavor.root_gb, 'ephemeral': flavor.ephemeral_gb,
                'swap': flavor.swap, 'original_name': flavor.name}
        if self._can(specs_policies.INDEX):
            body['extra_specs'] = dict(flavor.extra_specs)
        return body

    def _fault(self, instance):
        fault = instance.fault
        created = fault.get('created')
        try:
            created = _iso(timeutils.parse_isotime(created))
        except (TypeError, ValueError):
            pass    # shown as stored
        body = {'code': fault.get('code', 500),
                'message': fault.get('message'), 'created': created}
        # As Nova: the details of a 500 are for administrators only.
        if fault.get('details') and (self.req.ctxt.is_admin or
                                     body['code'] != 500):
            body['details'] = fault['details']
        return body

    def _extended_attributes(self, instance):
        body = {
            'OS-EXT-SRV-ATTR:host': None,
            'OS-EXT-SRV-ATTR:instance_name': 'instance-%08x' % instance.id,
            'OS-EXT-SRV-ATTR:hypervisor_hostname': instance.node_uuid,
        }
        if self.req.since(versions.SERVER_EXTENDED_ATTRIBUTES):
            body.update({
                'OS-EXT-SRV-ATTR:hostname': instance.hostname,
                'OS-EXT-SRV-ATTR:kernel_id': '',
                'OS-EXT-SRV-ATTR:ramdisk_id': '',
                'OS-EXT-SRV-ATTR:launch_index': instance.launch_index,
                'OS-EXT-SRV-ATTR:reservation_id': None,
                'OS-EXT-SRV-ATTR:root_device_name': None,
                'OS-EXT-SRV-ATTR:user_data': instance.user_data,
            })
        return body

    def basic(self, instance):
        return {'id': instance.uuid, 'name': instance.name,
                'links': self._links('servers', instance.uuid)}

    def detail(self, instance, server_groups=False, everything=True):
        """A server's full body; without ``everything`` the part Nova's
        PUT answers with below 2.75 (no zone, config drive, key, usage,
        status or volume fields, no extended attributes).
        """
        body = self.basic(instance)
        body.update({
            'status': instance.status,
            'tenant_id': instance.project_id or '',
            'user_id': instance.user_id or '',
            'flavor': self._flavor(instance),
            'image': ({'id': instance.image_ref,
                       'links': self._links('images', instance.image_ref)[1:]}
                      if instance.image_ref else ''),
            'created': _iso(instance.created_at),
            'updated': _iso(instance.updated_at),
            'addresses': {},
            'metadata': dict(instance.metadata),
            'hostId': host_id(instance),
            'accessIPv4': instance.access_ip_v4 or '',
            'accessIPv6': instance.access_ip_v6 or '',
            'OS-DCF:diskConfig': disk_config(instance),
        })
        if instance.status in _PROGRESS_STATUSES:
            body['progress'] = 0
        if instance.fault and instance.status == 'ERROR':
            body['fault'] = self._fault(instance)
        if everything:
            body.update(self._everything(instance))
        if self.req.since(versions.SERVER_LOCKED):
            body['locked'] = instance.locked
        if self.req.since(versions.SERVER_DESCRIPTION):
            body['description'] = instance.description
        if self.req.since(versions.SERVER_TAGS):
            body['tags'] = list(instance.tags)
        if self.req.since(versions.TRUSTED_IMAGE_CERTIFICATES):
            body['trusted_image_certificates'] = None
        # As Nova: in GET /servers/{id} (and PUT), not in /servers/detail.
        if server_groups and self.req.since(versions.SERVER_GROUPS):
            body['server_groups'] = server_group_obj.group_uuids_of_instance(
                self.req.ctxt, instance.uuid)
        if self.req.since(versions.SERVER_LOCKED_REASON):
            body['locked_reason'] = instance.locked_reason
        return body

    def _everything(self, instance):
        body = {
            # As Nova, which keeps the flag as the text 'True' or ''.
            'config_drive': 'True' if instance.config_drive else '',
            'key_name': instance.key_name,
            # Every node is in the one zone; a server not on a node yet
            # is in none.
            'OS-EXT-AZ:availability_zone': (
                CONF.default_availability_zone if instance.node_uuid
                else ''),
            'OS-EXT-STS:vm_state': instance.vm_state,
            'OS-EXT-STS:task_state': task_state(instance),
            'OS-EXT-STS:power_state': power_state(instance),
            'OS-SRV-USG:launched_at': launched_at(instance),
            'OS-SRV-USG:terminated_at': None,
            'os-extended-volumes:volumes_attached': [],
        }
        if self._can(policies.EXTENDED_ATTRIBUTES):
            body.update(self._extended_attributes(instance))
        return body

    def show(self, instance):
        return {'server': self.detail(instance, server_groups=True)}

    def updated(self, instance):
        """The answer of PUT /servers/{id}: from 2.75 the whole server (but
        its user data), before that the smaller body Nova answered with.
        """
        if not self.req.since(versions.STRICT_VALIDATION):
            return {'server': self.detail(instance, server_groups=True,
                                          everything=False)}
        body = self.detail(instance, server_groups=True)
        body.pop('OS-EXT-SRV-ATTR:user_data', None)
        return {'server': body}

    def created(self, instance, admin_pass, security_groups=None):
        return {'server': {
            'id': instance.uuid,
            'links': self._links('servers', instance.uuid),
            'OS-DCF:diskConfig': disk_config(instance),
            'security_groups': security_groups or [{'name': 'default'}],
            'adminPass': admin_pass,
        }}

    def index(self, instances, detail, next_wanted=False,
              link_params=None):
        """The list body; a full page links to the next one, repeating
        the query parameters named in ``link_params`` (all if None; the
        ignored ones left out) with the last server as the marker.
        """
        render = self.detail if detail else self.basic
        body = {'servers': [render(i) for i in instances]}
        if next_wanted:
            path = 'servers/detail' if detail else 'servers'
            body['servers_links'] = pagination.nova_next(
                self.req, path, instances[-1].uuid, link_params,
                every_value=True)
        return body
