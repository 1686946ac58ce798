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

"""Server actions (POST /servers/{server_id}/action) mapped onto the node.

``os-stop`` and ``os-start`` power the node off and on, ``reboot`` (SOFT
or HARD) reboots it, ``rebuild`` deploys an image again (new
``imageRef``, and as the microversion allows ``name``, ``metadata``,
``description``, access addresses, ``key_name`` from 2.54, ``user_data``
from 2.57; the server keeps its embedded flavor); ``lock`` and
``unlock`` keep non-administrators from acting on the server
(``locked_reason`` from 2.73). ``createImage`` is refused: a bare-metal
node's disk cannot be snapshotted.

Each action runs as Nova's does, only at once (the fake hardware changes
its power state when told): the server enters the task state of the
action (REBOOT, HARD_REBOOT, REBUILD statuses) from the states Nova
allows it in (else Nova's 409), the node is told, and the server ends in
its new state (SHUTOFF after os-stop, ACTIVE after os-start, reboot and
rebuild) before the 202. Each is recorded as an instance action
(os-instance-actions). Any other action is Nova's 400 "There is no such
action".

os-stop, os-start and reboot of a server whose node a nova-mini-conductor
drives (redfish) answer 202 with the server in the task state while a
scheduler has the conductor tell its BMC and ends the task
(nova_mini.api.compute.server_conductor_power). A rebuild of such a
server is the other exception: its BMC has to be told. The request starts the task
and writes the new image (the node's instance_info too) and answers 202
with the server in REBUILD; a scheduler then has the node's conductor
redeploy it and ends the rebuild when the node is active again, or in
ERROR (nova_mini.scheduler.conductor_deploy.rebuild).
"""

from oslo_utils import excutils
import pecan
from pecan import rest

from nova_mini.api.compute import image_flavor_rules
from nova_mini.api.compute.schemas import server_actions as schema
from nova_mini.api.compute import server_common
from nova_mini.api.compute import server_conductor_power
from nova_mini.api.compute import server_config_drive
from nova_mini.api.compute import versions
from nova_mini.api.compute.views import servers as server_views
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import conf
from nova_mini.configdrive import required as configdrive_required
from nova_mini import exception
from nova_mini.image import glance
from nova_mini import objects
from nova_mini.objects.baremetal import node_power
from nova_mini.objects.baremetal import node_provision
from nova_mini.objects.compute import instance as instance_obj
from nova_mini.objects.compute import instance_action
from nova_mini.objects.compute import instance_task as task
from nova_mini.policies.compute import server_actions as policies
from nova_mini.scheduler import conductor_deploy
from nova_mini.scheduler import rebuild as rebuild_check
from nova_mini.scheduler import rpcapi as scheduler_rpcapi
from nova_mini import states

CONF = conf.CONF
# How often a rebuild's cast tries the broker (as a create's).
_CAST_RETRIES = 2


# Where each action may start from (Nova's check_instance_state).
_STOP_FROM = (task.ACTIVE, task.ERROR)
_START_FROM = (task.STOPPED,)
_SOFT_REBOOT_FROM = (task.ACTIVE,)
_HARD_REBOOT_FROM = (task.ACTIVE, task.STOPPED, task.ERROR)
_REBUILD_FROM = (task.ACTIVE, task.STOPPED, task.ERROR)


# os-stop on a conductor's node is a soft power off first (Nova's Ironic
# driver's power off with a shutdown timeout).
_SOFT = {states.POWER_OFF: states.SOFT_POWER_OFF}


def _node(context, instance):
    """The server's node, or None (no node, or no longer there)."""
    if not instance.node_uuid:
        return None
    try:
        return objects.Node.get_by_uuid(context, instance.node_uuid)
    except exception.NotFound:
        return None


def _power(context, instance, target):
    """Tell the server's node to power ``target``; the node's uuid (None
    for a server without a node).
    """
    node = _node(context, instance)
    if node is None:
        return None
    node_power.set_power_state(context, node, target)
    return node.uuid


def _conductor_node(context, instance):
    """The server's node if a nova-mini-conductor drives it, else None."""
    node = _node(context, instance)
    if node is None or not conductor_deploy.driven(node):
        return None
    return node


# What a rebuild on a conductor's node writes when it ends.
_REBUILD_END = ('vm_state', 'power_state', 'fault')


def _check_not_rescued(context, instance):
    """Refuse to rebuild a server whose node is in rescue (409): Nova's
    Ironic driver rebuilds with Ironic's rebuild, which such a node
    refuses, and Nova refuses to rebuild a rescued server.
    """
    if not instance.node_uuid:
        return
    try:
        node = objects.Node.get_by_uuid(context, instance.node_uuid)
    except exception.NotFound:
        return
    if node.provision_state in states.RESCUE_STATES:
        raise exception.InstanceInvalidState(
            action='rebuild', instance_uuid=instance.uuid,
            attr='node provision_state', state=node.provision_state)


