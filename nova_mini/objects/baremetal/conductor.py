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

"""The conductors registry: the hosts whose services do the bare-metal
conductors' work (Ironic's conductors table, API 1.49).

nova_mini has no conductor daemon: each nova-mini-api service drives the
nodes in its requests. Its master process registers ``[DEFAULT] host``
when it starts, refreshes the row every ``[conductor]
heartbeat_interval`` seconds and marks it offline when it stops cleanly
(see nova_mini.conductor_heartbeat). A conductor is alive while it is
online and its last refresh is younger than ``[conductor]
heartbeat_timeout`` (a service killed without stopping is not alive once
that has passed), as Ironic's.

The alive conductors are what the API shows as the nodes' ``conductor``
and the drivers' ``hosts``.
"""

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import utils as sqlalchemyutils
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_mini import conf
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import node_interfaces

# nova_mini's services drive every node, whatever its conductor_group:
# they register in the default group.
CONDUCTOR_GROUP = ''
DRIVERS = [node_interfaces.FAKE_HARDWARE]
# Ironic sorts by any column but ``alive`` and ``drivers``.
SORT_KEYS = ('id', 'hostname', 'conductor_group', 'created_at',
             'updated_at')
SORT_DIRS = ('asc', 'desc')


def is_alive(row):
    """Return whether the conductor ``row`` is online and recently
    refreshed.
    """
    return bool(row.online) and row.updated_at is not None and \
        not timeutils.is_older_than(row.updated_at,
                                    conf.CONF.conductor.heartbeat_timeout)


def _register(session, hostname):
    now = timeutils.utcnow()
    values = {'online': True, 'updated_at': now, 'drivers': list(DRIVERS),
              'conductor_group': CONDUCTOR_GROUP}
    row = session.query(models.Conductor).filter_by(
        hostname=hostname).first()
    if row is None:
        row = models.Conductor(hostname=hostname, created_at=now, **values)
        session.add(row)
    else:
        for name, value in values.items():
            setattr(row, name, value)
    session.flush()


def register(session, hostname):
    """Record ``hostname`` as an online conductor, refreshed now (its row
    is created, or brought back online).

    :param session: a session in a transaction.
    :param hostname: the service's host (``[DEFAULT] host``).
    """
    try:
        with session.begin_nested():
            _register(session, hostname)
    except (db_exc.DBDuplicateEntry, sa.exc.IntegrityError):
        # Another process of the same host created it meanwhile.
        _register(session, hostname)


def heartbeat(session, hostname):
    """Refresh the row of ``hostname``, registering it again if it is
    gone.

    :param session: a session in a transaction.
    """
    if not session.query(models.Conductor).filter_by(
            hostname=hostname).update({'online': True,
                                       'updated_at': timeutils.utcnow()},
                                      synchronize_session=False):
        register(session, hostname)


def unregister(session, hostname):
    """Mark ``hostname`` offline (its row stays, not alive), as a
    conductor stopping cleanly.

    :param session: a session in a transaction.
    """
    session.query(models.Conductor).filter_by(hostname=hostname).update(
        {'online': False}, synchronize_session=False)


@db_api.context_manager.writer
def register_host(context, hostname):
    """``register`` in a transaction of the request context's database.
    """
    register(context.session, hostname)


def _get(session, hostname):
    row = session.query(models.Conductor).filter_by(
        hostname=hostname).first()
    if row is None:
        raise exception_baremetal.ConductorNotFound(conductor=hostname)
    return row


@db_api.context_manager.reader
def get(context, hostname):
    """Return the conductor row of ``hostname``, online or not.

    :raises nova_mini.exception_baremetal.ConductorNotFound: no such conductor.
    """
    return _get(context.session, hostname)


@db_api.context_manager.reader
def get_all(context, sort_key='id', sort_dir='asc', limit=None,
            marker=None):
    """Return a page of conductor rows, online or not.

    :param sort_key: one of SORT_KEYS (ties go by id).
    :param sort_dir: one of SORT_DIRS.
    :param limit: the most returned (None: all).
    :param marker: the hostname of the conductor the page follows.
    :raises nova_mini.exception.InvalidSortKey: not a sort key.
    :raises nova_mini.exception.Invalid: not a sort direction.
    :raises nova_mini.exception_baremetal.ConductorNotFound: the marker is no
        conductor's hostname.
    """
    if sort_key not in SORT_KEYS:
        raise exception.InvalidSortKey(sort_key=sort_key)
    if sort_dir not in SORT_DIRS:
        raise exception.Invalid(
            "Invalid sort direction: %s. Acceptable values are 'asc' or "
            "'desc'." % sort_dir)
    marker_row = None if marker is None else _get(context.session, marker)
    keys = [sort_key] if sort_key == 'id' else [sort_key, 'id']
    return sqlalchemyutils.paginate_query(
        context.session.query(models.Conductor), models.Conductor, limit,
        keys, marker=marker_row, sort_dir=sort_dir).all()


@db_api.context_manager.reader
def alive_hostnames(context, driver=None):
    """Return the hostnames of the alive conductors, sorted.

    :param driver: only those driving this hardware type, if given.
    """
    return sorted(row.hostname for row in
                  context.session.query(models.Conductor).filter_by(
                      online=True)
                  if is_alive(row) and (driver is None or
                                        driver in (row.drivers or [])))


def conductor_for(node_id, hostnames):
    """Return the conductor of the node of id ``node_id`` among the alive
    ``hostnames`` (sorted), or None if none is alive.

    Every service picks the same one for a node, as Ironic's hash ring
    maps each node to one conductor: the node's id modulo their number
    (which the ``conductor`` filter of node lists asks the database, see
    objects.baremetal.node_filters).
    """
    if not hostnames:
        return None
    return hostnames[node_id % len(hostnames)]


def slot_of(hostname, hostnames):
    """Return the ``conductor_slot`` node filter of the nodes of
    ``hostname`` among the alive ``hostnames`` (sorted), or None if it is
    not alive (it has no node).
    """
    if hostname not in hostnames:
        return None
    return hostnames.index(hostname), len(hostnames)
