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

"""An image property definition: an extra spec definition
(``extra_specs.base.ExtraSpec``) that also coerces its value as Nova's
``ImageMetaProps`` does and names the flavor extra spec it mirrors.

Nova's coercion is looser than extra spec validation, and definitions here
follow it, not the extra spec rules:

* booleans are "flexible": any value is accepted, and only the true forms
  of oslo's boolean parsing (``true``, ``yes``, ``on``, ``1``, ``y``,
  ``t``, any case) read as true;
* integers take whatever Python's ``int()`` takes (``' 3 '``, ``+2``,
  ``1_000``), with no bounds;
* enumerations are case sensitive except where Nova folds case and knows
  aliases (architectures, hypervisor types, VM modes, OS types, SCSI and
  VIF models);
* free strings and UUIDs take anything (Nova only warns about a malformed
  UUID).
"""

import json

from oslo_utils import strutils
from oslo_utils import versionutils

from nova_mini.api.validation.extra_specs import base as xs_base

# Re-exported: definitions use the extra spec types unchanged.
Support = xs_base.Support
Parameter = xs_base.Parameter
Value = xs_base.Value
InvalidValue = xs_base.InvalidValue
deprecated = xs_base.deprecated
SUPPORTED = xs_base.SUPPORTED
DEPRECATED = xs_base.DEPRECATED
EXPERIMENTAL = xs_base.EXPERIMENTAL

# Properties only Nova's XenAPI driver read; Nova removed the driver in
# Victoria but still coerces them. Deprecated here: nothing reads them.
XENAPI_ONLY = xs_base.deprecated(
    None, note='Only the XenAPI driver read it, and Nova removed that '
               'driver in its 22.0.0 (Victoria) release.')

# The name prefixes Nova's image properties use (Glance's metadef prefix
# conventions: hw_, os_, img_), and the trait one.
NAMESPACES = ('hw', 'img', 'os')
TRAIT_NAMESPACE = 'trait'


def namespace_of(name):
    """``hw``, ``img``, ``os`` or ``trait`` for a name that has one of
    those prefixes (``hw_cpu_policy``, ``trait:CUSTOM_X``), else None
    (legacy names such as ``architecture``).
    """
    if name.startswith(TRAIT_NAMESPACE + ':'):
        return TRAIT_NAMESPACE
    head = name.split('_', 1)[0]
    if head in NAMESPACES and '_' in name:
        return head
    return None


class ImageProperty(xs_base.ExtraSpec):
    """The definition of one image property, or of a family of them when
    the name has ``{parameter}`` placeholders (``hw_numa_cpus.{id}``).

    :param mirrors: the flavor extra spec asking for the same thing
        (``hw:cpu_policy`` for ``hw_cpu_policy``), or None.
    :param field: the ``ImageMetaProps`` field the value lands in, when
        it is not the name (legacy names, the NUMA families).
    :param sequence: for a family numbered by its one parameter that
        Nova reads from 0 upwards until a number is missing, the most it
        reads (``hw_numa_cpus.{id}``: 128); keys past a gap are ignored.
    :param coerce: a function of the value returning Nova's typed value
        or raising ``InvalidValue``; by default, the one of ``value``'s
        type (see the module).
    """

    __slots__ = ('mirrors', 'field', 'sequence', '_coerce', '_custom')

    def __init__(self, name, description, value, mirrors=None, field=None,
                 coerce=None, sequence=None, **kwargs):
        super(ImageProperty, self).__init__(name, description, value,
                                            **kwargs)
        self.namespace = namespace_of(name)
        self.mirrors = mirrors
        self.field = field or name
        self.sequence = sequence
        self._custom = coerce is not None
        self._coerce = coerce or _DEFAULT_COERCE[value.type](self)

    def describe_value_parts(self):
        """Which values Nova accepts, in parts as ``Value.describe_parts``
        gives them (literals to be shown as code): that wording where it
        is true of Nova's coercion, the value's description where a
        coercion of its own decides.
        """
        value = self.value
        if value.type is bool:
            return ['any value; ', xs_base.Literal('true'), ', ',
                    xs_base.Literal('yes'), ', ', xs_base.Literal('on'),
                    ', ', xs_base.Literal('1'), ', ', xs_base.Literal('y'),
                    ' or ', xs_base.Literal('t'), ' (any case) read as '
                    'true, anything else as false']
        if value.type is str and not value.enum and self._custom and \
                value.description:
            rule = value.description.replace('``', '').rstrip('.')
            return [rule[:1].lower() + rule[1:]]
        parts = value.describe_parts()
        if value.enum and getattr(self._coerce, 'folded', False):
            parts.append(' (any case, and the aliases Nova knows)')
        return parts

    def describe_value(self):
        """Which values Nova accepts, as plain text (see
        ``describe_value_parts``).
        """
        return ''.join(self.describe_value_parts())

    def coerce(self, value):
        """Nova's typed value of ``value`` (e.g. ``True`` for ``'yes'``,
        ``'x86_64'`` for ``'AMD64'``).

        :raises InvalidValue: Nova would refuse the value.
        """
        return self._coerce(value)

    def check(self, value):
        """Raise InvalidValue unless Nova would accept ``value``."""
        self._coerce(value)

    def __repr__(self):
        return '<ImageProperty %s>' % self.name


