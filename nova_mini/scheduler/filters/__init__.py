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

"""Scheduler filters: plugins that reject candidate nodes.

A filter reads the RequestSpec's attributes (never dicts) and a
``NodeState``; ``check`` says why a node fails, or None if it passes.
``for_request`` runs once per selection, before any ``check``: a filter
that needs the database (the nodes of the servers a hint names) reads it
there. A filter whose answer depends on other requests' claims says so
(``takes_turns``) and locks what they share (``serialize_claims``) first
thing in the transaction that then selects and claims.
Filters are loaded by name from the ``nova_mini.scheduler.filters`` entry
point group, in the order of ``[filter_scheduler] enabled_filters``.
"""

from stevedore import named

NAMESPACE = 'nova_mini.scheduler.filters'


class BaseNodeFilter(object):
    """Base class of the filters."""

    # Whether check() reads NodeState.traits (loaded only if so).
    needs_traits = False
    # Whether a rebuild with a new image runs it on the server's own node
    # (Nova's RUN_ON_REBUILD; see scheduler.rebuild).
    run_on_rebuild = False
    # The scheduler hints it honours: the compute API refuses a hint that
    # no enabled filter reads.
    hints = ()

    @property
    def name(self):
        return type(self).__name__

    def for_request(self, context, spec_obj):
        """Return what checks this request's nodes: ``self``, or an object
        with ``name`` and ``check`` holding what the request needs read
        once (the nodes of the servers a hint names, say); None when the
        request asks nothing of this filter.

        Called once per selection, in its database transaction.

        :param context: the request context.
        :param spec_obj: the RequestSpec.
        :returns: an object with ``name`` and ``check``, or None.
        """
        return self

    def takes_turns(self, spec_obj):
        """Return whether this filter judges ``spec_obj`` by other
        requests' claims, so that its selection and claims must run in
        one write transaction after ``serialize_claims``. False by
        default.

        :param spec_obj: the RequestSpec.
        :returns: a bool.
        """
        return False

    def serialize_claims(self, context, spec_obj):
        """Take, first thing in the transaction that selects and claims
        nodes for ``spec_obj``, the lock that makes the requests this
        filter judges by one another's claims take turns (a server
        group's row); nothing by default.

        Each such request then runs its selection after the earlier ones
        committed their claims, and ``for_request`` reads them.

        :param context: the request context, in the claim's write
            transaction.
        :param spec_obj: the RequestSpec.
        """

    def check(self, node, spec_obj):
        """Return why ``node`` does not suit ``spec_obj``.

        :param node: a NodeState.
        :param spec_obj: the RequestSpec.
        :returns: None if it suits, else the reason (text).
        """
        raise NotImplementedError()

    def node_passes(self, node, spec_obj):
        """Return whether ``node`` suits ``spec_obj`` (see ``check``)."""
        return self.check(node, spec_obj) is None


def _missing(names):
    raise LookupError('no such %s entry point: %s'
                      % (NAMESPACE, ', '.join(sorted(names))))


def load(names, namespace=NAMESPACE):
    """Load the plugins ``names`` of ``namespace``.

    :param names: the entry point names, in the order they run.
    :param namespace: the entry point group.
    :returns: an instance of each, in that order.
    :raises LookupError: a name has no entry point.
    """
    manager = named.NamedExtensionManager(
        namespace, names, invoke_on_load=True, name_order=True,
        on_missing_entrypoints_callback=_missing)
    return [ext.obj for ext in manager]


def hints_read(names, namespace=NAMESPACE):
    """Return the scheduler hints the filters ``names`` honour (their
    ``hints``), without creating the filters; unknown names are skipped.

    :param names: entry point names.
    :param namespace: the entry point group.
    :returns: a frozenset of hint names.
    """
    manager = named.NamedExtensionManager(namespace, names,
                                          invoke_on_load=False)
    return frozenset(hint for ext in manager
                     for hint in getattr(ext.plugin, 'hints', ()))
