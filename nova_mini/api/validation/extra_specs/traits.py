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

"""Definitions of the ``trait`` extra specs: required and forbidden traits of
the resource providers Placement may pick.

A trait name is checked, not just its shape: it must be one of the standard
traits of the installed os-traits library or a custom one
(``CUSTOM_[A-Z0-9_]+``). Nova defines one validator per standard trait and
scans them all for each key; here a single definition carries an exact
alternation of the names, factored as a trie so that matching costs about
the length of the key, and the registry finds it through its prefix index.
"""

import re

import os_traits

from nova_mini.api.validation.extra_specs import base
from nova_mini.api.validation import messages

# Same group suffix as Placement's granular request syntax: trait, trait1,
# trait_gpu, ... (also used by resources.py).
GROUP = base.Parameter(
    'group', r'([a-zA-Z0-9_-]{1,64})?',
    'Optional request group suffix (up to 64 letters, digits, ``_`` or '
    '``-``). Without it the trait applies to the unnumbered group; with '
    'it, to the numbered group of the same suffix.')


def name_alternation(names):
    """A regex matching exactly ``names`` (literal strings), factored as a
    trie: ``A(?:B|C)`` rather than ``AB|AC``.
    """
    trie = {}
    for name in names:
        node = trie
        for char in name:
            node = node.setdefault(char, {})
        node[''] = None

    def emit(node):
        branches = [re.escape(char) + emit(child)
                    for char, child in sorted(node.items()) if char]
        optional = '' in node
        if not branches:
            return ''
        if len(branches) == 1 and not optional:
            return branches[0]
        return '(?:%s)%s' % ('|'.join(branches), '?' if optional else '')

    return emit(trie)


class ClosedNameSpec(base.ExtraSpec):
    """A patterned extra spec one of whose parameters is a closed set of
    names. ``parameters`` carry a readable pattern (the shape of a name, for
    the documentation); ``exact`` maps parameter names to the regexes that
    really decide, which make up ``regex``, so lookups through the registry
    index and ``matches`` only accept real names. ``rules`` says, for a
    closed parameter, what a real name is (a noun phrase), so that a key
    of the right form with a wrong name is refused with that (see
    ``name_problem``).
    """

    __slots__ = ('loose_regex', 'rules', 'closed')

    def __init__(self, name, description, value, exact, rules=None,
                 **kwargs):
        super(ClosedNameSpec, self).__init__(name, description, value,
                                             **kwargs)
        self.rules = dict(rules or {})
        self.closed = {placeholder: re.compile(exact[placeholder])
                       for placeholder in self.rules}
        parts = []
        loose = []
        for literal, placeholder in re.findall(r'([^{]*)(?:\{(\w+)\})?',
                                               name):
            parts.append(re.escape(literal))
            loose.append(re.escape(literal))
            if placeholder:
                readable = next(p.pattern for p in self.parameters
                                if p.name == placeholder)
                pattern = exact.get(placeholder) or readable
                parts.append('(?P<%s>%s)' % (placeholder, pattern))
                # Any text where a closed name goes, the readable pattern
                # elsewhere: the key has this spec's form.
                loose.append('(?P<%s>%s)' % (
                    placeholder,
                    '.*' if placeholder in self.rules else readable))
        self.regex = re.compile(''.join(parts))
        self.loose_regex = re.compile(''.join(loose))

    def name_problem(self, key):
        """Return what is wrong with the name in ``key``, or None.

        :param key: an extra spec key.
        :returns: a sentence naming the wrong name and what a right one
            is, when ``key`` has this spec's form but a name outside the
            closed set; None otherwise.
        """
        match = self.loose_regex.fullmatch(key)
        if match is None or self.regex.fullmatch(key):
            return None
        for placeholder in sorted(self.rules):
            text = match.group(placeholder)
            if not self.closed[placeholder].fullmatch(text):
                what = placeholder.replace('_', ' ')
                return "'%s' is not a %s; a %s is %s" % (
                    text, what, what, self.rules[placeholder])
        return None


STANDARD_TRAITS = frozenset(os_traits.get_traits())
TRAIT_NAME = r'CUSTOM_[A-Z0-9_]+|' + name_alternation(STANDARD_TRAITS)

DEFINITIONS = [
    ClosedNameSpec(
        name='trait{group}:{trait}',
        description=(
            'Ask Placement for resource providers that have '
            '(``required``) or lack (``forbidden``) the trait ``{trait}``. '
            'With a ``{group}`` suffix the condition applies to the '
            'provider of that numbered request group only.'
        ),
        parameters=[
            GROUP,
            base.Parameter(
                'trait', r'CUSTOM_[A-Z0-9_]+|[A-Z][A-Z0-9_]*',
                'A trait name: ``CUSTOM_`` followed by upper-case letters, '
                'digits and underscores, or one of the standard traits of '
                'os-traits (e.g. ``HW_CPU_X86_AVX2``, '
                '``STORAGE_DISK_SSD``). Other names of that shape are '
                'rejected.'),
        ],
        exact={'trait': TRAIT_NAME},
        rules={'trait': messages.TRAIT_RULE},
        value=base.Value(str, enum=('required', 'forbidden')),
        example='trait:HW_CPU_X86_AVX2=required',
    ),
]