def _as_text(value):
    # Glance properties are strings; Nova's string fields also take
    # numbers, which they turn into text.
    if isinstance(value, (dict, list, tuple)) or value is None:
        raise InvalidValue('%r is not a string' % (value,))
    return str(value)


def _flexible_bool(_prop):
    def coerce(value):
        return strutils.bool_from_string(value)
    return coerce


def _integer(prop):
    def coerce(value):
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise InvalidValue("'%s' is not an integer" % (value,))
        # Bounds are nova_mini's documentation of sensible values; Nova
        # checks none at coercion, so neither does this.
        return number
    return coerce


def _string(prop):
    enum = prop.value.enum
    # No in-tree definition has a pattern (Nova's string fields have
    # none); an operator's is matched in full, as its description says.
    regex = prop._value_regex

    def coerce(value):
        text = _as_text(value)
        if regex is not None and regex.fullmatch(text) is None:
            raise InvalidValue("'%s' does not match the format '%s'"
                               % (text, prop.value.pattern))
        if enum and text not in enum:
            raise InvalidValue("'%s' is not one of: %s"
                               % (text, ', '.join(enum)))
        return text
    return coerce


_DEFAULT_COERCE = {bool: _flexible_bool, int: _integer, str: _string}


def folded_enum(values, aliases=None):
    """A coercion that lower-cases the value, maps ``aliases`` to
    canonical values, then requires one of ``values`` (Nova's
    canonicalizing enumerations).
    """
    aliases = dict(aliases or {})

    def coerce(value):
        text = _as_text(value).lower()
        text = aliases.get(text, text)
        if text not in values:
            raise InvalidValue("'%s' is not one of: %s"
                               % (value, ', '.join(values)))
        return text
    coerce.folded = True
    return coerce


def any_uuid(value):
    """Nova's UUID coercion: any text, kept as given (Nova only warns
    about a malformed UUID).
    """
    return _as_text(value)


def version_predicate(value):
    """A comma separated list of comparisons such as ``>=2.6,<3``."""
    if not isinstance(value, str):
        raise InvalidValue('%r is not a string' % (value,))
    try:
        versionutils.VersionPredicate(value)
    except ValueError:
        raise InvalidValue("'%s' is not a version predicate (such as "
                           "'>=2.6' or '>=1.0,<2')" % value)
    return value


def cpu_set(value):
    """Nova's CPU set syntax: numbers and ranges, comma separated, each
    possibly excluded with ``^``; blanks around the parts and empty parts
    are allowed.

    :returns: the set of CPU numbers.
    """
    text = _as_text(value)
    included, excluded = set(), set()
    for part in text.split(','):
        part = part.strip()
        if not part:
            continue
        target = included
        if '-' in part:
            low, high = part.split('-', 1)
            if low[:1] == '^':
                target, low = excluded, low[1:]
            try:
                start, end = int(low.strip()), int(high.strip())
            except ValueError:
                raise InvalidValue("'%s' has an invalid range '%s'"
                                   % (text, part))
            if start > end:
                raise InvalidValue("'%s' has an invalid range '%s'"
                                   % (text, part))
            target.update(range(start, end + 1))
            continue
        if part[0] == '^':
            target, part = excluded, part[1:]
        try:
            target.add(int(part.strip()))
        except ValueError:
            raise InvalidValue("'%s' has an invalid CPU number '%s'"
                               % (text, part))
    return included - excluded


def list_of_mappings(json_text):
    """A coercion to a list of mappings whose values are text or null
    (Nova's image block device mappings).

    :param json_text: decode a text value as JSON first (what Nova does
        for the legacy names ``block_device_mapping`` and ``mappings``
        only). Otherwise, as in Nova, text is refused: only a list is a
        list.
    """

    def coerce(value):
        data = value
        if json_text and isinstance(value, str):
            try:
                data = json.loads(value)
            except ValueError:
                raise InvalidValue("'%s' is not JSON" % value)
        # Text (undecoded) and mappings are not lists, as in Nova.
        if not isinstance(data, (list, tuple)):
            raise InvalidValue("'%s' is not a list" % (value,))
        result = []
        for item in data:
            if not isinstance(item, dict):
                raise InvalidValue("'%s' holds %r, which is not a mapping"
                                   % (value, item))
            result.append({_mapping_text(k): (None if v is None
                                              else _mapping_text(v))
                           for k, v in item.items()})
        return result
    return coerce


def _mapping_text(value):
    if isinstance(value, (dict, list, tuple)) or value is None:
        raise InvalidValue('%r is not text' % (value,))
    return str(value)
