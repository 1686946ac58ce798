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

"""The VIFs attached to a node through its ``noop`` network interface.

There is no networking service, so nothing is plugged; the attachment is
kept on the node (``driver_internal_info['vifs']``, a list of
``{"id": ...}`` in the order they were attached) so that what the API
accepts is listed back and can be detached. Each change reads and
writes the list in one write transaction, the node's row locked, so that
concurrent attachments are all kept.
"""

import sqlalchemy as sa

from oslo_utils import timeutils

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception

VIFS_KEY = 'vifs'
_NODES = models.Node.__table__


def vif_list(node):
    """The VIFs attached to ``node``, as ``[{"id": ...}, ...]``."""
    return [dict(vif) for vif in
            (node.driver_internal_info or {}).get(VIFS_KEY) or []]


def _locked_info(context, node):
    row = context.session.execute(
        sa.select(_NODES.c.driver_internal_info)
        .where(_NODES.c.id == node.id).with_for_update()).first()
    if row is None:
        raise exception.NodeNotFound(node=node.uuid)
    return dict(row.driver_internal_info or {})


def _write(context, node, info):
    context.session.execute(_NODES.update().where(
        _NODES.c.id == node.id).values(driver_internal_info=info,
                                       updated_at=timeutils.utcnow()))
    node.driver_internal_info = info
    node.obj_reset_changes(['driver_internal_info'])


@db_api.context_manager.writer
def attach(context, node, vif_id):
    """Attach VIF ``vif_id`` to ``node``.

    :raises nova_mini.exception.VifAlreadyAttached: it is attached already.
    :raises nova_mini.exception.NodeNotFound: the node is gone.
    """
    info = _locked_info(context, node)
    vifs = list(info.get(VIFS_KEY) or [])
    if any(vif['id'] == vif_id for vif in vifs):
        raise exception.VifAlreadyAttached(vif=vif_id, node=node.uuid)
    info[VIFS_KEY] = vifs + [{'id': vif_id}]
    _write(context, node, info)


@db_api.context_manager.writer
def detach(context, node, vif_id):
    """Detach VIF ``vif_id`` from ``node``; whether it was attached.

    :raises nova_mini.exception.NodeNotFound: the node is gone.
    """
    info = _locked_info(context, node)
    vifs = list(info.get(VIFS_KEY) or [])
    kept = [vif for vif in vifs if vif['id'] != vif_id]
    if len(kept) == len(vifs):
        return False
    info[VIFS_KEY] = kept
    _write(context, node, info)
    return True
