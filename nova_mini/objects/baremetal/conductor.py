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

Each nova-mini-api service drives the fake-hardware nodes in its
requests, and registers for ``fake-hardware``; each nova-mini-conductor
drives the nodes of the real hardware types it enables (``[DEFAULT]
enabled_hardware_types``: redfish) and registers for those. Each service
registers ``[DEFAULT] host`` when it starts (refused while the row is
alive for the other kind of service: nova-mini-api and a
nova-mini-conductor never share a host, or one's heartbeat would keep
the other alive after it was killed), refreshes the row every
``[conductor] heartbeat_interval`` seconds and marks it offline when it
stops cleanly (see nova_mini.conductor_heartbeat). A conductor is alive while it is
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


def api_drivers():
    """The hardware types nova-mini-api registers for: those of DRIVERS
    that ``[DEFAULT] enabled_hardware_types`` enables (Ironic's option:
    a hardware type no service enables is driven by none, and its nodes
    are refused).
    """
    enabled = conf.CONF.enabled_hardware_types
    return [driver for driver in DRIVERS if driver in enabled]


def is_alive(row):
    """Return whether the conductor ``row`` is online and recently
    refreshed.
    """
    return bool(row.online) and row.updated_at is not None and \
        not timeutils.is_older_than(row.updated_at,
                                    conf.CONF.conductor.heartbeat_timeout)


def _api_kind(drivers):
    """Whether ``drivers`` are those of nova-mini-api (fake-hardware, or
    none when enabled_hardware_types disables it), not of a
    nova-mini-conductor (which drives one real hardware type at least).
    """
    return not drivers or bool(set(drivers) & set(DRIVERS))


def _check_kind(row, hostname, drivers):
    """Refuse ``drivers`` for the alive ``row`` of another kind of
    service: its heartbeat would keep the row alive for both, and the
    reservations of a killed nova-mini-conductor would never be taken
    over.

    :raises ConductorAlreadyRegistered: the row is alive and held by a
        service of the other kind.
    """
    if is_alive(row) and _api_kind(row.drivers) != _api_kind(drivers):
        raise exception_baremetal.ConductorAlreadyRegistered(
            conductor=hostname, drivers=', '.join(sorted(row.drivers)))


def _register(session, hostname, drivers):
    now = timeutils.utcnow()
    registered = list(drivers)
    row = session.query(models.Conductor).filter_by(
        hostname=hostname).with_for_update().first()
    if row is not None and is_alive(row):
        _check_kind(row, hostname, drivers)
        # Another process of the same service (several nova-mini-api
        # masters, or uwsgi's processes) keeps its own.
        drivers = sorted(set(row.drivers or []) | set(drivers))
    values = {'online': True, 'updated_at': now, 'drivers': list(drivers),
              'conductor_group': CONDUCTOR_GROUP}
    if row is None:
        row = models.Conductor(hostname=hostname, created_at=now, **values)
        session.add(row)
    else:
        for name, value in values.items():
            setattr(row, name, value)
    session.flush()
    _register_interfaces(session, row.id, registered, drivers, now)


def enabled_interfaces(hardware_types):
    """Yield ``(hardware type, interface type, implementation, default)``
    for what this service's configuration enables of ``hardware_types``
    (see node_interfaces: ``[DEFAULT] enabled_<type>_interfaces`` and
    ``default_<type>_interface``), as Ironic's conductor registers it.
    An interface type with no valid default has no default row.
    """
    for driver in hardware_types:
        if driver not in node_interfaces.HARDWARE_TYPES:
            continue
        for kind in node_interfaces.TYPES:
            try:
                default = node_interfaces.default(driver, kind)
            except exception.Invalid:
                default = None
            for name in node_interfaces.enabled_supported(driver, kind):
                yield driver, kind, name, name == default


