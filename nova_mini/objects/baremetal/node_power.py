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

"""What the fake hardware of a node does at once: power, console and
boot device (Ironic's fake power, console and management interfaces).

A power change is complete when it is stored (no target power state is
left behind), a console is enabled by storing that it is, and the boot
device set is kept in the node's ``driver_internal_info`` (so that the
next read shows what was set, where Ironic's fake management always
answers PXE).
"""

from oslo_utils import timeutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception_baremetal
from nova_mini import states


BOOT_DEVICE_KEY = 'boot_device'
# The boot devices of fake hardware: PXE only, as Ironic's.
SUPPORTED_BOOT_DEVICES = ('pxe',)
DEFAULT_BOOT_DEVICE = {'boot_device': 'pxe', 'persistent': False}

_NODES = models.Node.__table__


@db_api.context_manager.writer
def _store(context, node_id, node_ident, values):
    values['updated_at'] = timeutils.utcnow()
    if not context.session.execute(_NODES.update().where(
            _NODES.c.id == node_id).values(**values)).rowcount:
        raise exception_baremetal.NodeNotFound(node=node_ident)
    return values


def set_power_state(context, node, target):
    """Power ``node`` on, off or reboot it (``target``, one of
    states.POWER_TARGETS).

    :param context: the request context.
    :param node: the Node; its fields are updated.
    :raises nova_mini.exception_baremetal.InvalidStateRequested: not a target.
    :raises nova_mini.exception_baremetal.NodeNotFound: the node is gone.
    """
    if target not in states.POWER_TARGETS:
        raise exception_baremetal.InvalidStateRequested(
            action=target, node=node.uuid, state=node.power_state)
    values = _store(context, node.id, node.uuid,
                    {'power_state': states.POWER_TARGETS[target],
                     'target_power_state': None})
    _apply(node, values)


def set_console(context, node, enabled):
    """Enable or disable the (fake) serial console of ``node``.

    :param context: the request context.
    :param node: the Node; its fields are updated.
    :param enabled: a bool.
    :raises nova_mini.exception_baremetal.NodeNotFound: the node is gone.
    """
    _apply(node, _store(context, node.id, node.uuid,
                        {'console_enabled': bool(enabled)}))


def get_boot_device(node):
    """Return ``{'boot_device': ..., 'persistent': bool}`` of ``node``:
    the one last set, else PXE (not persistent).
    """
    info = node.driver_internal_info or {}
    return dict(info.get(BOOT_DEVICE_KEY) or DEFAULT_BOOT_DEVICE)


def set_boot_device(context, node, device, persistent=False):
    """Set the boot device of ``node`` (for the next boot, or for every
    boot if ``persistent``).

    :param context: the request context.
    :param node: the Node; its fields are updated.
    :param device: a boot device name.
    :param persistent: a bool.
    :raises nova_mini.exception_baremetal.InvalidBootDevice: not one of
        SUPPORTED_BOOT_DEVICES.
    :raises nova_mini.exception_baremetal.NodeNotFound: the node is gone.
    """
    if device not in SUPPORTED_BOOT_DEVICES:
        raise exception_baremetal.InvalidBootDevice(
            device=device, supported=', '.join(SUPPORTED_BOOT_DEVICES))
    store_internal_info(context, node, BOOT_DEVICE_KEY,
                        {'boot_device': device,
                         'persistent': bool(persistent)})


def store_internal_info(context, node, key, value):
    """Keep ``value`` as ``key`` of the node's ``driver_internal_info``.

    :param context: the request context.
    :param node: the Node; its fields are updated.
    :raises nova_mini.exception_baremetal.NodeNotFound: the node is gone.
    """
    change_internal_info(context, node, lambda info: dict(info, **{key: value}))


@db_api.context_manager.writer
def change_internal_info(context, node, change):
    """Change the node's ``driver_internal_info`` as stored now, its row
    locked from the read to the write, so that concurrent changes of
    other keys (or of the same one) are all kept.

    :param context: the request context.
    :param node: the Node; its fields are updated.
    :param change: called with a copy of the stored document; returns the
        new document, or None to write nothing. What it raises is raised.
    :raises nova_mini.exception_baremetal.NodeNotFound: the node is gone.
    """
    row = context.session.execute(
        sa.select(_NODES.c.driver_internal_info)
        .where(_NODES.c.id == node.id).with_for_update()).first()
    if row is None:
        raise exception_baremetal.NodeNotFound(node=node.uuid)
    info = change(dict(row.driver_internal_info or {}))
    if info is not None:
        _apply(node, _store(context, node.id, node.uuid,
                            {'driver_internal_info': info}))


def _apply(node, values):
    for name, value in values.items():
        setattr(node, name, value)
    node.obj_reset_changes(list(values))
