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

"""Glance metadata definitions (metadefs) generated from the extra spec
definitions, so that Horizon and other Glance metadef consumers offer
nova_mini's flavor extra specs with their documented values: what
``nova-mini-manage extra-specs metadefs`` writes.

One metadef namespace document per extra spec namespace:

* namespace ``OS::Compute::NovaMini::<namespace>`` (``OS::Compute::NovaMini``
  for extra specs without a namespace), public and protected;
* a resource type association with ``OS::Nova::Flavor`` whose prefix is
  ``<namespace>:`` (none for extra specs without a namespace), so property
  ``cpu_policy`` of the ``hw`` document is the extra spec ``hw:cpu_policy``;
* one property per extra spec, with its type (string, integer, boolean)
  and its enum, minimum, maximum or pattern.

Patterned names (``hw:numa_cpus.{id}``, ``trait{group}:{trait}``) are left
out: a Glance property is one literal name, and offering the name with its
placeholder would offer a key nova_mini rejects. The namespace description
lists them instead, and a namespace whose names are all patterned still
gets its document, so that every namespace is accounted for. Deprecated
extra specs are kept, marked as deprecated in title and description.

Image properties (``nova-mini-manage image-properties metadefs``) follow
Glance's conventions for image metadata: one document per image property
prefix, ``OS::Compute::NovaMini::Image::<prefix>`` (``hw``, ``img``,
``os``, ``trait``; ``OS::Compute::NovaMini::Image`` for the legacy names
without one), associated with ``OS::Glance::Image`` under the prefix
``<prefix>_`` (``trait:`` for traits) and with ``OS::Cinder::Volume``
under the same prefix with ``properties_target`` ``image`` (a volume's
image metadata), so property ``cpu_policy`` of the ``hw`` document is the
image property ``hw_cpu_policy``. Each property names the flavor extra
spec it mirrors. Patterned names (``hw_numa_cpus.{id}``, ``trait:{trait}``)
are left out and listed, as for extra specs.

Glance's own limits are honoured: namespace and display names of at most
80 characters, a description of at most 500, property names of at most
80 (longer ones are left out, and reported; a longer namespace name is
shortened with a hash of the full one). Patterns are anchored
(``^(?:...)$``), since extra spec values must match in full while a JSON
schema pattern may match anywhere.
"""

import dataclasses
import hashlib
import json
import os
import re

from nova_mini.api.validation.extra_specs import base

NAMESPACE_PREFIX = 'OS::Compute::NovaMini'
RESOURCE_TYPE = 'OS::Nova::Flavor'
IMAGE_NAMESPACE_PREFIX = NAMESPACE_PREFIX + '::Image'
IMAGE_RESOURCE_TYPE = 'OS::Glance::Image'
VOLUME_RESOURCE_TYPE = 'OS::Cinder::Volume'
MAX_NAME = 80
MAX_DESCRIPTION = 500
_TYPES = {str: 'string', int: 'integer', bool: 'boolean'}


@dataclasses.dataclass
class Skipped(object):
    name: str
    reason: str


@dataclasses.dataclass
class MetadefNamespace(object):
    """The metadef document of one extra spec namespace."""

    extra_spec_namespace: str  # None for extra specs without a namespace
    filename: str
    document: dict
    skipped: list

    @property
    def namespace(self):
        return self.document['namespace']

    @property
    def properties(self):
        return self.document['properties']


def plain_text(text):
    """``text`` (reStructuredText) without its inline markup."""
    if not text:
        return ''
    text = re.sub(r':[\w:-]+:`([^`]*)`', r'\1', text)  # roles
    text = re.sub(r'``(.+?)``', r'\1', text, flags=re.S)
    text = re.sub(r'\*\*(\S(?:.*?\S)?)\*\*', r'\1', text, flags=re.S)
    text = re.sub(r'(?<![\w*])\*(\S(?:.*?\S)?)\*(?![\w*])', r'\1', text,
                  flags=re.S)
    text = re.sub(r'`([^`]+)`_{0,2}', r'\1', text)
    return ' '.join(text.split())


def json_schema_pattern(pattern):
    """A Python value regex as an anchored JSON schema one that both
    Python and ECMA 262 engines read alike: named groups become plain
    groups (their syntax differs), named back references numbered ones.
    """
    out, numbers, groups, i = [], {}, 0, 0
    in_class = False
    while i < len(pattern):
        char = pattern[i]
        if char == '\\':
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = char != ']'
        elif char == '[':
            in_class = True
            # A ']' first in a class (after an optional '^') is literal
            # to Python, and closes an empty class in ECMA 262: escape it.
            lead = re.match(r'\[\^?\]?', pattern[i:]).group()
            out.append(lead[:-1] + '\\]' if lead.endswith(']') else lead)
            i += len(lead)
            continue
        elif char == '(':
            named = re.match(r'\(\?P<(\w+)>', pattern[i:])
            if named:
                groups += 1
                numbers[named.group(1)] = groups
                out.append('(')
                i += named.end()
                continue
            backref = re.match(r'\(\?P=(\w+)\)', pattern[i:])
            if backref:
                out.append('(?:\\%d)' % numbers[backref.group(1)])
                i += backref.end()
                continue
            if not pattern.startswith('(?', i):
                groups += 1
        out.append(char)
        i += 1
    return '^(?:%s)$' % ''.join(out)


