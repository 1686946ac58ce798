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

"""Lookup and validation of image properties against their definitions,
with the extra spec registry's machinery (``extra_specs.registry``):
the same index of exact and patterned names, the same "did you mean",
the same operator plugins (namespace ``nova_mini.image_property_validators``,
loaded after the in-tree definitions, which win a name both define).

As in Nova, an unknown property is not an error where images are used
(``PERMISSIVE``, the default): it stays a raw property. ``STRICT``, for
operators checking their images, reports it with the names it resembles.
"""

import difflib
import functools
import importlib

from oslo_log import log as logging
from stevedore import extension

from nova_mini.api.validation.extra_specs import registry as xs_registry
from nova_mini.api.validation.image_properties import base

LOG = logging.getLogger(__name__)

IN_TREE_MODULES = ('cpu', 'devices', 'img', 'legacy', 'os', 'platform',
                   'traits')
PLUGIN_NAMESPACE = 'nova_mini.image_property_validators'

STRICT = xs_registry.STRICT
PERMISSIVE = xs_registry.PERMISSIVE
DISABLED = xs_registry.DISABLED
MODES = xs_registry.MODES

# The prefix of Nova's message for an image it cannot read
# (nova.compute.api refuses the request with a 400).
NOVA_MESSAGE_PREFIX = 'Invalid image metadata. Error: '


class Registry(xs_registry.Registry):
    """Image property definitions, searchable by key.

    Names are grouped by their prefix (``hw``, ``img``, ``os``, ``trait``)
    where extra specs have a ``namespace:``; "did you mean" looks among
    the names of the key's prefix first.
    """

    def namespace_known(self, key):
        namespace = base.namespace_of(key)
        return namespace is not None and namespace in self._namespaces

    def suggest(self, key, count=3):
        near = super(Registry, self).suggest(key, count)
        if near:
            return near
        # The base groups by 'namespace:'; image property names have none,
        # so look again among the names of the key's prefix, more loosely.
        names = self._suggestion_index()[0]
        namespace = base.namespace_of(key)
        same = [n for n in names if base.namespace_of(n) == namespace]
        return difflib.get_close_matches(key, same or names, n=count,
                                         cutoff=0.6)


class Verdict(xs_registry.Verdict):
    """What validation found in a set of image properties; ``values``
    holds Nova's typed value of each accepted known property.
    """

    def __init__(self):
        super(Verdict, self).__init__()
        self.values = {}
        # Keys of a numbered family past a gap, which Nova never reads.
        self.ignored = []


def value_message(key, value, prop, exc):
    """The message of a value ``prop`` refuses, its rule in words (an
    enumeration's refusal lists the values already).
    """
    if prop.value.enum:
        return "Image property '%s': %s." % (key, exc)
    return "Image property '%s' (%s): %s." % (key, prop.describe_value(),
                                              exc)


def unknown_key_message(registry, key):
    """The message of a property no definition has, with the names it
    resembles.
    """
    message = "Image property '%s' is not a known image property" % key
    near = registry.suggest(key)
    if near:
        return message + '; did you mean %s?' % ' or '.join(
            "'%s'" % n for n in near)
    return message + '.'


def validate(registry, properties, mode=PERMISSIVE):
    """Check and coerce every property of ``properties`` (a dict).

    :param mode: ``PERMISSIVE`` (as Nova: unknown properties are only
        noted), ``STRICT`` (they are errors), ``DISABLED`` (nothing
        checked).
    :returns: a Verdict; true when there is no error.
    """
    verdict = Verdict()
    if mode == DISABLED:
        return verdict
    read = _read_in_sequence(registry, properties)
    for key, value in properties.items():
        prop = registry.lookup(key)
        if prop is not None and prop.sequence and key not in read:
            verdict.ignored.append(key)
            if mode == STRICT:
                verdict.errors.append(_gap_message(key, prop))
            continue
        if prop is None:
            verdict.unknown.append(key)
            if mode == STRICT:
                verdict.errors.append(unknown_key_message(registry, key))
            continue
        try:
            verdict.values[key] = prop.coerce(value)
        except ValueError as exc:
            verdict.errors.append(value_message(key, value, prop, exc))
            continue
        if prop.support.status == base.DEPRECATED:
            verdict.deprecated.append((key, prop))
    return verdict


