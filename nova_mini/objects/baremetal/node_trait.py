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

"""NodeTrait and NodeTraitList: the traits of a bare-metal node.

At most ``MAX_TRAITS_PER_NODE`` traits per node, however many API workers
write at once: every write first updates the node's row, which takes the
row lock (PostgreSQL, MySQL) or the database write lock (SQLite) before
anything is read, so the count and the change happen in a transaction no
other trait write can interleave with.
"""

from oslo_utils import timeutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception_baremetal
from nova_mini.objects import base
from nova_mini.objects import fields

# The limit of the placement API, which the traits are copied to.
MAX_TRAITS_PER_NODE = 50

_NODES = models.Node.__table__
_TRAITS = models.NodeTrait.__table__


def _lock_node(context, node_id, node_ident):
    """Lock the node's row for the rest of the transaction.

    NOTE: this must be the transaction's first statement. On SQLite (WAL)
    a transaction that read first and then writes fails at once with
    SQLITE_BUSY when another writer committed meanwhile; one that starts
    with a write waits for the lock (busy_timeout) instead.
    """
    count = context.session.execute(
        _NODES.update().where(_NODES.c.id == node_id).values(
            updated_at=timeutils.utcnow())).rowcount
    if not count:
        raise exception_baremetal.NodeNotFound(node=node_ident)


def _names(context, node_id):
    return [trait for trait, in context.session.execute(
        sa.select(_TRAITS.c.trait).where(
            _TRAITS.c.node_id == node_id).order_by(_TRAITS.c.trait))]


def _check_limit(node_ident, count):
    if count > MAX_TRAITS_PER_NODE:
        raise exception_baremetal.TooManyTraits(node=node_ident, count=count,
                                                limit=MAX_TRAITS_PER_NODE)


@db_api.context_manager.writer
def _add(context, node_id, node_ident, trait):
    _lock_node(context, node_id, node_ident)
    names = _names(context, node_id)
    if trait in names:
        return names
    _check_limit(node_ident, len(names) + 1)
    now = timeutils.utcnow()
    context.session.execute(_TRAITS.insert().values(
        node_id=node_id, trait=trait, created_at=now))
    return sorted(names + [trait])


@db_api.context_manager.writer
def _replace(context, node_id, node_ident, traits):
    _lock_node(context, node_id, node_ident)
    context.session.execute(_TRAITS.delete().where(
        _TRAITS.c.node_id == node_id))
    if traits:
        now = timeutils.utcnow()
        context.session.execute(_TRAITS.insert(), [
            {'node_id': node_id, 'trait': trait, 'created_at': now}
            for trait in traits])


@db_api.context_manager.writer
def _remove(context, node_id, node_ident, trait):
    _lock_node(context, node_id, node_ident)
    count = context.session.execute(_TRAITS.delete().where(
        _TRAITS.c.node_id == node_id, _TRAITS.c.trait == trait)).rowcount
    if not count:
        raise exception_baremetal.NodeTraitNotFound(node=node_ident, trait=trait)


@db_api.context_manager.reader
def _get_names(context, node_id):
    return _names(context, node_id)


@db_api.context_manager.reader
def get_names_by_node_ids(context, node_ids):
    """Read the traits of nodes, in one query per 500 nodes (node lists
    load their traits this way, not node by node).

    :param context: the request context.
    :param node_ids: the nodes' ids.
    :returns: ``{node id: [trait, ...]}``, traits sorted.
    """
    traits = {node_id: [] for node_id in node_ids}
    ids = list(traits)
    for start in range(0, len(ids), 500):
        rows = context.session.execute(
            sa.select(_TRAITS.c.node_id, _TRAITS.c.trait).where(
                _TRAITS.c.node_id.in_(ids[start:start + 500])).order_by(
                    _TRAITS.c.node_id, _TRAITS.c.trait))
        for node_id, trait in rows:
            traits[node_id].append(trait)
    return traits


@base.NovaMiniObjectRegistry.register
class NodeTrait(base.NovaMiniPersistentObject, base.NovaMiniObject):
    """One trait of one node."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'node_id': fields.IntegerField(),
        'trait': fields.StringField(),
    }

    def create(self, node_ident=None):
        """Add the trait to the node; adding a trait it has changes nothing.

        :param node_ident: how errors name the node (default: its id).
        :raises nova_mini.exception_baremetal.TooManyTraits: past the limit.
        :raises nova_mini.exception_baremetal.NodeNotFound: the node is gone.
        """
        _add(self._context, self.node_id, node_ident or self.node_id,
             self.trait)
        self.obj_reset_changes()

    @classmethod
    def destroy(cls, context, node_id, trait, node_ident=None):
        """Remove ``trait`` from the node.

        :param context: the request context.
        :param node_id: the node's id.
        :param trait: the trait's name.
        :param node_ident: how errors name the node (default: its id).
        :raises nova_mini.exception_baremetal.NodeTraitNotFound: the node lacks it.
        :raises nova_mini.exception_baremetal.NodeNotFound: the node is gone.
        """
        _remove(context, node_id, node_ident or node_id, trait)


@base.NovaMiniObjectRegistry.register
class NodeTraitList(base.ObjectListBase, base.NovaMiniObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('NodeTrait'),
    }

    @classmethod
    def _from_names(cls, context, node_id, names):
        result = cls(context)
        result.objects = [NodeTrait(context, node_id=node_id, trait=name)
                          for name in names]
        for trait in result.objects:
            trait.obj_reset_changes()
        result.obj_reset_changes()
        return result

    @classmethod
    def get_by_node_id(cls, context, node_id):
        """Load the traits of node ``node_id``, sorted by name."""
        return cls._from_names(context, node_id,
                               _get_names(context, node_id))

    @classmethod
    def create(cls, context, node_id, traits, node_ident=None):
        """Replace the node's traits with ``traits``, all or nothing.

        :param context: the request context.
        :param node_id: the node's id.
        :param traits: the trait names (duplicates are dropped).
        :param node_ident: how errors name the node (default: its id).
        :returns: the new NodeTraitList.
        :raises nova_mini.exception_baremetal.TooManyTraits: past the limit; nothing
            changes.
        :raises nova_mini.exception_baremetal.NodeNotFound: the node is gone.
        """
        names = sorted(set(traits))
        _check_limit(node_ident or node_id, len(names))
        _replace(context, node_id, node_ident or node_id, names)
        return cls._from_names(context, node_id, names)

    @classmethod
    def destroy(cls, context, node_id, node_ident=None):
        """Remove every trait of the node.

        :param context: the request context.
        :param node_id: the node's id.
        :param node_ident: how errors name the node (default: its id).
        :raises nova_mini.exception_baremetal.NodeNotFound: the node is gone.
        """
        _replace(context, node_id, node_ident or node_id, [])

    def get_trait_names(self):
        """Return the names of the traits, in the list's order."""
        return [trait.trait for trait in self.objects]


@db_api.context_manager.reader
def stored_trait_names(context):
    """Every distinct trait name stored on any node, with how many nodes
    carry it, as ``{trait: count}`` (for ``nova-mini-status``).
    """
    query = sa.select(_TRAITS.c.trait, sa.func.count()).group_by(
        _TRAITS.c.trait)
    return dict(context.session.execute(query).all())