def _description(spec):
    parts = [plain_text(spec.description)]
    if spec.value.description:
        parts.append(plain_text(spec.value.description))
    support = spec.support
    if support.status != base.SUPPORTED:
        status = support.describe()
        parts.insert(0, status[:1].upper() + status[1:] + '.')
    if support.note:
        parts.append(plain_text(support.note))
    if spec.drivers:
        parts.append('Virt drivers: %s.' % ', '.join(spec.drivers))
    if spec.requires:
        parts.append('Requires: %s.' % ', '.join(spec.requires))
    if spec.source != 'nova_mini':
        parts.append('Defined by the %s plugin.' % spec.source)
    return ' '.join(p.rstrip() for p in parts if p)


def property_schema(spec):
    """The Glance property of a (non-patterned) extra spec."""
    value = spec.value
    prop = {'title': spec.name, 'description': _description(spec),
            'type': _TYPES[value.type]}
    if spec.support.status == base.DEPRECATED:
        prop['title'] += ' (deprecated)'
    if value.type is int:
        if value.min is not None:
            prop['minimum'] = value.min
        if value.max is not None:
            prop['maximum'] = value.max
    elif value.type is str:
        # As in validation, a pattern takes precedence over an enum.
        if value.pattern is not None:
            prop['pattern'] = json_schema_pattern(value.pattern)
        elif value.enum:
            prop['enum'] = [str(choice) for choice in value.enum]
    return prop


def _fit(text, limit):
    return text if len(text) <= limit else text[:limit - 3] + '...'


def _namespace_description(extra_spec_namespace, patterned, head=None,
                           command='extra-specs'):
    if head is not None:
        pass
    elif extra_spec_namespace is None:
        head = ('Flavor extra specs without a namespace, as nova_mini '
                'validates them.')
    else:
        head = ("Flavor extra specs of the '%s:' namespace, as nova_mini "
                "validates them." % extra_spec_namespace)
    if not patterned:
        return _fit(head, MAX_DESCRIPTION)
    intro = ' Not listed, as a Glance property cannot have a patterned name: '
    tail = ' (see nova-mini-manage %s show KEY).' % command
    for shown in range(len(patterned), -1, -1):
        names = ', '.join(patterned[:shown])
        rest = len(patterned) - shown
        if rest:
            names += '%s%d more' % (' and ' if shown else '', rest)
        text = head + intro + names + tail
        if len(text) <= MAX_DESCRIPTION:
            return text
    return _fit(head, MAX_DESCRIPTION)


def _filename(extra_spec_namespace, taken):
    if extra_spec_namespace is None:
        stem = 'nova-mini'
    else:
        stem = 'nova-mini-' + re.sub(r'[^A-Za-z0-9_.-]', '_',
                                     extra_spec_namespace)
    name, n = stem + '.json', 1
    while name in taken:
        n += 1
        name = '%s-%d.json' % (stem, n)
    taken.add(name)
    return name


def _namespace_name(extra_spec_namespace):
    name = '%s::%s' % (NAMESPACE_PREFIX, extra_spec_namespace)
    if len(name) <= MAX_NAME:
        return name
    # Too long for Glance: shorten, keeping names distinct.
    digest = hashlib.sha256(extra_spec_namespace.encode()).hexdigest()[:8]
    return name[:MAX_NAME - 9] + '-' + digest


def build_namespaces(registry):
    """A MetadefNamespace for every extra spec namespace of ``registry``,
    sorted by namespace (the one without a namespace first).
    """
    groups = {}
    for spec in registry:
        groups.setdefault(spec.namespace, []).append(spec)
    taken = set()
    result = []
    for extra_spec_namespace in sorted(groups, key=lambda n: (
            n is not None, n or '')):
        result.append(_build_one(extra_spec_namespace,
                                 groups[extra_spec_namespace], taken))
    return result