def read(properties, registry=None):
    """What Nova's ``ImageMetaProps.from_dict`` makes of an image's
    properties: the typed value of each Nova field, with Nova's
    precedence. The interface for code that types an image (boot,
    rebuild, the scheduler).

    Legacy names are read first and current names override them;
    ``vmware_adaptertype`` sets ``hw_disk_bus`` (and ``hw_scsi_model``);
    ``hw_numa_cpus.N`` and ``hw_numa_mem.N`` make the lists
    ``hw_numa_cpus`` and ``hw_numa_mem``; ``trait:NAME=required`` makes
    ``traits_required``. Unknown properties are not in the result (they
    stay raw properties).

    :param properties: the image's properties (a dict).
    :param registry: default: the process' registry.
    :returns: ``(verdict, fields)``: the permissive-mode Verdict and the
        dict of typed fields, or ``(verdict, None)`` when the verdict has
        errors (Nova's 400 "Invalid image metadata": put
        ``NOVA_MESSAGE_PREFIX`` before ``verdict.errors[0]``).
    """
    registry = registry or get_registry()
    verdict = validate(registry, properties, PERMISSIVE)
    if not verdict:
        return verdict, None
    legacy, current, sequences, traits = {}, {}, {}, []
    for key, typed in verdict.values.items():
        prop = registry.lookup(key)
        if prop.sequence:
            sequences.setdefault(prop.field, {})[key] = typed
        elif prop.name == 'trait:{trait}':
            if typed == 'required':
                traits.append(key[len('trait:'):])
        elif prop.name == 'vmware_adaptertype':
            if typed == 'ide':
                legacy['hw_disk_bus'] = 'ide'
            elif typed:
                legacy['hw_disk_bus'] = 'scsi'
                legacy['hw_scsi_model'] = typed
        elif prop.field != prop.name:
            legacy[prop.field] = typed
        else:
            current[prop.field] = typed
    fields = dict(legacy)
    fields.update(current)
    for field, by_key in sequences.items():
        literal = registry.lookup(next(iter(by_key))).name.split('{')[0]
        fields[field] = [by_key['%s%d' % (literal, n)]
                         for n in range(len(by_key))]
    if traits:
        fields['traits_required'] = traits
    return verdict, fields


def _read_in_sequence(registry, properties):
    """The keys of numbered families (``hw_numa_cpus.{id}``) that Nova
    reads: from number 0 upwards until one is missing, below the family's
    limit.
    """
    read = set()
    families = {}
    for key in properties:
        prop = registry.lookup(key)
        if prop is not None and prop.sequence:
            families.setdefault(prop.name, prop)
    for prop in families.values():
        literal = prop.name.split('{', 1)[0]
        for number in range(prop.sequence):
            key = '%s%d' % (literal, number)
            if key not in properties:
                break
            read.add(key)
    return read


def _gap_message(key, prop):
    literal = prop.name.split('{', 1)[0]
    return ("Image property '%s' is ignored: %sN is read from %s0 upwards, "
            "up to %s%d, and stops at the first missing number."
            % (key, literal, literal, literal, prop.sequence - 1))


def validate_one(key, value, mode=PERMISSIVE, registry=None):
    """Nova's typed value of one property, for the code that reads images.

    :param registry: default: the process' registry (``get_registry``).
    :returns: the typed value, or ``value`` unchanged for an unknown
        property in permissive mode.
    :raises nova_mini.api.validation.extra_specs.base.InvalidValue: the
        value is refused (or the name, in strict mode); the message is
        the one to give the user.
    """
    registry = registry or get_registry()
    verdict = validate(registry, {key: value}, mode)
    if verdict.errors:
        raise base.InvalidValue(verdict.errors[0])
    return verdict.values.get(key, value)


def _in_tree():
    for name in IN_TREE_MODULES:
        module = importlib.import_module(
            'nova_mini.api.validation.image_properties.' + name)
        yield from module.DEFINITIONS


def _plugins():
    def _failed(_manager, entry_point, exc):
        LOG.warning('Image property definitions %s could not be loaded and '
                    'are ignored: %s', entry_point.name, exc)

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
            LOG.warning('Image property definitions %s are not a list and '
                        'are ignored', ext.name)


def build(include_plugins=True):
    """A registry of the in-tree definitions, then the operators' ones
    (an operator definition of an in-tree name is ignored, with a
    warning).
    """
    registry = Registry(_in_tree())
    if include_plugins:
        for source, definitions in _plugins():
            for prop in definitions:
                if not isinstance(prop, base.ImageProperty):
                    LOG.warning('%r from %s is not an ImageProperty and is '
                                'ignored', prop, source)
                    continue
                prop.source = source
                if not registry.add(prop):
                    LOG.warning('Image property %s from %s is already '
                                'defined in nova_mini; the in-tree '
                                'definition is kept', prop.name, source)
    return registry


@functools.lru_cache(maxsize=1)
def get_registry():
    """The registry every API worker uses, built once per process."""
    return build()
