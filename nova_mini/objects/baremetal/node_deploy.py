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

"""The deploy steps of a deploy or rebuild, run in the transaction that
moves the node (nova_mini.objects.baremetal.node_provision), as Ironic's conductor
runs them (the steps themselves: nova_mini.objects.baremetal.deploy_steps).

The deploy templates named after the traits of the node's instance
(``instance_info['traits']``, from the flavor's and image's required
traits for a server) are read with the move:

* steps the node's interfaces cannot take as written (unexpected or
  missing arguments, the core step given a priority, one step in two
  matching templates) refuse the deploy: the node stays as it was, and the
  request gets Ironic's 400;
* a step the node's interfaces do not have, or no step left to run (the
  core step disabled), fails the deploy: the node goes to ``deploy
  failed`` with Ironic's message in ``last_error``;
* otherwise the steps run, in order. The fake interfaces' steps change
  nothing the API shows. nova_mini's deploy is over when the request is
  answered, so the steps run are kept in
  ``driver_internal_info['deploy_steps']`` (until the next deploy or the
  tear down), where Ironic keeps them while its deploy runs.
"""

import sqlalchemy as sa

from nova_mini.db import models
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import deploy_steps
from nova_mini.objects.baremetal import deploy_template
from nova_mini.objects.baremetal import node_interfaces
from nova_mini import states

_NODES = models.Node.__table__
# The provision actions whose values this module adds to.
ACTIONS = (states.DEPLOY, states.REBUILD, states.UNDEPLOY)
NO_STEPS = 'No deploy steps returned by the driver'


def _node_row(context, node_id):
    # The driver too: an interface left unset is its hardware type's
    # default (deploy_steps.driver_steps).
    columns = [_NODES.c.driver, _NODES.c.driver_internal_info] + [
        _NODES.c[field] for field in node_interfaces.FIELDS]
    return context.session.execute(sa.select(*columns).where(
        _NODES.c.id == node_id)).first()


def plan(templates, drivers, node_uuid):
    """Work out the steps of a deploy.

    :param templates: the matching DeployTemplates.
    :param drivers: the node's deploy steps (deploy_steps.driver_steps).
    :param node_uuid: the node's uuid, for the messages.
    :returns: ``(steps, error)``: the steps to run in order, or None and
        why the deploy fails.
    :raises nova_mini.exception_baremetal.DeployStepsRefused: the templates' steps
        cannot be taken as written.
    """
    try:
        deploy_steps.check_steps(templates, drivers, skip_missing=True)
    except exception.Invalid as exc:
        raise exception_baremetal.DeployStepsRefused(node=node_uuid,
                                                     reason=exc.format_message())
    try:
        user_steps = deploy_steps.check_steps(templates, drivers)
    except exception.Invalid as exc:
        return None, ('Failed to validate the final deploy steps list for '
                      'node %s: %s' % (node_uuid, exc.format_message()))
    steps = deploy_steps.ordered_steps(user_steps, drivers)
    if not steps:
        return None, NO_STEPS
    return steps, None


def _run(steps):
    # The fake interfaces' steps (deploy.deploy) have nothing to do; the
    # record of them is the deploy's outcome.
    return [dict(step) for step in steps]


def changes(context, node, action, more, traits):
    """Return the values the deploy steps of ``action`` write, beyond
    ``more`` (the values the move writes already).

    :param context: the request context, in the move's transaction.
    :param node: the Node (its id and uuid are read).
    :param action: one of ACTIONS.
    :param more: the values the move adds; a ``driver_internal_info`` in
        it is built on.
    :param traits: the traits of the node's instance.
    :returns: a dict of column values.
    :raises nova_mini.exception_baremetal.DeployStepsRefused: see plan().
    """
    row = _node_row(context, node.id)
    info = dict(more.get('driver_internal_info',
                         row.driver_internal_info) or {})
    if action == states.UNDEPLOY:
        if 'deploy_steps' not in info:
            return {}
        del info['deploy_steps']
        return {'driver_internal_info': info}
    templates = deploy_template.DeployTemplateList.get_by_names(
        context, traits).objects
    steps, error = plan(templates, deploy_steps.driver_steps(row),
                        node.uuid)
    if error is not None:
        # As Ironic's failed deploy: no steps are left recorded.
        info['deploy_steps'] = None
        return {'provision_state': states.DEPLOYFAIL, 'last_error': error,
                'driver_internal_info': info}
    info['deploy_steps'] = _run(steps)
    return {'driver_internal_info': info}


def validation_error(context, node, traits):
    """Return why the deploy templates matching ``traits`` refuse a deploy
    of ``node`` (Ironic's node validation of the deploy interface), or
    None. Steps the node lacks are not reported: they fail the deploy
    itself.
    """
    templates = deploy_template.DeployTemplateList.get_by_names(
        context, traits).objects
    try:
        deploy_steps.check_steps(templates, deploy_steps.driver_steps(node),
                                 skip_missing=True)
    except exception.Invalid as exc:
        return exc.format_message()
    return None