def _register_interfaces(session, conductor_id, registered, drivers, now):
    """Make, in the caller's transaction, the interface rows of the
    conductor of id ``conductor_id`` for the hardware types it
    ``registered`` now those of this configuration, and drop those of
    any hardware type no longer among its ``drivers`` (a service that
    started again with other options).

    The rows that stay are left as they are and the others are deleted by
    their primary key: the conductor's row is locked by the caller, and a
    conductor re-registering touches no index range another one's rows
    are in (no gap locks to deadlock on).
    """
    table = models.ConductorHardwareInterface
    wanted = {(driver, kind, name): default for driver, kind, name, default
              in enabled_interfaces(registered)}
    for row in session.query(table).filter(
            table.conductor_id == conductor_id).order_by(table.id):
        key = (row.hardware_type, row.interface_type, row.interface_name)
        if key in wanted:
            default = wanted.pop(key)
            if bool(row.default) != default:
                row.default = default
                row.updated_at = now
        elif row.hardware_type in registered or \
                row.hardware_type not in drivers:
            session.delete(row)
    for (driver, kind, name), default in sorted(wanted.items()):
        session.add(table(conductor_id=conductor_id, hardware_type=driver,
                          interface_type=kind, interface_name=name,
                          default=default, created_at=now))
    session.flush()


# MariaDB's and MySQL's ER_SP_DOES_NOT_EXIST.
_SAVEPOINT_GONE = 1305


def register(session, hostname, drivers=None):
    """Record ``hostname`` as an online conductor of ``drivers``,
    refreshed now (its row is created, or brought back online).

    :param session: a session in a transaction.
    :param hostname: the service's host (``[DEFAULT] host``).
    :param drivers: the hardware types it drives (None: api_drivers(),
        those of nova-mini-api). A row still alive keeps the drivers it
        has too (another process of the same service).
    :raises ConductorAlreadyRegistered: the row is alive and held by the
        other kind of service (nova-mini-api and nova-mini-conductor
        never share a host).
    """
    drivers = api_drivers() if drivers is None else drivers
    try:
        with session.begin_nested():
            _register(session, hostname, drivers)
    except (db_exc.DBDuplicateEntry, sa.exc.IntegrityError):
        # Another process of the same host created it meanwhile.
        _register(session, hostname, drivers)
    except sa.exc.OperationalError as exc:
        # MariaDB and MySQL: a deadlock inside the savepoint rolled the
        # whole transaction back, savepoint included, and rolling back to
        # it fails (1305) in place of the deadlock: a deadlock all the
        # same, which the writer retries whole.
        code = exc.orig.args[0] if getattr(exc.orig, 'args', None) else None
        if code == _SAVEPOINT_GONE:
            raise db_exc.DBDeadlock(exc) from exc
        raise


def heartbeat(session, hostname, drivers=None):
    """Refresh the row of ``hostname``, registering it again (with
    ``drivers``, see register) if it is gone or no longer alive.

    :param session: a session in a transaction.
    :raises ConductorAlreadyRegistered: the row is alive and held by the
        other kind of service: it is left as it is.
    """
    drivers = api_drivers() if drivers is None else drivers
    row = session.query(models.Conductor).filter_by(
        hostname=hostname).with_for_update().first()
    if row is None or not is_alive(row):
        register(session, hostname, drivers)
        return
    _check_kind(row, hostname, drivers)
    row.online = True
    row.updated_at = timeutils.utcnow()
    session.flush()


def _delete_interfaces(session, conductor_id, hardware_types=None):
    """Delete the interface rows of the conductor of id ``conductor_id``
    (those of ``hardware_types`` only, if given), by their primary key
    (see _register_interfaces).
    """
    table = models.ConductorHardwareInterface
    query = session.query(table.id).filter(table.conductor_id == conductor_id)
    if hardware_types is not None:
        query = query.filter(table.hardware_type.in_(list(hardware_types)))
    ids = [row.id for row in query]
    if ids:
        session.query(table).filter(table.id.in_(ids)).delete(
            synchronize_session=False)


