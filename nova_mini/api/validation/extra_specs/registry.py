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

"""Lookup and validation of extra specs against their definitions.

Exact names are found in a dict. Patterned names are indexed by their
literal prefix (``hw:numa_cpus.`` for ``hw:numa_cpus.{id}``): a key is only
matched against the few patterns whose prefix it starts with, never against
every pattern.
"""

import difflib
import functools
import importlib
import re

from oslo_log import log as logging
from stevedore import extension

LOG = logging.getLogger(__name__)

# In-tree definition modules, each with a DEFINITIONS list.
IN_TREE_MODULES = (
    'accel', 'aggregate_instance_extra_specs', 'capabilities', 'hw',
    'hw_cpu', 'hw_numa', 'hw_rng', 'hw_video', 'null', 'os',
    'pci_passthrough', 'quota', 'resources', 'traits', 'vmware',
)
PLUGIN_NAMESPACE = 'nova_mini.extra_spec_validators'

# How many looked-up keys Registry.lookup remembers.
CACHE_SIZE = 8192

STRICT = 'strict'
PERMISSIVE = 'permissive'
DISABLED = 'disabled'
MODES = (STRICT, PERMISSIVE, DISABLED)


class Registry(object):
    """Extra spec definitions, searchable by key."""

    def __init__(self, definitions=()):
        self._exact = {}
        self._by_prefix = {}
        self._prefix_lengths = ()
        self._namespaces = set()
        self._namespace_patterns = []
        # key -> definition or None: the API sees the same few keys again
        # and again. Bounded, since keys come from users.
        self._cache = {}
        self._suggestions = None  # built on first use
        for spec in definitions:
            self.add(spec)

    def add(self, spec):
        """Register ``spec``; False if its name is taken (first one wins)."""
        if spec.name in self._exact or any(
                s.name == spec.name
                for s in self._by_prefix.get(spec.prefix, ())):
            return False
        if spec.patterned:
            self._by_prefix.setdefault(spec.prefix, []).append(spec)
            self._prefix_lengths = tuple(sorted(
                {len(p) for p in self._by_prefix}, reverse=True))
        else:
            self._exact[spec.name] = spec
        if spec.namespace is not None:
            head = spec.name.split(':', 1)[0]
            if '{' in head:
                self._namespace_patterns.append(
                    re.compile(spec.regex.pattern.split(':', 1)[0]))
            self._namespaces.add(spec.namespace)
        self._cache.clear()
        self._suggestions = None
        return True

    def lookup(self, key):
        """The definition of ``key``, or None."""
        try:
            return self._cache[key]
        except KeyError:
            pass
        spec = self.find(key)
        if len(self._cache) >= CACHE_SIZE:
            self._cache.clear()
        self._cache[key] = spec
        return spec

    def find(self, key):
        """``lookup`` without its cache: the exact name, else the patterns
        indexed under a literal prefix of ``key``, longest prefix first.
        """
        spec = self._exact.get(key)
        if spec is not None:
            return spec
        for length in self._prefix_lengths:
            for candidate in self._by_prefix.get(key[:length], ()):
                if candidate.regex.fullmatch(key):
                    return candidate
        return None

    def misnamed(self, key):
        """The definition whose form ``key`` has but with a name outside
        its closed set of names (``trait:FOO``), and what is wrong.

        :param key: an extra spec key that ``lookup`` does not know.
        :returns: ``(definition, problem)`` or ``(None, None)``.
        """
        for length in self._prefix_lengths:
            for candidate in self._by_prefix.get(key[:length], ()):
                name_problem = getattr(candidate, 'name_problem', None)
                problem = name_problem(key) if name_problem else None
                if problem:
                    return candidate, problem
        return None, None

    def namespace_known(self, key):
        """Whether the namespace of ``key`` (text before ':') is ours."""
        if ':' not in key:
            return False
        head = key.split(':', 1)[0]
        return head in self._namespaces or any(
            p.fullmatch(head) for p in self._namespace_patterns)

    def suggest(self, key, count=3):
        """Registered names that look like ``key`` (typos), best first,
        from the names of the same namespace when there are any.

        Patterned names whose literal prefix ``key`` starts with (a bad
        parameter, as in ``hw:numa_cpus.x``) and names one edit away (a
        character missing, extra, replaced or two swapped, found through an
        index of the names with one character deleted) come without
        comparing ``key`` with every name; only when there are none does
        difflib look for looser resemblances.
        """
        names, by_head, deletions = self._suggestion_index()
        if ':' in key:
            names = by_head.get(key.split(':', 1)[0], names)
        near = set()
        for length in self._prefix_lengths:
            near.update(spec.name for spec in
                        self._by_prefix.get(key[:length], ()))
        for variant in _deletions(key):
            near.update(deletions.get(variant, ()))
        near.intersection_update(names)
        if near:
            matcher = difflib.SequenceMatcher(b=key)
            scored = []
            for name in near:
                matcher.set_seq1(name)
                scored.append((-matcher.ratio(), name))
            return [name for _score, name in sorted(scored)[:count]]
        return difflib.get_close_matches(key, names, n=count, cutoff=0.6)

    def _suggestion_index(self):
        if self._suggestions is None:
            names = tuple(spec.name for spec in self)
            by_head = {}
            deletions = {}
            for name in names:
                if ':' in name:
                    by_head.setdefault(name.split(':', 1)[0], []).append(name)
                for variant in _deletions(name):
                    deletions.setdefault(variant, []).append(name)
            self._suggestions = (names, by_head, deletions)
        return self._suggestions

    def __iter__(self):
        specs = list(self._exact.values())
        for bucket in self._by_prefix.values():
            specs.extend(bucket)
        return iter(sorted(specs, key=lambda s: s.name))

    def __len__(self):
        return len(self._exact) + sum(len(b) for b in self._by_prefix.values())

    def namespaces(self):
        return sorted(self._namespaces)


