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

""""No valid host": why a selection failed, in words a user can act on.

When no node (or too few) suits a request, the scheduler counts, only
then, how many nodes meet each requirement of the request
(scheduler.candidate_counts), and runs the filters once more over the candidates
to learn which filter rejected them and why. ``describe`` turns those
numbers into the fault's message, naming the first requirement that no
node meets ("No node of resource class CUSTOM_GOLD has trait
CUSTOM_GPU."), and the fault's details, every count, shown to
administrators only. The message holds counts and the request's own
words, never a node's name or uuid nor anything of other projects.
"""

import re

from oslo_log import log as logging

from nova_mini.db import api as db_api
from nova_mini import exception
from nova_mini.scheduler import candidate_counts
from nova_mini.scheduler import candidates

LOG = logging.getLogger(__name__)

# At most this many candidates are run through the filters again to find
# the reason a filter gave.
SAMPLE_LIMIT = 1000

_UUID = re.compile(r'[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?'
                   r'[0-9a-f]{12}', re.IGNORECASE)


def _nodes(count):
    return '%d node%s' % (count, '' if count == 1 else 's')


def _verb(count, singular, plural):
    return singular if count == 1 else plural


def size_text(resource_class, amount):
    """Return a size the way a user reads it.

    :param resource_class: ``VCPU``, ``MEMORY_MB`` or ``DISK_GB``.
    :param amount: the amount of it.
    :returns: e.g. ``8 CPUs``, ``64 GiB of memory``, ``100 GB of disk``.
    """
    if resource_class == 'VCPU':
        return '%d CPU%s' % (amount, '' if amount == 1 else 's')
    if resource_class == 'MEMORY_MB':
        if amount % 1024 == 0:
            return '%d GiB of memory' % (amount // 1024)
        return '%d MiB of memory' % amount
    if resource_class == 'DISK_GB':
        return '%d GB of disk' % amount
    return '%d %s' % (amount, resource_class)


def _noun(requirement):
    """The requirement as a noun phrase: ``trait X``, ``64 GiB of
    memory``, ``no trait X``.
    """
    if requirement['kind'] == 'trait':
        return 'trait %s' % requirement['name']
    if requirement['kind'] == 'forbidden':
        return 'no trait %s' % requirement['name']
    return size_text(requirement['name'], requirement['amount'])


def _meet(requirement, count):
    """What ``count`` nodes meeting ``requirement`` do, as a verb phrase."""
    if requirement['kind'] == 'forbidden':
        return '%s the forbidden trait %s' % (
            _verb(count, 'lacks', 'lack'), requirement['name'])
    return '%s %s' % (_verb(count, 'has', 'have'), _noun(requirement))


def _states(counts):
    """Where the nodes of ``counts`` are: ``2 in use, 1 in maintenance``."""
    in_use, maintenance = counts['in_use'], counts['maintenance']
    other = counts['total'] - in_use - maintenance
    parts = []
    if in_use:
        parts.append('%d in use' % in_use)
    if maintenance:
        parts.append('%d in maintenance' % maintenance)
    if other:
        parts.append('%d not in provision state available' % other)
    return ', '.join(parts)


def _unavailable(counts):
    """Why none of ``counts['total']`` nodes (none available) can be
    used: ``all are in use`` or where they are.
    """
    total = counts['total']
    if counts['in_use'] == total:
        return 'it is in use' if total == 1 else 'all are in use'
    return '%s is available (%s)' % ('it' if total == 1 else 'none',
                                     _states(counts))


def _scope(counts):
    custom = counts['resource_classes']
    return ' of resource class %s' % custom[0] if custom else ''


def _and(words):
    if len(words) < 2:
        return ''.join(words)
    return '%s and %s' % (', '.join(words[:-1]), words[-1])


def _missing(counts):
    """Sentences for the requirements no node meets, in any state."""
    scope = _scope(counts)
    sentences = []
    for requirement in counts['requirements']:
        if requirement['total']:
            continue
        if requirement['kind'] == 'forbidden':
            sentences.append('Every node%s has the forbidden trait %s.'
                             % (scope, requirement['name']))
        elif requirement['kind'] == 'capacity':
            largest = counts['largest'].get(requirement['name'])
            sentences.append('No node%s has %s%s.' % (
                scope, _noun(requirement),
                ' (the largest has %s)' % size_text(requirement['name'],
                                                    largest)
                if largest else ''))
        else:
            sentences.append('No node%s has %s.' % (scope,
                                                    _noun(requirement)))
    return sentences


def _taken(counts):
    """Sentences for the requirements only unavailable nodes meet: every
    trait, and the other requirements that some nodes do not meet (a
    size every node has says nothing).
    """
    scope = _scope(counts)
    sentences = []
    for requirement in counts['requirements']:
        selective = (requirement['kind'] == 'trait' or
                     requirement['total'] < counts['nodes']['total'])
        if selective and requirement['total'] and not (
                requirement['available']):
            sentences.append('%s%s %s but %s.' % (
                _nodes(requirement['total']), scope,
                _meet(requirement, requirement['total']),
                _unavailable(requirement)))
    return sentences


def _none_available(counts):
    """The sentence for a resource class without an available node."""
    scope = _scope(counts)
    nodes = counts['nodes']
    if nodes['in_use'] == nodes['total']:
        if nodes['total'] == 1:
            return 'The only node%s is in use.' % scope
        return 'All %d nodes%s are in use.' % (nodes['total'], scope)
    return 'No node%s is available (%s).' % (scope, _states(nodes))


def _together(counts):
    """The sentence for the request as a whole: no node meets every
    requirement at once, or those that do are not available.
    """
    scope = _scope(counts)
    together = counts['all']
    if not together['total']:
        # Leave out what every node meets.
        nouns = _and([_noun(r) for r in counts['requirements']
                      if r['total'] < counts['nodes']['total']])
        return ('No node%s has %s together, though each is found on some '
                'node.' % (scope, nouns))
    nouns = _and([_noun(r) for r in counts['requirements']])
    if together['available']:
        return None
    return '%s%s %s %s but %s.' % (
        _nodes(together['total']), scope,
        _verb(together['total'], 'has', 'have'), nouns,
        _unavailable(together))


def _candidates(count):
    return '%d candidate node%s' % (count, '' if count == 1 else 's')


def _rejected(rejection):
    """The sentence for a filter that rejected candidates."""
    name, seen = rejection['filter'], rejection['seen']
    if rejection['passed']:
        head = 'The %s rejected %d of the %s' % (
            name, rejection['rejected'], _candidates(seen))
    elif seen == 1:
        head = 'The %s rejected the only candidate node' % name
    else:
        head = 'The %s rejected all %s' % (name, _candidates(seen))
    if rejection.get('public_reason'):
        return '%s: %s.' % (head, rejection['public_reason'].rstrip('.'))
    return head + '.'


def _why_none(counts, rejection):
    """The sentences saying why no node suits the request."""
    custom = counts['resource_classes']
    if len(custom) > 1:
        return ['The request asks for resource classes %s, but a node has '
                'only one.' % ' and '.join(sorted(custom))]
    if not counts['nodes']['total']:
        if custom:
            return ['No node has resource class %s.' % custom[0]]
        return ['There are no nodes.']
    sentences = _missing(counts)
    if sentences:
        return sentences
    sentences = _taken(counts)
    if sentences:
        return sentences
    if not counts['nodes']['available']:
        return [_none_available(counts)]
    sentence = _together(counts)
    if sentence:
        return [sentence]
    if not counts['candidates']:
        return ['The %s available that %s the request %s ruled out by the '
                'hosts it ignores or forces or by its earlier attempts.'
                % (_nodes(counts['all']['available']),
                   _verb(counts['all']['available'], 'meets', 'meet'),
                   _verb(counts['all']['available'], 'is', 'are'))]
    if rejection is not None:
        return [_rejected(rejection)]
    return ['The nodes that met the request were taken by other requests '
            'meanwhile; try again.']


def _why_too_few(wanted, suitable, counts, rejection):
    """The sentences saying why fewer than ``wanted`` nodes suit it."""
    sentences = ['%d nodes wanted, %d suitable.' % (wanted, suitable)]
    together = counts['all']
    busy = together['total'] - together['available']
    if busy > 0:
        sentences.append('%d more node%s%s %s the request but %s not '
                         'available.' % (
                             busy, '' if busy == 1 else 's', _scope(counts),
                             _verb(busy, 'meets', 'meet'),
                             _verb(busy, 'is', 'are')))
    if rejection is not None:
        sentences.append(_rejected(rejection))
    return sentences


def _counts_line(label, counts):
    return '%s: %d (available %d, in use %d, in maintenance %d)' % (
        label, counts['total'], counts['available'], counts['in_use'],
        counts['maintenance'])


def describe(wanted, suitable, counts, stages, rejection=None):
    """Return the reason and the details of a failed selection.

    :param wanted: how many nodes the request needed (its instances).
    :param suitable: how many passed every stage.
    :param counts: the node counts of the request, as
        ``scheduler.candidate_counts.count_for_request`` returns them.
    :param stages: the scheduler's counts, stage name (``database``, a
        filter's name) -> nodes left after it, in order.
    :param rejection: None, or the filter that rejected candidates: a
        dict of ``filter`` (name), ``seen``, ``rejected``, ``passed``,
        ``reason`` (its first reason) and ``public_reason`` (that reason
        when it may be shown to the user, else None).
    :returns: (reason, details): the text that follows "No valid host was
        found." for the user, and the counts for administrators.
    """
    if suitable and suitable < wanted:
        sentences = _why_too_few(wanted, suitable, counts, rejection)
    else:
        sentences = _why_none(counts, rejection)
    lines = ['Nodes wanted: %d, suitable: %d.' % (wanted, suitable)]
    scope = _scope(counts).strip() or 'of any resource class'
    lines.append(_counts_line('Nodes ' + scope, counts['nodes']))
    for requirement in counts['requirements']:
        lines.append(_counts_line('  with ' + _noun(requirement),
                                  requirement))
    lines.append(_counts_line('  with every requirement', counts['all']))
    lines.append('Candidates (every database condition, ignored and forced '
                 'hosts included): %d' % counts['candidates'])
    lines.append('Scheduler stages (nodes passed): %s' % (
        ', '.join('%s: %d' % item for item in stages.items()) or 'none'))
    if rejection is not None:
        lines.append('%s rejected %d of %d candidates, first because: %s' % (
            rejection['filter'], rejection['rejected'], rejection['seen'],
            rejection['reason']))
    return ' '.join(sentences), '\n'.join(lines)


def public_reason(reason, node):
    """Return a filter's ``reason`` if it may be shown to the user.

    A reason naming a node (its name or uuid) or holding any uuid (a
    server, a group, perhaps another project's) is withheld.

    :param reason: the text a filter's ``check`` returned.
    :param node: the NodeState it was about.
    :returns: the reason, or None.
    """
    if not reason or _UUID.search(reason):
        return None
    for name in (node.uuid, node.name):
        if name and re.search(r'(?<![\w.-])%s(?![\w.-])' % re.escape(name),
                              reason):
            return None
    return reason


def find_rejection(nodes, spec_obj, active, wanted):
    """Run the filters ``active`` over ``nodes`` and return the one that
    left too few of them.

    :param nodes: candidate NodeStates.
    :param spec_obj: the RequestSpec.
    :param active: the filters as ``filters_for`` returns them.
    :param wanted: how many nodes the request needs.
    :returns: None if at least ``wanted`` passed every filter; else the
        filter that emptied the list or, if none did, the one that
        rejected most nodes, as a dict (see ``describe``); None if no
        filter rejected anything.
    """
    found = None
    for node_filter in active:
        if not nodes:
            break
        passed, first = [], None
        for node in nodes:
            reason = node_filter.check(node, spec_obj)
            if reason is None:
                passed.append(node)
            elif first is None:
                first = (reason, node)
        rejected = len(nodes) - len(passed)
        if rejected and (found is None or not passed or
                         rejected > found['rejected']):
            found = {'filter': node_filter.name, 'seen': len(nodes),
                     'rejected': rejected, 'passed': len(passed),
                     'reason': first[0],
                     'public_reason': public_reason(*first)}
        nodes = passed
    if len(nodes) >= wanted:
        return None
    return found


def explain(context, spec_obj, wanted, suitable, stages, filters_for,
            with_traits):
    """Return the NoValidHost for a selection that found too few nodes.

    Runs only on failure: the node counts (two aggregate queries) and the
    filters once more over at most SAMPLE_LIMIT candidates. If counting
    fails, the exception still comes, with the stage counts only.

    :param context: the request context.
    :param spec_obj: the RequestSpec.
    :param wanted: how many nodes the request needed.
    :param suitable: how many passed every stage.
    :param stages: the scheduler's counts (stage name -> nodes passed).
    :param filters_for: the scheduler's ``filters_for``.
    :param with_traits: whether the filters read the nodes' traits.
    :returns: a NoValidHost whose ``kwargs['details']`` holds the counts.
    """
    try:
        with db_api.context_manager.reader.using(context):
            counts = candidate_counts.count_for_request(context, spec_obj)
            rejection = None
            if counts['candidates']:
                active = filters_for(context, spec_obj)
                nodes = candidates.get_candidates(
                    context, spec_obj, with_traits=with_traits,
                    limit=SAMPLE_LIMIT)
                rejection = find_rejection(nodes, spec_obj, active, wanted)
        reason, details = describe(wanted, suitable, counts, stages,
                                   rejection)
    except Exception:
        LOG.exception('Explaining a failed selection failed')
        reason = '%d node(s) wanted, %d suitable.' % (wanted, suitable)
        details = 'Scheduler stages (nodes passed): %s' % ', '.join(
            '%s: %d' % item for item in stages.items())
    return exception.NoValidHost(reason=reason, details=details)
