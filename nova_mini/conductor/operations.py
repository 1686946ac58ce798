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

"""The work a nova-mini-conductor's workers do on a reserved node: call
its hardware, then record the outcome and release the node in one
UPDATE, whatever happened (Ironic's conductor's words for the failures).

Each function takes the Task (the node reserved, handed over by the
request that started the work) and the node's hardware object.
"""

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_mini.db import api as db_api
from nova_mini.objects.baremetal import allocation as allocation_obj
from nova_mini import states

LOG = logging.getLogger(__name__)

# The power targets whose reached state can be read before acting: a
# node already there is left alone, as Ironic's.
_STEADY = (states.POWER_ON, states.POWER_OFF)


def finish(task, values):
    """Release the task's node with values; if that write fails, the
    node is released all the same (its outcome is lost, and logged).
    """
    try:
        task.release(**values)
    except Exception:
        LOG.exception('Could not record the outcome %s of node %s; '
                      'releasing it', values, task.node.uuid)
        task.released = False
        task.release()


def change_power_state(task, hardware, target, timeout=None):
    """Bring the node to the power target (states.POWER_TARGETS)."""
    node = task.node
    reached = states.POWER_TARGETS[target]
    values = {'target_power_state': None}
    try:
        current = None
        if target in _STEADY:
            current = hardware.get_power_state(node)
        if current == reached:
            LOG.info('Node %s is already in power state %s', node.uuid,
                     reached)
        else:
            hardware.set_power_state(node, target, timeout=timeout)
        values.update(power_state=reached, last_error=None)
        LOG.info('Node %s power state is %s (%s)', node.uuid, reached,
                 target)
    except Exception as exc:
        LOG.warning('Power %s of node %s failed: %s', target, node.uuid,
                    exc)
        values['last_error'] = (
            "Failed to change power state to '%(target)s' by '%(new)s'. "
            "Error: %(error)s" % {'target': reached, 'new': target,
                                  'error': exc})
    finally:
        finish(task, values)


def verify(task, hardware):
    """manage of an enrolled node: validate its power and management
    and read its power state from the BMC; manageable, or back to
    enroll with the reason.
    """
    node = task.node
    now = timeutils.utcnow()
    values = {'provision_state': states.ENROLL,
              'target_provision_state': None, 'provision_updated_at': now}
    try:
        results = hardware.validate(node)
        for interface in ('power', 'management'):
            ok, reason = results.get(interface, (True, None))
            if not ok:
                values['last_error'] = (
                    'Failed to validate %(iface)s driver interface for '
                    'node %(node)s. Error: %(msg)s' % {
                        'iface': interface, 'node': node.uuid,
                        'msg': reason})
                return
        try:
            power = hardware.get_power_state(node)
        except Exception as exc:
            values['last_error'] = (
                'Failed to get power state for node %(node)s. Error: '
                '%(msg)s' % {'node': node.uuid, 'msg': exc})
            return
        values.update(provision_state=states.MANAGEABLE, power_state=power,
                      last_error=None)
    except Exception as exc:
        values['last_error'] = (
            'Failed to validate power driver interface for node %(node)s. '
            'Error: %(msg)s' % {'node': node.uuid, 'msg': exc})
    finally:
        if values.get('last_error'):
            LOG.warning('Node %s stays enrolled: %s', node.uuid,
                        values['last_error'])
        finish(task, values)


# Ironic's last_error of a failed adoption.
ADOPT_FAILED = 'Error while attempting to adopt node %(node)s: %(msg)s.'
# The interfaces an adoption validates, in this order.
ADOPT_VALIDATES = ('power', 'management', 'boot', 'deploy')


def adopt(task, hardware):
    """Adopt the node (take it over as deployed, as it is): validate its
    power, management, boot and deploy interfaces and read its power
    state from the BMC; ``active`` with that power state, or ``adopt
    failed`` with the reason and no power state (whatever was recorded
    is not to be trusted).
    """
    node = task.node
    values = {'provision_state': states.ADOPTFAIL,
              'target_provision_state': None, 'power_state': None}
    try:
        results = hardware.validate(node)
        for interface in ADOPT_VALIDATES:
            ok, reason = results.get(interface, (True, None))
            if not ok:
                raise _NotValid('Failed to validate %s driver interface: '
                                '%s' % (interface, reason))
        try:
            power = hardware.get_power_state(node)
        except Exception as exc:
            raise _NotValid('Failed to get power state: %s' % exc)
        values.update(provision_state=states.ACTIVE, power_state=power,
                      last_error=None)
        LOG.info('Node %s adopted, power state %s', node.uuid, power)
    except Exception as exc:
        values['last_error'] = ADOPT_FAILED % {
            'node': node.uuid, 'msg': str(exc).rstrip('.')}
        LOG.warning('%s', values['last_error'])
    finally:
        values['provision_updated_at'] = timeutils.utcnow()
        finish(task, values)


