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

"""The BIOS settings of a node (Ironic's bios_settings), as the fake BIOS
interface's clean steps leave them: ``apply_configuration`` makes the
settings given the node's whole set (new names created, changed values
updated, names left out deleted, unchanged ones untouched, as Ironic's
``BIOSSettingList.sync_node_setting``), ``factory_reset`` deletes them
all. GET /nodes/{node}/bios serves them (api/baremetal/node_bios.py).

The writes run in the transaction of a cleaning, which holds the node's
row locked (objects/baremetal/node_provision.py): no two cleanings of a node
interleave.
"""

from oslo_utils import timeutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models

_SETTINGS = models.BIOSSetting.__table__


def _current(context, node_id):
    return {row.name: row.value for row in context.session.execute(
        sa.select(_SETTINGS.c.name, _SETTINGS.c.value).where(
            _SETTINGS.c.node_id == node_id))}


def apply(context, node_id, settings):
    """Make ``settings`` the node's BIOS settings, in the caller's writer
    transaction.

    :param node_id: the node's id.
    :param settings: a list of ``{'name': text, 'value': text or None}``,
        names unique (clean_steps checks them).
    """
    current = _current(context, node_id)
    now = timeutils.utcnow()
    given = {setting['name']: setting['value'] for setting in settings}
    gone = sorted(set(current) - set(given))
    if gone:
        context.session.execute(_SETTINGS.delete().where(
            _SETTINGS.c.node_id == node_id, _SETTINGS.c.name.in_(gone)))
    new = [{'node_id': node_id, 'name': name, 'value': value,
            'created_at': now}
           for name, value in given.items() if name not in current]
    if new:
        context.session.execute(_SETTINGS.insert(), new)
    for name, value in given.items():
        if name in current and current[name] != value:
            context.session.execute(_SETTINGS.update().where(
                _SETTINGS.c.node_id == node_id,
                _SETTINGS.c.name == name).values(value=value,
                                                 updated_at=now))


def destroy_of_node(context, node_id):
    """Delete every BIOS setting of node ``node_id``, in the caller's
    writer transaction (a factory reset, or the node being deleted).
    """
    context.session.execute(_SETTINGS.delete().where(
        _SETTINGS.c.node_id == node_id))


@db_api.context_manager.reader
def get_all(context, node_id):
    """Return the node's BIOS settings, by name: rows with ``name``,
    ``value``, ``created_at`` and ``updated_at``.
    """
    return context.session.execute(sa.select(
        _SETTINGS.c.name, _SETTINGS.c.value, _SETTINGS.c.created_at,
        _SETTINGS.c.updated_at).where(
            _SETTINGS.c.node_id == node_id).order_by(
                _SETTINGS.c.name)).all()


@db_api.context_manager.reader
def get(context, node_id, name):
    """Return the node's BIOS setting ``name`` (a row as get_all's), or
    None.
    """
    return context.session.execute(sa.select(
        _SETTINGS.c.name, _SETTINGS.c.value, _SETTINGS.c.created_at,
        _SETTINGS.c.updated_at).where(
            _SETTINGS.c.node_id == node_id,
            _SETTINGS.c.name == name)).first()
