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

"""JSON patch (RFC 6902) as Ironic takes it: add, replace and remove,
applied to a copy of a resource's document.

Every bare-metal PATCH handler reads the same way: ``check_fields``
(the paths a patch may touch, before the resource is looked up), then
``apply_to`` on the resource's STORED document (its fields as the object
holds them, secrets in the clear: never the view, whose masks a patch
would store), then its own checks of the result, then ``changes``.
"""

import copy

from nova_mini import exception


def _tokens(path):
    if not path.startswith('/'):
        raise exception.Invalid("Invalid patch path '%s'" % path)
    return [token.replace('~1', '/').replace('~0', '~')
            for token in path[1:].split('/')]


def _index(container, token, path, adding):
    if token == '-' and adding:
        return len(container)
    if not token.isdigit() or (len(token) > 1 and token[0] == '0'):
        raise exception.Invalid("Invalid list index in patch path '%s'"
                                % path)
    index = int(token)
    if index > len(container) or (index == len(container) and not adding):
        raise exception.Invalid("Patch path '%s' is out of range" % path)
    return index


def _parent(document, tokens, path):
    target = document
    for token in tokens[:-1]:
        try:
            if isinstance(target, list):
                target = target[_index(target, token, path, False)]
            elif isinstance(target, dict):
                target = target[token]
            else:
                raise KeyError(token)
        except KeyError:
            raise exception.Invalid("Patch path '%s' does not exist" % path)
    return target


def _apply_one(document, operation):
    op, path = operation['op'], operation['path']
    tokens = _tokens(path)
    parent = _parent(document, tokens, path)
    last = tokens[-1]
    if isinstance(parent, list):
        index = _index(parent, last, path, op == 'add')
        if op == 'add':
            parent.insert(index, operation['value'])
        elif op == 'replace':
            parent[index] = operation['value']
        else:
            del parent[index]
    elif isinstance(parent, dict):
        if op != 'add' and last not in parent:
            raise exception.Invalid(
                "Can't %s non-existent object '%s'" % (op, last))
        if op == 'remove':
            del parent[last]
        else:
            parent[last] = operation['value']
    else:
        raise exception.Invalid("Patch path '%s' does not exist" % path)


def _apply(document, patch):
    """Return a copy of ``document`` changed by ``patch``; the original is
    left alone.

    :param document: the resource's document (a dict).
    :param patch: a list of operations, already checked against the patch
        schema.
    :returns: the patched copy.
    :raises nova_mini.exception.Invalid: an operation whose path does not
        exist or is out of range, or an add or replace without a value.
    """
    document = copy.deepcopy(document)
    for operation in patch:
        if operation['op'] in ('add', 'replace') and \
                'value' not in operation:
            raise exception.Invalid("'add' and 'replace' operations need a "
                                    "value")
        _apply_one(document, operation)
    return document


INTERNAL = "'/%(field)s' is an internal attribute and can not be updated"


def field_of(operation):
    """Return the field a patch operation touches: its path's first
    token (``/extra/a`` -> ``extra``).
    """
    return operation['path'].split('/')[1]


def check_fields(patch, patchable, message=INTERNAL):
    """Refuse a patch touching a field not in ``patchable`` (400).

    :param patch: the operations, already checked against the patch
        schema.
    :param patchable: the fields a patch may change.
    :param message: the refusal, formatted with ``field``, ``path`` and
        ``patchable`` (the fields, comma separated).
    :raises nova_mini.exception.Invalid: a field not in ``patchable``.
    """
    for operation in patch:
        field = field_of(operation)
        if field not in patchable:
            raise exception.Invalid(message % {
                'field': field, 'path': operation['path'],
                'patchable': ', '.join(patchable)})


