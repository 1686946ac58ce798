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

"""Types that describe an extra spec: its name (possibly patterned), its
parameters, the values it takes, and its support status.

Definitions are documentation as much as validation: the Sphinx extension
and the Glance metadef generator render them, so descriptions are written
for operators.
"""

import dataclasses
import re
import typing as ty

from oslo_utils import strutils

SUPPORTED = 'supported'
EXPERIMENTAL = 'experimental'
DEPRECATED = 'deprecated'


@dataclasses.dataclass(frozen=True)
class Support(object):
    """Whether an extra spec is supported; deprecated ones say since which
    release and what replaces them.
    """

    status: str = SUPPORTED
    since: ty.Optional[str] = None
    replacement: ty.Optional[str] = None
    note: ty.Optional[str] = None

    def __post_init__(self):
        if self.status not in (SUPPORTED, EXPERIMENTAL, DEPRECATED):
            raise ValueError('Unknown support status %r' % self.status)

    def describe_parts(self):
        """Say whether the extra spec is supported, in parts that a
        renderer with markup can show differently (the note left out).

        :returns: a list of strings, lower case, without a final full
            stop, e.g. ``['deprecated since 2.0; use ',
            Key('hw:cpu_policy'), ' instead']``; the ``Key`` part names
            the replacement, to be linked where the output can.
        """
        if self.status != DEPRECATED:
            return [self.status]
        parts = ['deprecated']
        if self.since:
            parts[0] += ' since %s' % self.since
        if self.replacement:
            parts += ['; use ', Key(self.replacement), ' instead']
        return parts

    def describe(self):
        """Say whether the extra spec is supported, as plain text.

        :returns: e.g. ``'supported'``, ``'deprecated since 2.0; use
            hw:cpu_policy instead'`` (see ``describe_parts``).
        """
        return ''.join(self.describe_parts())


def deprecated(since, replacement=None, note=None):
    return Support(DEPRECATED, since=since, replacement=replacement,
                   note=note)


@dataclasses.dataclass(frozen=True)
class Parameter(object):
    """A variable part of a patterned name, e.g. ``{id}`` in
    ``hw:numa_cpus.{id}``.
    """

    name: str
    pattern: str
    description: str


@dataclasses.dataclass(frozen=True)
class Value(object):
    """The values an extra spec takes.

    ``type`` is ``str``, ``int`` or ``bool``. Integers may have ``min`` and
    ``max``; strings an ``enum`` or a ``pattern`` (matched in full); booleans
    take every form oslo's strict boolean parsing accepts.
    """

    type: type
    description: str = ''
    min: ty.Optional[int] = None
    max: ty.Optional[int] = None
    enum: tuple = ()
    pattern: ty.Optional[str] = None

    def __post_init__(self):
        if self.type not in (str, int, bool):
            raise ValueError('Unsupported value type %r' % self.type)
        if self.pattern is not None:
            re.compile(self.pattern)

    def describe_parts(self):
        """Say which values are accepted, in parts that a renderer with
        markup (the documentation) can show differently.

        The one wording of a value rule: API errors, nova-mini-manage and
        the documentation all use it. As in validation, a pattern takes
        precedence over an enum.

        :returns: a list of strings, lower case, without a final full
            stop; the ``Literal`` ones are values or patterns, to be shown
            as code where the output can. Joined, they are the plain text
            (``describe()``).
        """
        if self.type is bool:
            return ['a boolean (true/false, yes/no, on/off, y/n, t/f, 1/0, '
                    'any case)']
        if self.type is int:
            if self.min is not None and self.max is not None:
                return ['an integer from %d to %d' % (self.min, self.max)]
            if self.min is not None:
                return ['an integer of at least %d' % self.min]
            if self.max is not None:
                return ['an integer of at most %d' % self.max]
            return ['an integer']
        if self.pattern is not None:
            return ['a string matching ', Literal(self.pattern), ' in full']
        if self.enum:
            parts = ['one of: ']
            for i, choice in enumerate(self.enum):
                if i:
                    parts.append(', ')
                parts.append(Literal(str(choice)))
            return parts
        return ['any string']

    def describe(self):
        """Say which values are accepted, as plain text.

        :returns: e.g. ``'an integer from 1 to 64'``, ``'one of: shared,
            dedicated, mixed'`` (see ``describe_parts``).
        """
        return ''.join(self.describe_parts())


