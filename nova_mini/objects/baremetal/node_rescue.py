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

"""What rescue, unrescue and abort write on a node besides its state, as
Ironic's conductor does with fake-hardware (whose rescue interface is done
at once): objects.baremetal.node_provision applies it in the transaction of the
move.

* rescue: the password is kept where Ironic keeps it, in
  ``instance_info``: ``rescue_password`` as given and
  ``hashed_rescue_password`` (SHA-256 crypt, Ironic's default); both are
  masked in node bodies. A ramdisk agent's token and URL
  (``driver_internal_info``) are forgotten: the rescue ramdisk gets new
  ones. A node in maintenance is refused, and so is one whose
  ``rescue_interface`` is ``no-rescue``.
* unrescue: the agent's token and URL are forgotten; the password stays
  (Ironic's fake interface leaves it; a tear down clears
  ``instance_info``). With ``no-rescue`` the node ends in
  ``unrescue failed`` with Ironic's ``last_error`` (its target still
  ``active``, as Ironic shows a failed state).
* abort (of ``rescue wait``): the password and the agent's URL go; the
  node is in ``rescue failed``, its target still ``rescue``.
* undeploy: the agent's token and URL go, as Ironic's tear down wipes
  them.
"""

from oslo_utils import secretutils

from nova_mini import exception_baremetal
from nova_mini import states

# driver_internal_info keys of a ramdisk's agent (see api.baremetal.ramdisk).
AGENT_TOKEN = 'agent_secret_token'
AGENT_URL = 'agent_url'
AGENT_KEYS = (AGENT_TOKEN, 'agent_secret_token_pregenerated', AGENT_URL,
              'agent_verify_ca')
PASSWORD = 'rescue_password'
PASSWORD_KEYS = (PASSWORD, 'hashed_rescue_password')
# The rescue interface that rescues nothing.
NO_RESCUE = 'no-rescue'


def hash_password(password):
    """Return ``password`` hashed as Ironic hashes a rescue password
    (``$5$<salt>$<hash>``, SHA-256 crypt).
    """
    return secretutils.crypt_password(
        password, secretutils.crypt_mksalt('SHA-256'))


def _without(info, keys):
    return {key: value for key, value in (info or {}).items()
            if key not in keys}


def _unsupported(driver):
    return ('Driver %s does not support rescue (disabled or not '
            'implemented).' % driver)


def changes(row, node_uuid, action, rescue_password=None):
    """Return the column values ``action`` writes besides the move (see the
    module), or raise why it may not happen.

    :param row: the node's row after the move: ``provision_state``,
        ``maintenance``,
        ``instance_uuid``, ``instance_info``, ``driver``,
        ``rescue_interface``, ``driver_internal_info``.
    :param node_uuid: the node's uuid, for messages.
    :param action: a states.TRANSITIONS key.
    :param rescue_password: the password of a rescue.
    :returns: a dict of column values (maybe empty).
    :raises nova_mini.exception_baremetal.NodeInMaintenance: a rescue or unrescue
        of a node in maintenance.
    :raises nova_mini.exception_baremetal.InstanceRescueFailure: a rescue with
        ``no-rescue``.
    """
    dii = row.driver_internal_info
    if action in (states.RESCUE_TARGET, states.UNRESCUE) and \
            row.maintenance:
        raise exception_baremetal.NodeInMaintenance(action=action, node=node_uuid)
    if action == states.RESCUE_TARGET:
        if row.rescue_interface == NO_RESCUE:
            raise exception_baremetal.InstanceRescueFailure(
                instance=row.instance_uuid, node=node_uuid,
                reason='Validation failed: %s' % _unsupported(row.driver))
        info = dict(row.instance_info or {})
        info[PASSWORD] = rescue_password
        info['hashed_rescue_password'] = hash_password(rescue_password)
        return {'instance_info': info,
                'driver_internal_info': _without(dii, AGENT_KEYS)}
    if action == states.UNRESCUE:
        if row.rescue_interface == NO_RESCUE:
            # A failed state keeps the target it failed to reach, as
            # Ironic's state machine shows it.
            return {'provision_state': states.UNRESCUEFAIL,
                    'target_provision_state': states.ACTIVE,
                    'last_error': 'Failed to unrescue: %s'
                                  % _unsupported(row.driver),
                    'driver_internal_info': _without(dii, (AGENT_URL,))}
        return {'driver_internal_info': _without(dii, AGENT_KEYS)}
    if action == states.ABORT and \
            row.provision_state == states.RESCUEFAIL:
        return {'instance_info': _without(row.instance_info, PASSWORD_KEYS),
                'driver_internal_info': _without(dii, (AGENT_URL,)),
                'target_provision_state': states.RESCUE}
    if action == states.UNDEPLOY:
        return {'driver_internal_info': _without(dii, AGENT_KEYS)}
    return {}