def _build_one(extra_spec_namespace, specs, taken):
    if extra_spec_namespace is None:
        prefix = ''
        namespace = NAMESPACE_PREFIX
        display_name = 'nova_mini flavor extra specs without a namespace'
    else:
        prefix = extra_spec_namespace + ':'
        namespace = _namespace_name(extra_spec_namespace)
        display_name = 'nova_mini %s: flavor extra specs' % (
            extra_spec_namespace)
    skipped = []
    properties = {}
    for spec in specs:
        if spec.patterned:
            skipped.append(Skipped(spec.name, 'patterned name'))
            continue
        name = spec.name[len(prefix):]
        if len(name) > MAX_NAME:
            skipped.append(Skipped(spec.name, 'longer than the %d characters '
                                   'Glance allows' % MAX_NAME))
            continue
        properties[name] = property_schema(spec)
    association = {'name': RESOURCE_TYPE}
    if prefix:
        association['prefix'] = prefix
    document = {
        'namespace': namespace,
        'display_name': _fit(display_name, MAX_NAME),
        'description': _namespace_description(
            extra_spec_namespace,
            [s.name for s in skipped if s.reason == 'patterned name']),
        'visibility': 'public',
        'protected': True,
        'resource_type_associations': [association],
        'properties': dict(sorted(properties.items())),
    }
    return MetadefNamespace(extra_spec_namespace,
                            _filename(extra_spec_namespace, taken),
                            document, skipped)


def _image_prefix(namespace):
    """The literal prefix of the image property names of a namespace:
    ``hw_`` for ``hw``, ``trait:`` for ``trait``, none for legacy names.
    """
    if namespace is None:
        return ''
    return namespace + (':' if namespace == 'trait' else '_')


def image_property_schema(prop):
    """The Glance property of a (non-patterned) image property."""
    schema = property_schema(prop)
    if prop.mirrors:
        schema['description'] = _fit(
            '%s Flavor extra spec: %s.' % (schema['description'],
                                           prop.mirrors), MAX_DESCRIPTION)
    return schema


def build_image_namespaces(registry):
    """A MetadefNamespace for every image property prefix of ``registry``
    (an image property registry), the legacy names first; its
    ``extra_spec_namespace`` holds the prefix (``hw``), None for legacy
    names.
    """
    groups = {}
    for prop in registry:
        groups.setdefault(prop.namespace, []).append(prop)
    taken = set()
    result = []
    for namespace in sorted(groups, key=lambda n: (n is not None, n or '')):
        result.append(_build_image_one(namespace, groups[namespace], taken))
    return result


def _build_image_one(namespace, props, taken):
    prefix = _image_prefix(namespace)
    if namespace is None:
        name = IMAGE_NAMESPACE_PREFIX
        display_name = 'nova_mini legacy image properties'
        head = ('Legacy names of image properties, as nova_mini reads them '
                '(deprecated: use the current names).')
        filename = 'nova-mini-image'
    else:
        name = _fit('%s::%s' % (IMAGE_NAMESPACE_PREFIX, namespace), MAX_NAME)
        display_name = 'nova_mini %s image properties' % prefix
        head = ("Image properties named '%s...', as nova_mini reads them "
                "(Nova's coercion)." % prefix)
        filename = 'nova-mini-image-' + re.sub(r'[^A-Za-z0-9_.-]', '_',
                                               namespace)
    skipped = []
    properties = {}
    for prop in props:
        if prop.patterned:
            skipped.append(Skipped(prop.name, 'patterned name'))
            continue
        short = prop.name[len(prefix):]
        if len(short) > MAX_NAME:
            skipped.append(Skipped(prop.name, 'longer than the %d characters '
                                   'Glance allows' % MAX_NAME))
            continue
        properties[short] = image_property_schema(prop)
    associations = [{'name': IMAGE_RESOURCE_TYPE},
                    {'name': VOLUME_RESOURCE_TYPE,
                     'properties_target': 'image'}]
    if prefix:
        for association in associations:
            association['prefix'] = prefix
    stem, n = filename, 1
    filename = stem + '.json'
    while filename in taken:
        n += 1
        filename = '%s-%d.json' % (stem, n)
    taken.add(filename)
    document = {
        'namespace': name,
        'display_name': _fit(display_name, MAX_NAME),
        'description': _namespace_description(
            namespace, [s.name for s in skipped
                        if s.reason == 'patterned name'],
            head=head, command='image-properties'),
        'visibility': 'public',
        'protected': True,
        'resource_type_associations': associations,
        'properties': dict(sorted(properties.items())),
    }
    return MetadefNamespace(namespace, filename, document, skipped)


def write(registry, output_dir, build=None):
    """Write one JSON file per namespace into ``output_dir`` (created if
    missing); return the MetadefNamespaces with their ``path``.

    :param build: the function making the documents of ``registry``:
        ``build_namespaces`` (the default, extra specs) or
        ``build_image_namespaces``.
    """
    os.makedirs(output_dir, exist_ok=True)
    written = []
    for metadef in (build or build_namespaces)(registry):
        path = os.path.join(output_dir, metadef.filename)
        with open(path, 'w', encoding='utf-8') as out:
            json.dump(metadef.document, out, indent=4)
            out.write('\n')
        written.append((path, metadef))
    return written
