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
accepts is listed back and can be detached. Each change is
node_power.change_internal_info's locked read and write, so that
concurrent attachments are all kept.
"""

from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import node_power
from nova_mini.objects import base

VIFS_KEY = 'vifs'


def vif_list(node):
    """The VIFs attached to ``node``, as ``[{"id": ...}, ...]``."""
    return [dict(vif) for vif in
            (node.driver_internal_info or {}).get(VIFS_KEY) or []]


def attach(context, node, vif_id):
    """Attach VIF ``vif_id`` to ``node``.

    :raises nova_mini.exception_baremetal.VifAlreadyAttached: it is attached already.
    :raises nova_mini.exception_baremetal.NodeNotFound: the node is gone.
    """
    def _attach(info):
        vifs = list(info.get(VIFS_KEY) or [])
        if any(vif['id'] == vif_id for vif in vifs):
            raise exception_baremetal.VifAlreadyAttached(vif=vif_id, node=node.uuid)
        changed = dict(info, **{VIFS_KEY: vifs + [{'id': vif_id}]})
        # Written below the object's save(): the bound of every JSON
        # document (some 1,300 VIFs of uuids) is checked here.
        base.check_document_size('Node', 'driver_internal_info', changed)
        return changed

    node_power.change_internal_info(context, node, _attach)


def detach(context, node, vif_id):
    """Detach VIF ``vif_id`` from ``node`` (nothing changes if it is not
    attached).

    :raises nova_mini.exception_baremetal.NodeNotFound: the node is gone.
    """
    def _detach(info):
        vifs = list(info.get(VIFS_KEY) or [])
        kept = [vif for vif in vifs if vif['id'] != vif_id]
        if len(kept) == len(vifs):
            return None
        return dict(info, **{VIFS_KEY: kept})

    node_power.change_internal_info(context, node, _detach)
