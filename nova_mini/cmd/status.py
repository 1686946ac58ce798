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

"""``nova-mini-status upgrade check``: is this deployment ready to run the
installed code?

Run it with the daemons' configuration after installing a new release and
before restarting the daemons. Each check ends in Success, Warning (the
daemons run, but something needs an operator's attention) or Failure (a
daemon will refuse to start or requests will be refused); the exit status
is the worst of them: 0, 1 or 2 (oslo.upgradecheck's codes), 255 when a
check itself broke.
"""

import re
import sys

from oslo_upgradecheck import common_checks
from oslo_upgradecheck import upgradecheck

import sqlalchemy as sa

from nova_mini.api.baremetal.schemas import node_traits as trait_schemas
from nova_mini.cmd import manage_extra_specs
from nova_mini.conductor import drivers as conductor_drivers
from nova_mini import conf
from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.db import migration
from nova_mini.db import models
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects.baremetal import conductor as conductor_obj
from nova_mini.objects.baremetal import node_trait

CONF = conf.CONF

Code = upgradecheck.Code
Result = upgradecheck.Result

# How many offenders a check names before it only counts the rest.
NAMED = 10

_STANDARD_TRAITS = frozenset(trait_schemas.STANDARD_TRAITS)
_CUSTOM_TRAIT = re.compile(trait_schemas.CUSTOM_TRAIT_PATTERN)


def _named(items):
    items = sorted(items)
    text = ', '.join(items[:NAMED])
    if len(items) > NAMED:
        text += ' and %d more' % (len(items) - NAMED)
    return text


def _trait_is_valid(name):
    return name in _STANDARD_TRAITS or bool(_CUSTOM_TRAIT.match(name))


@db_api.context_manager.reader
def _real_hardware_nodes(context):
    """``{(hardware type, conductor group): node count}`` of the nodes a
    nova-mini-conductor drives.
    """
    nodes = models.Node.__table__
    group = sa.func.coalesce(nodes.c.conductor_group, '')
    rows = context.session.execute(
        sa.select(nodes.c.driver, group, sa.func.count()).where(
            nodes.c.driver.in_(conductor_drivers.REAL_HARDWARE_TYPES)
        ).group_by(nodes.c.driver, group))
    return {(driver, grp): count for driver, grp, count in rows}


class Checks(upgradecheck.UpgradeCommands):
    """The checks, in the order they run. The schema check runs first:
    the checks that read the database report Failure when the schema is
    behind, rather than reading tables that may not exist yet.
    """

    def __init__(self):
        self._schema_ready = None

    def _schema(self):
        if self._schema_ready is None:
            try:
                migration.check_ready(CONF.database.connection)
                self._schema_ready = True
            except exception.DatabaseNotReady as exc:
                self._schema_ready = exc.format_message()
            else:
                db_api.configure(CONF)
        return self._schema_ready

    def _check_database(self):
        state = self._schema()
        if state is True:
            return Result(Code.SUCCESS, 'The database schema is at %s.'
                          % migration.head_revision())
        return Result(Code.FAILURE, state)

    def _check_flavor_extra_specs(self):
        if self._schema() is not True:
            return Result(Code.FAILURE, 'Skipped: the database is not ready '
                                        '(see the database check).')
        context = nm_context.get_admin_context()
        invalid = [
            '%s (%s)' % (flavor.flavorid, flavor.name)
            for flavor, verdict in manage_extra_specs.flavor_verdicts(context)
            if verdict.errors]
        if not invalid:
            return Result(Code.SUCCESS)
        return Result(
            Code.WARNING,
            '%d flavor(s) have extra specs that validation=strict rejects: '
            '%s. Servers still boot with them; run "nova-mini-manage flavor '
            'audit" for each problem and fix the flavors with "openstack '
            'flavor set/unset".' % (len(invalid), _named(invalid)))

    def _check_node_traits(self):
        if self._schema() is not True:
            return Result(Code.FAILURE, 'Skipped: the database is not ready '
                                        '(see the database check).')
        context = nm_context.get_admin_context()
        stored = node_trait.stored_trait_names(context)
        invalid = {name: count for name, count in stored.items()
                   if not _trait_is_valid(name)}
        if not invalid:
            return Result(Code.SUCCESS)
        names = ['%s (%d node%s)' % (name, count, '' if count == 1 else 's')
                 for name, count in invalid.items()]
        return Result(
            Code.WARNING,
            'Nodes carry traits that are neither standard os-traits names '
            'nor CUSTOM_ followed by A-Z, 0-9 and _: %s. Flavors cannot '
            'require them; replace them with "openstack baremetal node '
            'add trait <node> <trait>" / "openstack baremetal node remove '
            'trait <node> <trait>".' % _named(names))

    def _check_conductors(self):
        if self._schema() is not True:
            return Result(Code.FAILURE, 'Skipped: the database is not ready '
                                        '(see the database check).')
        context = nm_context.get_admin_context()
        alive = [row for row in conductor_obj.get_all(context)
                 if conductor_obj.is_alive(row)]
        driven = {(driver, row.conductor_group or '')
                  for row in alive for driver in row.drivers or []}
        problems = []
        for (driver, group), count in sorted(
                _real_hardware_nodes(context).items()):
            if (driver, group) not in driven:
                problems.append(
                    '%d %s node(s) of conductor group "%s" have no alive '
                    'nova-mini-conductor driving %s in that group: their '
                    'power, deploy and management requests are refused '
                    '(400 No valid host) until one runs (nova-mini-conductor '
                    'with %s in [DEFAULT] enabled_hardware_types; '
                    'conductors register in group "").'
                    % (count, driver, group, driver, driver))
        real = set(conductor_drivers.REAL_HARDWARE_TYPES)
        shared = [row.hostname for row in alive
                  if set(row.drivers or []) & real and
                  set(row.drivers or []) - real]
        if shared:
            problems.append(
                'Host(s) %s are registered by both nova-mini-api and '
                'nova-mini-conductor: a killed conductor stays alive through '
                'the API\'s heartbeat. Give the conductor a [DEFAULT] host of '
                'its own (it refuses a host the API holds once restarted).'
                % _named(shared))
        if problems:
            return Result(Code.WARNING, ' '.join(problems))
        return Result(Code.SUCCESS)

    def _check_metadata_secret(self):
        if CONF.metadata.metadata_proxy_shared_secret:
            return Result(Code.SUCCESS)
        if CONF.metadata.insecure_unsigned_requests:
            return Result(
                Code.WARNING,
                '[metadata] metadata_proxy_shared_secret is empty and '
                'insecure_unsigned_requests is set: nova-mini-metadata '
                'serves any instance\'s data to whoever names it. Set the '
                'secret shared with the metadata proxy.')
        return Result(
            Code.FAILURE,
            '[metadata] metadata_proxy_shared_secret is empty: '
            'nova-mini-metadata will refuse to start. Set it to the secret '
            'the metadata proxy (Neutron\'s metadata agent) signs with.')

    _upgrade_checks = (
        ('Database schema', _check_database),
        ('Flavor extra specs', _check_flavor_extra_specs),
        ('Node traits', _check_node_traits),
        ('Bare-metal conductors', _check_conductors),
        ('Metadata shared secret', _check_metadata_secret),
        ('Policy file JSON to YAML migration',
         (common_checks.check_policy_json, {'conf': CONF})),
    )


def main(argv=None):
    objects.register_all()
    return upgradecheck.main(
        CONF, project='nova_mini', upgrade_command=Checks(),
        argv=sys.argv[1:] if argv is None else argv)