def _deletions(text):
    """``text`` and every string made by deleting one of its characters."""
    return {text} | {text[:i] + text[i + 1:] for i in range(len(text))}


class Verdict(object):
    """What validation found in a set of extra specs."""

    def __init__(self):
        self.errors = []      # messages, one per rejected key
        self.unknown = []     # keys with no definition
        self.deprecated = []  # (key, ExtraSpec)

    def __bool__(self):
        return not self.errors


def validate(registry, specs, mode=STRICT):
    """Check every key and value of ``specs`` (a dict of strings).

    Unknown keys are errors in strict mode and only noted in permissive
    mode; invalid values are errors in both; nothing is checked when
    disabled. All problems are reported, not just the first.
    """
    verdict = Verdict()
    if mode == DISABLED:
        return verdict
    for key, value in specs.items():
        spec = registry.lookup(key)
        if spec is None:
            misnamed, problem = registry.misnamed(key)
            if misnamed is not None:
                # Both problems in one message: the name, and the value
                # the definition would refuse too.
                verdict.unknown.append(key)
                problems = [problem] if mode == STRICT else []
                try:
                    misnamed.check(value)
                except ValueError as exc:
                    problems.append('its value %s' % exc)
                if problems:
                    verdict.errors.append("Extra spec '%s': %s." % (
                        key, '; and '.join(problems)))
                continue
            verdict.unknown.append(key)
            if mode == STRICT:
                verdict.errors.append(unknown_key_message(registry, key))
            continue
        try:
            spec.check(value)
        except ValueError as exc:
            verdict.errors.append(_value_message(key, value, spec, exc))
            continue
        if spec.support.status == 'deprecated':
            verdict.deprecated.append((key, spec))
    return verdict


def _value_message(key, value, spec, exc):
    """The message of a value ``spec`` refuses: its rule, in words.

    A pattern is no help to a person: a value with one is described by its
    description and the spec's example instead.
    """
    if spec.value.pattern is None or not spec.value.description:
        return "Extra spec '%s' (%s): %s." % (key, spec.value.describe(),
                                              exc)
    expected = spec.value.description.replace('``', '').rstrip('.')
    expected = expected[:1].lower() + expected[1:]
    message = "Extra spec '%s': '%s' is not valid; expected %s" % (
        key, value, expected)
    if spec.example:
        example = spec.example if '=' in spec.example else '%s=%s' % (
            key, spec.example)
        message += ' (for example %s)' % example
    return message + '.'


def unknown_key_message(registry, key):
    message = "Extra spec '%s' is not a known extra spec" % key
    if registry.namespace_known(key):
        near = registry.suggest(key)
        if near:
            message += '; did you mean %s?' % ' or '.join(
                "'%s'" % n for n in near)
        else:
            message += '.'
    elif ':' in key:
        message += " (no extra spec uses the namespace '%s')." % (
            key.split(':', 1)[0])
    else:
        message += '.'
    return message


def _in_tree():
    for name in IN_TREE_MODULES:
        module = importlib.import_module(
            'nova_mini.api.validation.extra_specs.' + name)
        yield from module.DEFINITIONS


def _plugins():
    def _failed(_manager, entry_point, exc):
        LOG.warning('Extra spec definitions %s could not be loaded and are '
                    'ignored: %s', entry_point.name, exc)

    manager = extension.ExtensionManager(
        PLUGIN_NAMESPACE, invoke_on_load=False,
        on_load_failure_callback=_failed)
    for ext in manager:
        definitions = ext.plugin
        if callable(definitions):
            definitions = definitions()
        try:
            yield ext.name, list(definitions)
        except TypeError:
            LOG.warning('Extra spec definitions %s are not a list and are '
                        'ignored', ext.name)


def build(include_plugins=True):
    """A registry of the in-tree definitions, then the operators' ones."""
    registry = Registry(_in_tree())
    if include_plugins:
        for source, definitions in _plugins():
            for spec in definitions:
                spec.source = source
                if not registry.add(spec):
                    LOG.warning('Extra spec %s from %s is already defined in '
                                'nova_mini; the in-tree definition is kept',
                                spec.name, source)
    return registry


@functools.lru_cache(maxsize=1)
def get_registry():
    """The registry every API worker uses, built once per process."""
    return build()