def unregister(session, hostname, drivers=None):
    """Mark ``hostname`` offline (its row stays, not alive; its interface
    rows are deleted), as a conductor stopping cleanly; or, given
    ``drivers``, only withdraw those and their interface rows while the
    row has others (another service of the host still runs).

    :param session: a session in a transaction.
    """
    row = session.query(models.Conductor).filter_by(
        hostname=hostname).with_for_update().first()
    if row is None:
        return
    if drivers is not None:
        remaining = [driver for driver in row.drivers or []
                     if driver not in drivers]
        if remaining and is_alive(row):
            row.drivers = remaining
            _delete_interfaces(session, row.id, drivers)
            session.flush()
            return
    _delete_interfaces(session, row.id)
    row.online = False
    session.flush()


@db_api.context_manager.writer
def register_host(context, hostname, drivers=None):
    """``register`` in a transaction of the request context's database.
    """
    register(context.session, hostname, drivers)


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


class Registered(object):
    """What the alive conductors registered of the interfaces of a
    hardware type (Ironic's conductor_hardware_interfaces rows of the
    conductors that are alive, see is_alive: the rows of the others do
    not count).

    :ivar driver: the hardware type.
    :ivar hosts: the hostnames of its alive conductors, sorted (empty:
        none drives it).
    """

    def __init__(self, driver, hosts, rows):
        self.driver = driver
        self.hosts = hosts
        order = node_interfaces.HARDWARE_TYPES.get(driver, {})
        self._enabled = {}
        self._any = {}
        self._default = {}
        # rows: (hostname, hardware type, interface type, name, default)
        # of every alive conductor.
        for host, hw_type, kind, name, default in sorted(
                rows, key=lambda row: row[0]):
            names = self._any.setdefault(kind, [])
            if name not in names:
                names.append(name)
            if hw_type != driver or host not in hosts:
                continue
            names = self._enabled.setdefault(kind, [])
            if name not in names:
                names.append(name)
            # Conductors should agree on the defaults (Ironic asks it);
            # when they do not, that of the first host by name.
            if default:
                self._default.setdefault(kind, name)
        for kind, names in list(self._enabled.items()) + list(
                self._any.items()):
            known = order.get(kind, ())
            names.sort(key=lambda name: (name not in known,
                                         known.index(name) if name in known
                                         else 0, name))

    def enabled(self, kind):
        """The implementations of interface type ``kind`` the conductors
        of the hardware type registered for it, in its order of
        preference.
        """
        return list(self._enabled.get(kind, ()))

    def enabled_any(self, kind):
        """The implementations of ``kind`` any alive conductor registered,
        for any hardware type (those a deployment has enabled).
        """
        return list(self._any.get(kind, ()))

    def default(self, kind):
        """The default the conductors of the hardware type registered
        for ``kind`` (None: none).
        """
        return self._default.get(kind)


@db_api.context_manager.reader
def registered_interfaces(context, driver):
    """Return the Registered interfaces of the hardware type ``driver``,
    from the rows of the alive conductors.
    """
    alive = {row.id: row for row in
             context.session.query(models.Conductor).filter_by(online=True)
             if is_alive(row)}
    hosts = sorted(row.hostname for row in alive.values()
                   if driver in (row.drivers or []))
    rows = []
    if alive:
        table = models.ConductorHardwareInterface
        rows = [(alive[row.conductor_id].hostname, row.hardware_type,
                 row.interface_type, row.interface_name, row.default)
                for row in context.session.query(table).filter(
                    table.conductor_id.in_(list(alive)))]
    return Registered(driver, hosts, rows)


def hardware_interfaces(context, driver):
    """Return what the alive conductors of the hardware type ``driver``
    registered of its interfaces: ``{interface type: (implementations,
    default)}``, the implementations in the hardware type's order of
    preference, the default None when none registered one (Ironic's
    ``enabled_<type>_interfaces`` and ``default_<type>_interface`` of
    ``GET /v1/drivers/{name}``).
    """
    registered = registered_interfaces(context, driver)
    return {kind: (registered.enabled(kind), registered.default(kind))
            for kind in node_interfaces.TYPES
            if registered.enabled(kind) or registered.default(kind)}


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