class Literal(str):
    """A value or pattern quoted in a description: code, where the output
    can show code.
    """


class Key(Literal):
    """An extra spec key (or ``key=value``) quoted in a description: a
    link to its definition, where the output can link.
    """


class InvalidValue(ValueError):
    """A value broke its extra spec's rule; the message says which."""


class ExtraSpec(object):
    """The definition of one extra spec (or of a family of them, when the
    name has ``{parameter}`` placeholders).
    """

    __slots__ = ('name', 'description', 'value', 'parameters', 'support',
                 'drivers', 'requires', 'example', 'source', 'regex',
                 'prefix', 'namespace', '_value_regex', '_check')

    def __init__(self, name, description, value, parameters=(),
                 support=Support(), drivers=(), requires=(), example=None,
                 source='nova_mini'):
        self.name = name
        self.description = description
        self.value = value
        self.parameters = tuple(parameters)
        self.support = support
        self.drivers = tuple(drivers)
        self.requires = tuple(requires)
        self.example = example
        self.source = source
        self.regex = _name_regex(name, self.parameters)
        # The literal text before the first placeholder: the index key.
        self.prefix = name.split('{', 1)[0]
        self.namespace = _namespace_of(name)
        self._value_regex = (re.compile(value.pattern)
                             if value.pattern is not None else None)
        self._check = {str: self._check_str, int: self._check_int,
                       bool: self._check_bool}[value.type]

    @property
    def patterned(self):
        return self.regex is not None

    def matches(self, key):
        if self.regex is None:
            return key == self.name
        return self.regex.fullmatch(key) is not None

    def check(self, value):
        """Raise InvalidValue unless ``value`` (a string) is acceptable."""
        self._check(value)

    def _check_str(self, value):
        if self._value_regex is not None:
            if self._value_regex.fullmatch(value) is None:
                raise InvalidValue("'%s' does not match the format '%s'"
                                   % (value, self.value.pattern))
        elif self.value.enum and value not in self.value.enum:
            raise InvalidValue("'%s' is not one of: %s" % (
                value, ', '.join(str(v) for v in self.value.enum)))

    def _check_int(self, value):
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise InvalidValue("'%s' is not an integer" % value)
        if self.value.min is not None and number < self.value.min:
            raise InvalidValue("'%s' is less than the minimum of %d"
                               % (value, self.value.min))
        if self.value.max is not None and number > self.value.max:
            raise InvalidValue("'%s' is more than the maximum of %d"
                               % (value, self.value.max))

    def _check_bool(self, value):
        try:
            strutils.bool_from_string(value, strict=True)
        except ValueError:
            raise InvalidValue("'%s' is not a boolean (true/false, yes/no, "
                               "on/off, 1/0)" % value)

    def __repr__(self):
        return '<ExtraSpec %s>' % self.name


def _name_regex(name, parameters):
    if '{' not in name:
        if parameters:
            raise ValueError('%s has parameters but no placeholder' % name)
        return None
    by_name = {p.name: p for p in parameters}
    parts = []
    for literal, placeholder in re.findall(r'([^{]*)(?:\{(\w+)\})?', name):
        parts.append(re.escape(literal))
        if placeholder:
            if placeholder not in by_name:
                raise ValueError('%s: no parameter named %s'
                                 % (name, placeholder))
            parts.append('(?P<%s>%s)' % (placeholder,
                                         by_name[placeholder].pattern))
    return re.compile(''.join(parts))


def _namespace_of(name):
    """The namespace a name belongs to, placeholders left out: ``hw`` for
    ``hw:cpu_policy``, ``resources`` for ``resources{group}:VCPU``; None
    for names without one.
    """
    if ':' not in name:
        return None
    return name.split(':', 1)[0].split('{', 1)[0]