class ServerActionController(rest.RestController):
    """POST /servers/{server_id}/action."""

    def __init__(self, server_id):
        self.server_id = server_id

    def _get_server(self, rule):
        return server_common.get_server(pecan.request.ctxt, self.server_id,
                                        rule)

    @wsgi.expose()
    def post(self):
        req = pecan.request
        body = validation.request_json(req)
        if not isinstance(body, dict) or len(body) != 1:
            raise exception.Invalid('Malformed request body')
        name = next(iter(body))
        handler = self._HANDLERS.get(name)
        if handler is None:
            # Nova's words for an action it does not have.
            raise exception.Invalid('There is no such action: %s' % name)
        return handler(self)

    def _power_task(self, rule, action, task_state, from_states, target,
                    event, end):
        context = pecan.request.ctxt
        instance = self._get_server(rule)
        task.check_lock(context, instance)
        driven = _conductor_node(context, instance)
        if driven is not None:
            # Its BMC is told through its conductor after the answer: a
            # scheduler ends the task (server_conductor_power).
            server_conductor_power.start(
                context, CONF, instance, driven, action, task_state,
                from_states, _SOFT.get(target, target), event, end)
            return wsgi.json_response(None, status=202)
        task.run(instance, action, task_state, from_states,
                 lambda: [(event, _power(context, instance, target))],
                 **end)
        return wsgi.json_response(None, status=202)

    @validation.body(schema.stop)
    def _stop(self):
        return self._power_task(
            policies.STOP, instance_action.STOP, task.POWERING_OFF,
            _STOP_FROM, states.POWER_OFF, 'compute_stop_instance',
            {'vm_state': task.STOPPED, 'power_state': task.SHUTDOWN})

    @validation.body(schema.start)
    def _start(self):
        return self._power_task(
            policies.START, instance_action.START, task.POWERING_ON,
            _START_FROM, states.POWER_ON, 'compute_start_instance',
            {'vm_state': task.ACTIVE, 'power_state': task.RUNNING})

    @validation.body(schema.reboot)
    def _reboot(self):
        hard = pecan.request.json['reboot']['type'].upper() == 'HARD'
        return self._power_task(
            policies.REBOOT, instance_action.REBOOT,
            task.REBOOTING_HARD if hard else task.REBOOTING,
            _HARD_REBOOT_FROM if hard else _SOFT_REBOOT_FROM,
            states.REBOOT if hard else states.SOFT_REBOOT,
            'compute_reboot_instance',
            {'vm_state': task.ACTIVE, 'power_state': task.RUNNING})

    @validation.body([(None, schema.lock),
                      (versions.SERVER_LOCKED_REASON, schema.lock_v273)])
    def _lock(self):
        req = pecan.request
        context = req.ctxt
        instance = self._get_server(policies.LOCK)
        reason = (req.json['lock'] or {}).get('locked_reason')
        # As Nova: the owner's project locks as 'owner', anyone else (an
        # administrator) as 'admin'.
        locked_by = ('owner' if context.project_id == instance.project_id
                     else 'admin')
        task.set_lock(instance, locked_by, reason)
        return wsgi.json_response(None, status=202)

    @validation.body(schema.unlock)
    def _unlock(self):
        context = pecan.request.ctxt
        instance = self._get_server(policies.UNLOCK)
        owner = context.project_id == instance.project_id
        if instance.locked_by == 'admin' and owner or (
                instance.locked_by == 'owner' and not owner):
            # Locked by someone else: Nova's override rule (admins).
            context.can(policies.UNLOCK_OVERRIDE,
                        {'project_id': instance.project_id,
                         'user_id': instance.user_id})
        task.set_lock(instance, None)
        return wsgi.json_response(None, status=202)

    @validation.body(schema.create_image)
    def _create_image(self):
        self._get_server(policies.CREATE_IMAGE)
        raise exception.Invalid(
            'createImage is not supported: nova_mini cannot take an image '
            "of a bare-metal node's disk. Upload the image to the Image "
            'service instead.')

    @validation.body([(None, schema.rebuild),
                      (versions.SERVER_DESCRIPTION, schema.rebuild_v219),
                      (versions.KEY_NAME_ON_REBUILD, schema.rebuild_v254),
                      (versions.PERSONALITY_REMOVED, schema.rebuild_v257),
                      (versions.TRUSTED_IMAGE_CERTIFICATES,
                       schema.rebuild_v263)])
    def _rebuild(self):
        req = pecan.request
        context = req.ctxt
        body = req.json['rebuild']
        instance = self._get_server(policies.REBUILD)
        task.check_lock(context, instance)
        if body.get('personality'):
            server_common.refuse_personality()
        if body.get('trusted_image_certificates'):
            raise exception.Invalid(
                'Image signature certificate validation is not supported.')
        if 'user_data' in body:
            server_common.check_user_data(body)
        metadata = body.get('metadata')
        if metadata is not None:
            instance_obj.check_metadata_quota(metadata)
        image = glance.image_meta(body['imageRef'],
                                  req.environ.get(glance.USER_AUTH_KEY))
        server_common.check_image_fits(instance.flavor, image)
        configdrive_required.check_image(image)
        image_flavor_rules.check(instance.flavor, image, rebuild=True)
        values = {'image_ref': image.id,
                  'auto_disk_config': server_common.get_image_disk_config(
                      image, server_common.disk_config(body))}
        if req.since(versions.KEY_NAME_ON_REBUILD) and 'key_name' in body:
            values['key_name'], values['key_data'] = (
                server_common.get_key_pair(context, body['key_name']))
        # user_data came to rebuild as personality files went (2.57).
        if req.since(versions.PERSONALITY_REMOVED) and 'user_data' in body:
            values['user_data'] = body['user_data']
        details = server_common.details_of(body)
        # A stopped server stays stopped (as in Nova); the others are
        # deployed again and powered on.
        stopped = instance.vm_state == task.STOPPED
        vm_state_before = instance.vm_state
        values.update(
            vm_state=task.STOPPED if stopped else task.ACTIVE,
            power_state=task.SHUTDOWN if stopped else task.RUNNING,
            fault=None)
        # Before the transaction: vendordata targets are called over HTTP.
        configdrive = server_config_drive.for_rebuild(
            instance, image, dict(values, **details), metadata, CONF)
        if configdrive is not None:
            values['config_drive'] = True

        # A node a nova-mini-conductor drives is redeployed by it after
        # this request: the server stays REBUILD until a scheduler sees
        # the node active again (conductor_deploy.rebuild).
        driven = _conductor_node(context, instance)

        def rebuild():
            _check_not_rescued(context, instance)
            # As Nova: the stored RequestSpec; a new image checked
            # against the node and saved with it (scheduler.rebuild).
            spec = rebuild_check.prepare(
                context, instance, image,
                CONF.filter_scheduler.enabled_filters)
            if driven is not None:
                host = driven.uuid
            else:
                host = _power(context, instance, states.POWER_OFF if stopped
                              else states.REBOOT)
            if details:
                instance.update_details(**details)
            if metadata is not None:
                instance.replace_metadata(metadata, states=None,
                                          action='rebuild')
            if host:
                # The node's instance_info gets the new image and traits.
                node_provision.rebuild_info(
                    context, host, instance.uuid, image,
                    values['auto_disk_config'], spec.required_traits,
                    configdrive=configdrive)
            # As Nova: its conductor's event, then its compute manager's.
            if driven is not None:
                # The compute event is the scheduler's, when it ends.
                return [('rebuild_server', CONF.host)]
            return [('rebuild_server', CONF.host),
                    ('compute_rebuild_instance', host)]

        # One transaction: a refusal (a rescued node, a node that does not
        # suit the new image) or a failure leaves the server and its node
        # as they were.
        try:
            if driven is not None:
                # Its state is written when the node is active again.
                task.begin(instance, instance_action.REBUILD,
                           task.REBUILDING, _REBUILD_FROM, rebuild,
                           **{name: value for name, value in values.items()
                              if name not in _REBUILD_END})
            else:
                task.run(instance, instance_action.REBUILD, task.REBUILDING,
                         _REBUILD_FROM, rebuild, **values)
        except rebuild_check.RebuildNoValidHost as exc:
            # As Nova's conductor: the action's event records why.
            instance_action.record(
                context, instance.uuid, instance_action.REBUILD,
                [('rebuild_server', CONF.host)],
                result=instance_action.ERROR, details=exc.format_message())
            raise
        if driven is not None:
            try:
                scheduler_rpcapi.SchedulerAPI(CONF).rebuild_instance(
                    context, instance.uuid, driven.uuid,
                    {name: values[name] for name in _REBUILD_END},
                    retry=_CAST_RETRIES)
            except Exception:
                # No scheduler took it: the server leaves REBUILD in the
                # state it had, and the request is refused (503).
                with excutils.save_and_reraise_exception():
                    task.finish(instance, task.REBUILDING,
                                vm_state=vm_state_before)
        instance = objects.Instance.get_by_uuid(context, instance.uuid)
        server = server_views.ServerView(req).updated(instance)['server']
        if req.since(versions.KEY_NAME_ON_REBUILD):
            server['key_name'] = instance.key_name
        if req.since(versions.PERSONALITY_REMOVED):
            server['user_data'] = instance.user_data
        server['adminPass'] = body.get('adminPass') or (
            server_common.generate_password())
        return wsgi.json_response({'server': server}, status=202)

    _HANDLERS = {
        'os-stop': _stop,
        'os-start': _start,
        'reboot': _reboot,
        'rebuild': _rebuild,
        'lock': _lock,
        'unlock': _unlock,
        'createImage': _create_image,
    }