class _NotValid(Exception):
    """An adoption's reason to fail (its message is the reason)."""


def _url(value):
    if isinstance(value, str) and value.startswith(('http://', 'https://')):
        return value
    return None


def images_from_instance_info(context, node):
    """The ``(boot ISO URL, config drive URL)`` of a deploy as the node's
    instance_info gives them: ``boot_iso`` (else ``image_source``), and
    the config drive when it is a URL (None otherwise).
    """
    info = node.instance_info or {}
    return (info.get('boot_iso') or info.get('image_source'),
            _url(info.get('configdrive')))


def deploy(task, hardware, images=images_from_instance_info,
           clean_up=None):
    """Deploy the node for its instance: ``images(context, node)`` gives
    the boot ISO and config drive URLs its BMC loads; ``active`` and
    powered on, or ``deploy failed`` with the reason and
    ``clean_up(node)`` called (what ``images`` published is withdrawn).
    """
    node = task.node
    values = {'provision_state': states.DEPLOYFAIL,
              'target_provision_state': states.ACTIVE}
    try:
        boot_iso_url, configdrive_url = images(task.context, node)
        hardware.deploy(node, boot_iso_url, configdrive_url)
        values.update(provision_state=states.ACTIVE,
                      target_provision_state=None,
                      power_state=states.POWER_ON, last_error=None)
        LOG.info('Node %s deployed for instance %s', node.uuid,
                 node.instance_uuid)
    except Exception as exc:
        LOG.warning('Deploy of node %s failed: %s', node.uuid, exc)
        values['last_error'] = 'Failed to deploy: %s' % exc
        if clean_up is not None:
            _clean_up(clean_up, node)
    finally:
        values['provision_updated_at'] = timeutils.utcnow()
        finish(task, values)


def _clean_up(clean_up, node):
    try:
        clean_up(node)
    except Exception:
        LOG.exception('Could not withdraw the deploy images of node %s',
                      node.uuid)


@db_api.context_manager.writer
def _torn_down(context, task, values):
    # The allocation goes with the instance, as Ironic's tear down; in
    # the release's transaction, and only if the node was still ours.
    if task.release(**values):
        allocation_obj.destroy_of_node(context, task.node.id)


def no_clean_up(node):
    """A deploy that published nothing has nothing to withdraw."""


def tear_down(task, hardware, clean_up=no_clean_up):
    """Tear the node down: powered off, media ejected, ``available``
    without its instance; ``error`` with the reason if the hardware
    failed. ``clean_up(node)`` then withdraws what its deploy published
    (its images), whatever the outcome.
    """
    node = task.node
    now = timeutils.utcnow()
    try:
        try:
            hardware.tear_down(node)
        finally:
            _clean_up(clean_up, node)
    except Exception as exc:
        LOG.warning('Tear down of node %s failed: %s', node.uuid, exc)
        finish(task, {'provision_state': states.ERROR,
                      'target_provision_state': None,
                      'provision_updated_at': now,
                      'last_error': 'Failed to tear down. Error: %s' % exc})
        return
    values = {'provision_state': states.AVAILABLE,
              'target_provision_state': None, 'provision_updated_at': now,
              'power_state': states.POWER_OFF, 'last_error': None,
              'instance_uuid': None, 'instance_info': {}}
    given = (node.instance_info or {}).get('project_id')
    if given and node.lessee == given:
        values['lessee'] = None
    try:
        _torn_down(task.context, task, values)
    except Exception:
        LOG.exception('Could not record the tear down of node %s; '
                      'releasing it', node.uuid)
        task.released = False
        task.release()
    else:
        LOG.info('Node %s torn down', node.uuid)