def apply_to(document, patch, removed=None, empty=None, masked=None):
    """Return the STORED ``document`` of a resource changed by ``patch``.

    The document is the resource's patchable fields as stored; what the
    API shows may differ (masked secrets): a field the patch leaves
    alone keeps its stored value, and a mask the client sent back (it
    patched with what it read) becomes the stored secret again, so that a
    masked value is never stored.

    :param document: ``{field: stored value}``, left alone.
    :param patch: the operations, already checked against the patch
        schema (and by ``check_fields``).
    :param removed: ``{field: value}`` a field the patch removed takes
        (a field not named stays absent).
    :param empty: ``{field: value}`` a field removed or set to null takes
        (the empty document of a dict field, a flag's default); applied
        after ``removed``.
    :param masked: ``{field: function(stored value) -> shown value}`` of
        the fields the API shows masked (see keep_masked).
    :returns: the patched copy.
    :raises nova_mini.exception.Invalid: a path that does not exist or is
        out of range, an add or replace without a value, or a mask with no
        stored secret behind it.
    """
    patched = _apply(document, patch)
    for name, value in (removed or {}).items():
        if name not in patched:
            patched[name] = copy.deepcopy(value)
    for name, value in (empty or {}).items():
        if patched.get(name) is None:
            patched[name] = copy.deepcopy(value)
    for name, mask in (masked or {}).items():
        if patched.get(name) is None:
            continue
        stored = document.get(name) or {}
        patched[name] = keep_masked(patched[name], stored, mask(stored),
                                    '/' + name)
    return patched


def changes(document, patched):
    """Return ``{field: value}`` of the fields whose ``patched`` value
    differs from the stored ``document``'s (a field new to it included).
    """
    return {name: value for name, value in patched.items()
            if name not in document or value != document[name]}


MASK = '******'
_MISSING = object()


def _child(container, key):
    if isinstance(container, dict):
        return container.get(key, _MISSING)
    return _MISSING


def _keep(value, stored, shown, path):
    # What the client sent back as it was shown, where the view masked
    # something: the stored value, not its mask.
    if stored is not _MISSING and shown != stored and value == shown:
        return copy.deepcopy(stored)
    if isinstance(value, dict):
        return {key: _keep(item, _child(stored, key), _child(shown, key),
                           '%s/%s' % (path, key))
                for key, item in value.items()}
    if isinstance(value, list):
        # NOTE: an element may have moved (an add or remove before it):
        # only an element shown at its place and sent back unchanged
        # gets its stored value back; a mask in any other is refused.
        kept = []
        for index, item in enumerate(value):
            if isinstance(stored, list) and isinstance(shown, list) and \
                    index < min(len(stored), len(shown)):
                here = stored[index], shown[index]
            else:
                here = _MISSING, _MISSING
            if here[0] is not _MISSING and here[0] != here[1] and \
                    item == here[1]:
                kept.append(copy.deepcopy(here[0]))
            else:
                kept.append(_keep(item, _MISSING, _MISSING,
                                  '%s/%d' % (path, index)))
        return kept
    if value == MASK:
        raise exception.Invalid(
            "'%s' at %s stands for a secret the API does not show, and no "
            "secret is stored there: give the value itself." % (MASK, path))
    return value


def keep_masked(patched, stored, shown, path):
    """Return ``patched`` with the masks it sent back replaced by the
    secrets they stand for, so that a masked value is never stored.

    A client that reads a resource and sends (part of) it back in a patch
    sends ``******`` for each secret; storing that would destroy the
    secret. Wherever ``patched`` holds what ``shown`` (the masked view of
    ``stored``) holds, and the view masked something there, the stored
    value is kept. A ``******`` anywhere else stands for no secret and is
    refused.

    :param patched: the patched value of a field (a dict, mostly).
    :param stored: the field's stored value, before the patch.
    :param shown: the field as the API shows it (``stored`` masked).
    :param path: the field's patch path (``/driver_info``), for errors.
    :returns: a new value.
    :raises nova_mini.exception.Invalid: a ``******`` with no stored
        secret behind it.
    """
    return _keep(patched, stored, shown, path)
